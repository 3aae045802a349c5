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

/// The interstitial's device reports.
extension TenancyTests {
    @Test(arguments: TenancyTests.backends)
    func onlyARecentClickOfTheHostsAppMayBeDescribed(backend: String) async throws {
        try await Self.withTenants(backend, configure: { $0.rateLimits = try! RateLimitSettings(parsing: "signals=20/min") }) { client, admin, a, b in
            func report(_ clickID: String, host: String, from address: String = "203.0.113.80") async throws -> TestResponse {
                try await client.execute(uri: "/.ferry/signals", method: .post,
                                         headers: headers(host: host, extra: [(.contentType, "text/plain;charset=UTF-8"), (.forwardedFor, address)]),
                                         body: jsonBody(#"{"click": "\#(clickID)", "signals": \#(iPhoneBrowserReport)}"#))
            }
            var generator = SystemRandomNumberGenerator()
            let madeUp = Identifiers.makeTimeOrdered(prefix: "clk", at: Date(), using: &generator)
            #expect(try await report(madeUp, host: "go.example.com").status == .notFound, "a click that never was")
            // A click of B's, reported on A's host.
            let theirs = try await clickOnIPhone(client, slug: "b-live", address: "203.0.113.81", report: nil, host: "other.test")
            #expect(try await report(theirs, host: "go.example.com").status == .notFound)
            #expect(try await report(theirs, host: "other.test").status == .noContent)
            // A click from two hours ago.
            let old = Click(id: Identifiers.makeTimeOrdered(prefix: "clk", at: Date().addingTimeInterval(-7200), using: &generator), linkID: try #require(a.links[.live]).id,
                            appID: a.app.id, environment: .live, createdAt: Date().addingTimeInterval(-7200), ipHash: nil, networkHash: nil,
                            userAgent: UA.iPhoneSafari, platform: .iOS, referer: nil, query: nil, acceptLanguage: nil)
            try await admin.store.recordClicks([old])
            #expect(try await report(old.id, host: "go.example.com").status == .notFound)
            // One address cannot flood the endpoint.
            var limited = false
            for _ in 0..<40 where !limited {
                limited = try await report(madeUp, host: "go.example.com", from: "203.0.113.90").status == .tooManyRequests
            }
            #expect(limited)
        }
    }
}
#endif
