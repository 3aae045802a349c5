#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `sslmode` as libpq reads it, against the test PostgreSQL, which speaks TLS with a certificate for the name
/// `localhost` (and no address) from a throwaway authority (`scripts/test-postgres.sh` names it in the URL's `sslrootcert`).
@Suite("PostgreSQL over TLS", .takesTurns)
struct PostgresTLSTests {
    /// The test server's URL and its authority's certificate, when both are there.
    static var server: (url: URLComponents, authority: String)? {
        guard let text = ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"], let url = URLComponents(string: text),
              let authority = url.queryItems?.first(where: { $0.name == "sslrootcert" })?.value,
              FileManager.default.isReadableFile(atPath: authority)
        else { return nil }
        return (url, authority)
    }

    /// The server's URL on `host` with these parameters (and a schema of its own).
    static func url(host: String, _ parameters: [String: String]) throws -> String {
        var url = try #require(server).url
        url.host = host
        url.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            + [URLQueryItem(name: "search_path", value: "tls_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))]
        return try #require(url.string)
    }

    static func connects(_ url: String) async -> Bool {
        await failure(url) == nil
    }

    /// Why the store cannot open, or nil when it opens.
    static func failure(_ url: String) async -> String? {
        do {
            let store = try await PostgresStore(url: url, operationDeadline: .seconds(20))
            try await store.checkHealth()
            try await store.close()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test(.enabled(if: server != nil, "needs the test PostgreSQL with TLS (scripts/test-postgres.sh)"))
    func verifyFullTrustsOnlyTheNamedAuthorityForTheNameItCertifies() async throws {
        let authority = try #require(Self.server).authority
        // The certificate is for localhost, from the authority named.
        #expect(await Self.connects(try Self.url(host: "localhost", ["sslmode": "verify-full", "sslrootcert": authority])))
        // The same server reached by an address the certificate does not name; the operator is told why.
        let misnamed = await Self.failure(try Self.url(host: "127.0.0.1", ["sslmode": "verify-full", "sslrootcert": authority]))
        #expect(misnamed?.contains("a connection fails with") == true && misnamed?.lowercased().contains("hostname") == true, "\(misnamed ?? "connected")")
        // An authority the system does not know is not believed.
        #expect(!(await Self.connects(try Self.url(host: "localhost", ["sslmode": "verify-full", "sslrootcert": "system"]))))
        #expect(!(await Self.connects(try Self.url(host: "localhost", ["sslmode": "verify-full"]))))
    }

    @Test(.enabled(if: server != nil, "needs the test PostgreSQL with TLS (scripts/test-postgres.sh)"))
    func weakerModesCheckLess() async throws {
        let authority = try #require(Self.server).authority
        // verify-ca checks the chain, not the name.
        #expect(await Self.connects(try Self.url(host: "127.0.0.1", ["sslmode": "verify-ca", "sslrootcert": authority])))
        #expect(!(await Self.connects(try Self.url(host: "127.0.0.1", ["sslmode": "verify-ca", "sslrootcert": "system"]))))
        // require and prefer encrypt without checking (as libpq does); require with a root certificate is verify-ca.
        #expect(await Self.connects(try Self.url(host: "127.0.0.1", ["sslmode": "require"])))
        #expect(await Self.connects(try Self.url(host: "127.0.0.1", ["sslmode": "prefer"])))
        #expect(await Self.connects(try Self.url(host: "127.0.0.1", ["sslmode": "require", "sslrootcert": authority])))
    }

    @Test func badSettingsAreRefusedBeforeConnecting() async throws {
        for (parameters, message) in [(["sslmode": "verify-everything"], "sslmode must be"),
                                      (["sslmode": "verify-full", "sslrootcert": "/nonexistent/ca.crt"], "sslrootcert")] {
            var url = URLComponents(string: "postgres://ferry@127.0.0.1:1/ferry")!
            url.queryItems = parameters.map { URLQueryItem(name: $0.key, value: $0.value) }
            await #expect { try await PostgresStore(url: url.string!) } throws: { "\($0)".contains(message) }
        }
    }
}
#endif
