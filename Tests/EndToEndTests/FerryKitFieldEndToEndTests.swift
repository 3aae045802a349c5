#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryKit
import FerryServer
import FerryStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps every request the real URLSession transport carries, to see what left the device.
final class RecordingTransport: FerryTransport, @unchecked Sendable {
    // @unchecked: `requests` is only touched under `lock`.
    private let inner = URLSessionTransport(timeout: 10)
    private let lock = NSLock()
    private var requests: [URLRequest] = []
    var sent: [URLRequest] { lock.withLock { requests } }
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        lock.withLock { requests.append(request) }
        return try await inner.send(request)
    }
}

/// FerryKit as it behaves in the field, against the real server on a real port: the signals an app chooses to send,
/// the install id kept out of URLs, and links tapped while the server cannot answer.
@Suite("FerryKit in the field, against the real server")
struct FerryKitFieldEndToEndTests {
    typealias Server = FerryKitEndToEndTests.Server

    /// With fewer signals the server still answers the first launch (matched or organic, never with another link),
    /// and what was sent holds only what the choice allows.
    @Test(arguments: [DeviceSignalsPolicy.minimal, .none])
    func anAppThatSendsFewerSignalsIsStillAnswered(policy: DeviceSignalsPolicy) async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            let created = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "fewer")
            let clickID = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: "fewer")
            for _ in 0..<250 where try await server.store.click(id: clickID) == nil { try await Task.sleep(nanoseconds: 20_000_000) }

            let transport = RecordingTransport()
            var options = FerryKitEndToEndTests.options(base, storage: InMemoryStorage(), transport: transport, device: ClickingIPhone())
            options.deviceSignals = policy
            let ferry = try Ferry(apiKey: server.publishable, options: options)
            let link = try await ferry.checkDeferredDeepLink()
            let match = try #require(transport.sent.first { $0.url?.path == FerryRoutes.attributionMatch })
            let data = try #require(match.httpBody)
            let body = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let signals = (body["signals"] as? [String: Any]) ?? [:]
            if policy == .minimal {
                #expect(Set(signals.keys) == ["platform", "osVersion", "languages"])
            } else {
                #expect(signals.isEmpty)
            }
            // Fewer signals find fewer installs (see the iOS guide's figures), never another link.
            #expect(link == nil || link?.linkID == created.id)
            // Either way the server answered this install and kept its answer.
            let installID = await ferry.installID()
            let apps = try await FerryAdmin(store: server.store).listApps()
            #expect(try await server.store.attribution(appID: try #require(apps.first).id, environment: .live, installID: installID) != nil)
        }
    }
}
#endif
