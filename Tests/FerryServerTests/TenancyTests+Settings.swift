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
import Testing

/// A test key reads an app's settings and changes none of them.
extension TenancyTests {
    @Test(arguments: TenancyTests.backends)
    func aTestKeyChangesNoLiveSetting(backend: String) async throws {
        try await Self.withTenants(backend) { client, admin, a, _ in
            let before = try #require(try await admin.store.app(id: a.app.id))
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: a.key(.secret, .test)))
            let page = try await client.execute(uri: "/dashboard/settings", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(page.status == .ok && page.text.contains("id=\"read-only\"") && !page.text.contains("id=\"save-settings\""))
            let form = "csrf=\(csrf)&name=Hijacked&attributionWindow=168&teamID=ZZZZZ99999&bundleIDs=com.evil.app&fallbackURL=https%3A%2F%2Fevil.example%2F"
            let saved = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: form)
            #expect(saved.status == .forbidden)
            for path in ["/dashboard/domains", "/dashboard/domains/remove", "/dashboard/domains/default"] {
                let response = try await DashboardTests.post(client, path, cookie: cookie, body: "csrf=\(csrf)&domain=go.example.com")
                #expect(response.status == .forbidden, "\(path) → \(response.status)")
            }
            for (method, path, body) in [(HTTPRequest.Method.post, "/v1/domains", #"{"domain": "links.example.net"}"#),
                                         (.delete, "/v1/domains/go.example.com", nil), (.post, "/v1/domains/go.example.com/verify", nil)] {
                let response = try await client.execute(uri: path, method: method, headers: headers(key: a.key(.secret, .test), json: body != nil),
                                                        body: body.map { jsonBody($0) })
                #expect(response.status == .forbidden && response.error?.code == .liveKeyRequired, "\(method) \(path) → \(response.text)")
            }
            #expect(try await admin.store.app(id: a.app.id) == before, "a test key changed the live settings")
            // The live key still may.
            let (liveCookie, liveCSRF) = try #require(try await DashboardTests.signIn(client, key: a.key(.secret, .live)))
            let live = try await DashboardTests.post(client, "/dashboard/settings", cookie: liveCookie,
                                                     body: "csrf=\(liveCSRF)&name=Alpha+2&attributionWindow=48&teamID=ABCDE12345&bundleIDs=com.a.app")
            #expect(live.status == .ok)
            #expect(try await admin.store.app(id: a.app.id)?.name == "Alpha 2")
        }
    }
}
#endif
