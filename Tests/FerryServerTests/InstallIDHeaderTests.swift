#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
@testable import FerryStore
import FerryTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The install that opens a link travels in a header, so that no identifier sits in a URL that proxies and logs keep;
/// the query parameter of older SDKs still works.
@Suite("The opening install's id", .takesTurns)
struct InstallIDHeaderTests {
    @Test func theResolveRoutesReadTheInstallFromTheHeaderFirst() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "open", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let header = HTTPField.Name(FerryRoutes.installIDHeader)!
        try await fixture.application().test(.router) { client in
            let bySlug = try await client.execute(uri: "/v1/links/resolve/open?domain=go.example.com", method: .get,
                                                  headers: headers(key: fixture.publishable, extra: [(header, "IDFV-HEADER")]))
            #expect(bySlug.status == .ok)
            let byURL = try await client.execute(uri: "/v1/links/resolve?url=https%3A%2F%2Fgo.example.com%2Fopen&installID=IDFV-QUERY", method: .get,
                                                 headers: headers(key: fixture.publishable, extra: [(header, "IDFV-BOTH")]))
            #expect(byURL.status == .ok)
            let older = try await client.execute(uri: "/v1/links/resolve/open?installID=IDFV-QUERY", method: .get, headers: headers(key: fixture.publishable))
            #expect(older.status == .ok)
            // A malformed query parameter is refused even beside a good header: what is sent must follow the rule.
            let both = try await client.execute(uri: "/v1/links/resolve/open?installID=", method: .get,
                                                headers: headers(key: fixture.publishable, extra: [(header, "IDFV-HEADER")]))
            #expect(both.status == .badRequest && both.error?.field == "installID")
            for bad in ["", String(repeating: "x", count: 129), "two words"] {
                let refused = try await client.execute(uri: "/v1/links/resolve/open", method: .get, headers: headers(key: fixture.publishable, extra: [(header, bad)]))
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(refused.error?.field == "X-Ferry-Install-ID", "\(bad)")
            }
        }
        let installs = try await fixture.store.writer.read { db in
            try String?.fetchAll(db, sql: "SELECT install_id FROM events WHERE name = 'link_open' ORDER BY seq")
        }
        #expect(installs == ["IDFV-HEADER", "IDFV-BOTH", "IDFV-QUERY"])
    }
}
#endif
