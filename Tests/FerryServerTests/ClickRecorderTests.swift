#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import NIOCore
import Testing

/// The click recorder on its own: where a click came from is resolved when it is written, and on SQLite the
/// writing happens on a thread of lower priority than the event loops.
@Suite("Click recorder", .takesTurns)
struct ClickRecorderTests {
    static func click(_ id: String, linkID: String, appID: String) -> Click {
        Click(id: id, linkID: linkID, appID: appID, environment: .live, createdAt: Date(), ipHash: nil, networkHash: nil,
              userAgent: UA.iPhoneSafari, platform: .iOS, referer: nil, query: nil, acceptLanguage: nil)
    }

    @Test func addressesAreResolvedAndHashedWhenWrittenOnAThreadOfLowerPriority() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "r", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let hasher = AddressHasher(key: "recorder-test-key-0123456789")
        let proxy = try #require(IPNetwork("198.51.100.0/24"))
        let recorder = ClickRecorder(
            store: fixture.store, flushInterval: .seconds(60), batchSize: 100, bufferLimit: 100, logger: Logger(label: "test"),
            addresses: ClientAddressResolver(trustedProxies: [proxy]), hasher: hasher, writerPriority: .nice(7))

        // Through a trusted proxy the forwarded address is the client's; from anyone else, the peer is.
        recorder.record(Self.click("clk_viaproxy", linkID: link.id, appID: fixture.app.id),
                        origin: ClickOrigin(peer: "198.51.100.7", forwardedFor: ["203.0.113.9"]))
        recorder.record(Self.click("clk_direct", linkID: link.id, appID: fixture.app.id),
                        origin: ClickOrigin(peer: "192.0.2.44", forwardedFor: ["203.0.113.9"]))
        // The fast path hands over the socket address itself: it is made text only now.
        recorder.record(Self.click("clk_socket", linkID: link.id, appID: fixture.app.id),
                        origin: ClickOrigin(peer: .socket(try SocketAddress(ipAddress: "192.0.2.45", port: 50_000)), forwardedFor: []))
        // Without an origin, what the click carries is kept.
        var known = Self.click("clk_known", linkID: link.id, appID: fixture.app.id)
        known.ipHash = "kept"
        recorder.record(known)
        #expect(recorder.isPending(clickID: "clk_direct"))
        await recorder.flush()
        #expect(recorder.statistics.recorded == 4 && recorder.statistics.pending == 0)

        let viaProxy = try #require(try await fixture.store.click(id: "clk_viaproxy"))
        let client = try #require(IPAddress("203.0.113.9"))
        #expect(viaProxy.ipHash == hasher.hash(client) && viaProxy.networkHash == hasher.hashNetwork(client))
        let direct = try #require(try await fixture.store.click(id: "clk_direct"))
        #expect(direct.ipHash == hasher.hash(try #require(IPAddress("192.0.2.44"))))
        #expect(try await fixture.store.click(id: "clk_known")?.ipHash == "kept")
        #expect(try await fixture.store.click(id: "clk_socket")?.ipHash == hasher.hash(try #require(IPAddress("192.0.2.45"))))

        // The batches were written on the recorder's own thread, seven steps below the rest of the process.
        #if os(Linux)
        let scheduling = try #require(try await recorder.writerThreadScheduling())
        #expect(scheduling.nice == getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) + 7)
        #expect(scheduling.policy == sched_getscheduler(0), "a nice value keeps the process's policy")
        #endif
    }

    @Test func anIdleWriterRunsOnSpareTimeAndStillWritesEverything() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "i", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let recorder = ClickRecorder(store: fixture.store, flushInterval: .seconds(60), batchSize: 3, bufferLimit: 100,
                                     logger: Logger(label: "test"), writerPriority: .idle)
        for index in 0..<10 { recorder.record(Self.click("clk_idle\(index)", linkID: link.id, appID: fixture.app.id)) }
        await recorder.flush()
        #expect(recorder.statistics.recorded == 10 && recorder.statistics.pending == 0)
        for index in 0..<10 { #expect(try await fixture.store.click(id: "clk_idle\(index)") != nil) }
        #if os(Linux)
        let scheduling = try #require(try await recorder.writerThreadScheduling())
        #expect(scheduling.policy == 5, "SCHED_IDLE")
        #expect(sched_getscheduler(0) == 0, "the rest of the process keeps its policy")
        #endif
    }

    @Test func withoutPriorityTheWriterRunsLevelAndAfterStoppingWritesStillGoThrough() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "s", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let recorder = ClickRecorder(store: fixture.store, flushInterval: .milliseconds(10), batchSize: 10, bufferLimit: 100, logger: Logger(label: "test"))
        #if os(Linux)
        let scheduling = try #require(try await recorder.writerThreadScheduling())
        #expect(scheduling.nice == getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) && scheduling.policy == sched_getscheduler(0))
        #endif
        // A recorder that has run and stopped has let its thread go; a late click (a match waiting for one) is still
        // written, on the caller.
        let running = Task { try await recorder.run() }
        try await Task.sleep(for: .milliseconds(50))
        running.cancel()
        try await running.value
        recorder.record(Self.click("clk_late", linkID: link.id, appID: fixture.app.id))
        #expect(await recorder.waitUntilWritten(clickID: "clk_late"))
        #expect(try await fixture.store.click(id: "clk_late") != nil)
    }
}
#endif
