#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Crypto
import Testing

/// Dashboard sessions that a copy of the database cannot make, and that signing out ends.
extension TenancyTests {
    @Test(arguments: TenancyTests.backends)
    func whoeverReadsTheDatabaseCannotMakeASession(backend: String) async throws {
        try await Self.withTenants(backend) { client, admin, a, _ in
            let store = admin.store
            let (cookie, _) = try #require(try await DashboardTests.signIn(client, key: a.key(.secret, .live)))
            let keyHash = Secrets.hashKey(a.key(.secret, .live))
            var forgeries: [String] = []
            // What a copy of the database holds: the stored hashes, and any key signing sessions.
            if let stored = try await store.session(hash: Secrets.hashKey(cookie)) { forgeries += [stored.hash, stored.keyHash] }
            forgeries.append(keyHash)
            if let signingKey = try await store.setting("dashboard_session_key") {
                let payload = "v1.\(keyHash).\(Int(Date().timeIntervalSince1970) + 3600).\(String(repeating: "n", count: 32))"
                let code = HMAC.sign(payload, key: signingKey)
                forgeries.append(payload + "." + code)
            }
            for forged in forgeries {
                let page = try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(forged)")]))
                #expect(page.status == .seeOther && page.headers[.location] == "/dashboard/sign-in", "a forged session got in: \(forged.prefix(24))…")
            }
            let real = try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(real.status == .ok)
        }
    }

    @Test(arguments: TenancyTests.backends)
    func signingOutEndsTheSessionEverywhere(backend: String) async throws {
        try await Self.withTenants(backend) { client, _, a, _ in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: a.key(.secret, .live)))
            let (other, _) = try #require(try await DashboardTests.signIn(client, key: a.key(.secret, .live)))
            let out = try await DashboardTests.post(client, "/dashboard/sign-out", cookie: cookie, body: "csrf=\(csrf)")
            #expect(out.status == .seeOther && out.headers[.location] == "/dashboard/sign-in")
            // The cookie, kept by someone who copied it, is nobody's now.
            let replayed = try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(replayed.status == .seeOther)
            let posted = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie, body: "csrf=\(csrf)&destination=https%3A%2F%2Fexample.com%2F")
            #expect(posted.status == .seeOther && posted.headers[.location] == "/dashboard/sign-in")
            // Another session of the same key goes on.
            #expect(try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(other)")])).status == .ok)
        }
    }

    @Test func sessionCookiesAreSecureExceptOnThisMachine() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            for (host, secure) in [("go.example.com", true), ("dash.example.com:8443", true), ("localhost:8080", false), ("127.0.0.1:8080", false)] {
                let form = try await client.execute(uri: "/dashboard/sign-in", method: .get, headers: headers(host: host))
                let cookie = try #require(form.headers[values: .setCookie].first { $0.hasPrefix("ferry_signin=") })
                #expect(cookie.contains("; Secure") == secure, "\(host): \(cookie)")
                // A client claiming to have come over https does not make a loopback cookie secure or the reverse.
                let spoofed = try await client.execute(uri: "/dashboard/sign-in", method: .get,
                                                       headers: headers(host: host, extra: [(HTTPField.Name("X-Forwarded-Proto")!, secure ? "http" : "https")]))
                #expect(spoofed.headers[values: .setCookie].first { $0.hasPrefix("ferry_signin=") }?.contains("; Secure") == secure)
            }
        }
    }
}

extension HMAC where H == SHA256 {
    /// The hex HMAC-SHA256 of a text, as a signed cookie carried it.
    static func sign(_ text: String, key: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: Data(key.utf8))).map { String(format: "%02x", $0) }.joined()
    }
}
#endif
