#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `Strict-Transport-Security` on what a real host is answered, from the fast path and the router alike.
@Suite("Strict transport security", .takesTurns)
struct StrictTransportSecurityTests {
    @Test func everyAnswerForARealHostPinsItToHTTPS() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "pinned", destination: "https://example.com/p"), app: fixture.app, environment: .live)
        var local = FerryAdmin.AppSpec(name: "Local", domains: ["localhost:8080"])
        local.fallbackURL = "https://example.com/"
        let localApp = try await fixture.admin.createApp(local)
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "dev", destination: "https://example.com/d"), app: localApp, environment: .live)
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            // The same click three times on one connection: the router reads it, the fast path answers it from memory.
            let clicks = try await EdgeFastPathTests.exchange(port: port, [EdgeFastPathTests.get("/pinned"), EdgeFastPathTests.get("/pinned"),
                                                                           EdgeFastPathTests.get("/pinned", close: true)])
            #expect(clicks.map(\.status) == [302, 302, 302])
            #expect(clicks.allSatisfy { $0.header("Strict-Transport-Security") == "max-age=31536000" }, "\(clicks.map { $0.header("Strict-Transport-Security") ?? "none" })")
            // Pages, API errors and the dashboard too.
            let others = try await EdgeFastPathTests.exchange(port: port, [
                EdgeFastPathTests.get("/missing"), EdgeFastPathTests.get("/v1/links"), EdgeFastPathTests.get("/dashboard/sign-in"),
                EdgeFastPathTests.get("/.well-known/apple-app-site-association", close: true),
            ])
            #expect(others.map(\.status) == [404, 401, 200, 200])
            #expect(others.allSatisfy { $0.header("Strict-Transport-Security") == "max-age=31536000" })
            // This machine's names are never pinned.
            let dev = try await EdgeFastPathTests.exchange(port: port, [
                "GET /dev HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: \(UA.desktop)\r\n\r\n",
                "GET /dev HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: \(UA.desktop)\r\n\r\n",
                "GET /v1/links HTTP/1.1\r\nHost: localhost:8080\r\nConnection: close\r\n\r\n",
            ])
            #expect(dev.map(\.status) == [302, 302, 401])
            #expect(dev.allSatisfy { $0.header("Strict-Transport-Security") == nil })
        }
    }
}
#endif
