#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import Foundation
import Logging
import Synchronization
import Testing

/// The recorder when the database cannot keep up or fails: a full buffer, a batch refused, a batch refused after half
/// of it was committed, an outage that ends. Real SQLite underneath, failing when the test says so; flushes are
/// driven by the test, or by the recorder's own loop with the test waiting for what it expects.
extension ClickRecorderTests {
    @Test func aFullBufferDropsNewClicksCountsThemAndSaysSoWhenItStops() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "full", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let log = RecordingLogHandler.Records()
        let recorder = ClickRecorder(store: fixture.store, flushInterval: .seconds(60), batchSize: 2, bufferLimit: 5, logger: log.logger(.trace))
        let ids = (0..<8).map { "clk_full\($0)" }

        let accepted = ids.map { recorder.record(Self.click($0, linkID: link.id, appID: fixture.app.id)) }
        #expect(accepted == [true, true, true, true, true, false, false, false])
        #expect(recorder.statistics == (pending: 5, recorded: 0, dropped: 3))
        #expect(!recorder.isPending(clickID: "clk_full5"), "a dropped click is not waiting anywhere")

        await recorder.flush()
        #expect(recorder.statistics == (pending: 0, recorded: 5, dropped: 3))
        #expect(try await Self.stored(link, in: fixture) == (rows: 5, counted: 5))
        for id in ids.prefix(5) { #expect(try await fixture.store.click(id: id) != nil) }
        for id in ids.suffix(3) { #expect(try await fixture.store.click(id: id) == nil) }

        // Written, the buffer has room again; the recorder reports the drops when it stops.
        #expect(recorder.record(Self.click("clk_full8", linkID: link.id, appID: fixture.app.id)))
        await recorder.flush()
        #expect(recorder.statistics == (pending: 0, recorded: 6, dropped: 3))
        let running = Task { try await recorder.run() }
        running.cancel()
        try await running.value
        let stopped = try #require(log.entries(saying: "click recorder stopped").first)
        #expect(stopped.metadata["dropped"] == "3" && stopped.metadata["recorded"] == "6" && stopped.metadata["pending"] == "0")
    }

    @Test(arguments: [false, true])
    func aRefusedBatchIsPutBackInFrontAndTheNextFlushWritesEveryClickOnce(onTheWritingThread: Bool) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "retry", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let faults = FaultPlan()
        faults.state.withLock { $0.refusals = 1 }
        let log = RecordingLogHandler.Records()
        let written = WrittenClicks()
        let recorder = ClickRecorder(store: Self.failing(fixture.store, faults, onTheWritingThread: onTheWritingThread), flushInterval: .seconds(60),
                                     batchSize: 3, bufferLimit: 100, logger: log.logger(.trace), afterWrite: { written.add($0) })
        let ids = (0..<7).map { "clk_retry\($0)" }
        for id in ids { recorder.record(Self.click(id, linkID: link.id, appID: fixture.app.id)) }

        // The first batch is refused: the flush stops there, and nothing is lost.
        await recorder.flush()
        #expect(recorder.statistics == (pending: 7, recorded: 0, dropped: 0))
        #expect(ids.allSatisfy(recorder.isPending(clickID:)))
        #expect(try await Self.stored(link, in: fixture) == (rows: 0, counted: 0))
        #expect(log.entries(saying: "click batch not written; will retry").map { $0.metadata["failures"] } == ["1"])

        await recorder.flush()
        #expect(recorder.statistics == (pending: 0, recorded: 7, dropped: 0))
        #expect(try await Self.stored(link, in: fixture) == (rows: 7, counted: 7))
        #expect(written.ids == ids, "each click handed on once, the refused batch first, in order")
        #expect(faults.state.withLock { $0.writes } == 4, "one refused write, then batches of 3, 3 and 1")
    }

    @Test(arguments: [false, true])
    func aBatchRefusedAfterHalfOfItWasCommittedIsWrittenAgainWithoutCountingAnyClickTwice(onTheWritingThread: Bool) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "half", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let faults = FaultPlan()
        faults.state.withLock { $0.halfwayRefusals = 1 }
        let written = WrittenClicks()
        let recorder = ClickRecorder(store: Self.failing(fixture.store, faults, onTheWritingThread: onTheWritingThread), flushInterval: .seconds(60),
                                     batchSize: 4, bufferLimit: 100, logger: RecordingLogHandler.Records().logger(.error), afterWrite: { written.add($0) })
        let ids = (0..<4).map { "clk_half\($0)" }
        for id in ids { recorder.record(Self.click(id, linkID: link.id, appID: fixture.app.id)) }

        // As a connection lost before the commit was answered: two clicks are in, the recorder cannot know it.
        await recorder.flush()
        #expect(recorder.statistics == (pending: 4, recorded: 0, dropped: 0))
        #expect(try await Self.stored(link, in: fixture) == (rows: 2, counted: 2))

        await recorder.flush()
        #expect(recorder.statistics == (pending: 0, recorded: 4, dropped: 0))
        #expect(try await Self.stored(link, in: fixture) == (rows: 4, counted: 4), "the two written twice are stored and counted once")
        #expect(written.ids == ids)
    }

    @Test(arguments: [false, true])
    func afterAnOutageTheRunningRecorderWritesEveryClickOnce(onTheWritingThread: Bool) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "outage", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let faults = FaultPlan()
        faults.state.withLock { $0.down = true }
        let log = RecordingLogHandler.Records()
        let written = WrittenClicks()
        let recorder = ClickRecorder(store: Self.failing(fixture.store, faults, onTheWritingThread: onTheWritingThread), flushInterval: .milliseconds(10),
                                     batchSize: 5, bufferLimit: 1_000, logger: log.logger(.trace), afterWrite: { written.add($0) })
        let running = Task { try await recorder.run() }
        let ids = (0..<45).map { "clk_outage\($0)" }

        for id in ids.prefix(30) { recorder.record(Self.click(id, linkID: link.id, appID: fixture.app.id)) }
        #expect(try await Self.waitUntil { faults.state.withLock { $0.writes } >= 3 }, "the recorder keeps trying")
        for id in ids[30..<40] { recorder.record(Self.click(id, linkID: link.id, appID: fixture.app.id)) }
        #expect(recorder.statistics == (pending: 40, recorded: 0, dropped: 0), "every click is held while the database is away")
        #expect(try await Self.stored(link, in: fixture) == (rows: 0, counted: 0))
        let failures = log.entries(saying: "click batch not written; will retry").compactMap { $0.metadata["failures"].flatMap { Int("\($0)") } }
        #expect(failures.count >= 3 && failures == Array(1...failures.count), "each failed flush is logged and counted")

        // The database is back: without a restart, everything held is written.
        faults.state.withLock { $0.down = false }
        #expect(try await Self.waitUntil { recorder.statistics.pending == 0 })
        for id in ids.suffix(5) { recorder.record(Self.click(id, linkID: link.id, appID: fixture.app.id)) }
        #expect(try await Self.waitUntil { recorder.statistics.pending == 0 })
        running.cancel()
        try await running.value

        #expect(recorder.statistics == (pending: 0, recorded: 45, dropped: 0))
        #expect(try await Self.stored(link, in: fixture) == (rows: 45, counted: 45))
        #expect(written.ids.sorted() == ids.sorted(), "each click stored and handed on once")
        #expect(Array(written.ids.suffix(5)) == Array(ids.suffix(5)))
    }

    /// Without a journal, the batch being written still takes its room in the buffer: clicks that come while it is
    /// refused are the ones dropped, and the refused batch is kept for the next write.
    @Test func withoutAJournalClicksBeyondTheBufferAreDroppedAndARefusedBatchIsKept() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "crowd", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let faults = FaultPlan()
        faults.state.withLock { $0.refusals = 1; $0.holdNext = true }
        let recorder = ClickRecorder(store: Self.failing(fixture.store, faults, onTheWritingThread: false), flushInterval: .seconds(60),
                                     batchSize: 3, bufferLimit: 5, logger: RecordingLogHandler.Records().logger(.error))
        let ids = (0..<9).map { "clk_crowd\($0)" }
        for id in ids.prefix(5) { recorder.record(Self.click(id, linkID: link.id, appID: fixture.app.id)) }

        let flushing = Task { await recorder.flush() }
        #expect(try await Self.waitUntil { faults.isHoldingAWrite }, "the first three are being written")
        let accepted = ids[5...].map { recorder.record(Self.click($0, linkID: link.id, appID: fixture.app.id)) }
        #expect(accepted == [false, false, false, false], "the buffer holds the five, three of them being written")
        faults.release()
        await flushing.value

        // The refused batch is kept, within the bound.
        #expect(recorder.statistics == (pending: 5, recorded: 0, dropped: 4))
        await recorder.flush()
        #expect(recorder.statistics == (pending: 0, recorded: 5, dropped: 4))
        #expect(try await Self.stored(link, in: fixture) == (rows: 5, counted: 5))
        for id in ids.prefix(5) { #expect(try await fixture.store.click(id: id) != nil) }
        for id in ids[5...] { #expect(try await fixture.store.click(id: id) == nil) }
    }

    @Test(arguments: [false, true])
    func aRecorderCancelledRatherThanShutDownStillWritesWhatItHolds(onTheWritingThread: Bool) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "cancel", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let log = RecordingLogHandler.Records()
        let recorder = ClickRecorder(store: Self.failing(fixture.store, FaultPlan(), onTheWritingThread: onTheWritingThread), flushInterval: .seconds(60),
                                     batchSize: 10, bufferLimit: 100, logger: log.logger(.trace))
        for index in 0..<3 { recorder.record(Self.click("clk_cancel\(index)", linkID: link.id, appID: fixture.app.id)) }

        // A service group cancels its services when one of them fails: the recorder's last flush still runs.
        let running = Task { try await recorder.run() }
        running.cancel()
        try await running.value
        #expect(recorder.statistics == (pending: 0, recorded: 3, dropped: 0))
        #expect(try await Self.stored(link, in: fixture) == (rows: 3, counted: 3))
        #expect(log.entries(saying: "click batch not written; will retry").isEmpty)
    }

    // MARK: Helpers

    /// The link's clicks as stored: rows, and clicks in its statistics (a batch written twice would count twice there).
    static func stored(_ link: Link, in fixture: Fixture) async throws -> (rows: Int, counted: Int) {
        let today = StatsRollup.day(of: Date())
        let range = StatsRange(fromDay: today - 1, toDay: today + 1)
        let rows = try await fixture.store.statsRows(appID: fixture.app.id, environment: .live, linkID: link.id, range: range)
        return (try await fixture.store.clickCount(linkID: link.id), StatsReport(rows: rows, range: range, linkID: link.id).totals.clicks)
    }

    /// The store over `base` that fails as `faults` says, written on the recorder's thread (as SQLite is) or through
    /// the store's asynchronous path (as PostgreSQL is).
    static func failing(_ base: SQLiteStore, _ faults: FaultPlan, onTheWritingThread: Bool) -> any ClickStore {
        onTheWritingThread ? FailingBlockingClickStore(base: base, faults: faults) : FailingClickStore(base: base, faults: faults)
    }

    /// Waits until `condition` holds, looking every 10 ms for at most a minute (the whole suite shares two cores);
    /// false when it never did.
    static func waitUntil(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }
}

/// The database is away.
struct DatabaseAway: Error {}

/// When a failing store refuses a write: while `down`, for the next `refusals` writes, or after committing half of
/// the batch for the next `halfwayRefusals`; `holdNext` keeps the next write waiting until `release()`.
final class FaultPlan: Sendable {
    struct State {
        var down = false
        var refusals = 0
        var halfwayRefusals = 0
        var holdNext = false
        var held: CheckedContinuation<Void, Never>?
        /// Writes asked for, refused or not.
        var writes = 0
    }

    enum Outcome {
        case write, refuse, writeHalfAndRefuse
    }

    let state = Mutex(State())

    /// What to do with the write asked for now.
    func next() -> Outcome {
        state.withLock { state in
            state.writes += 1
            if state.down { return .refuse }
            if state.refusals > 0 {
                state.refusals -= 1
                return .refuse
            }
            if state.halfwayRefusals > 0 {
                state.halfwayRefusals -= 1
                return .writeHalfAndRefuse
            }
            return .write
        }
    }

    /// Waits for `release()` when the write is to be held.
    func passHold() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state -> Bool in
                guard state.holdNext else { return false }
                state.holdNext = false
                state.held = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    var isHoldingAWrite: Bool { state.withLock { $0.held != nil } }

    func release() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.held = nil }
            return state.held
        }?.resume()
    }
}

/// A click store over real SQLite whose writes fail as its `FaultPlan` says.
protocol FailingClickStoreProtocol: ClickStore {
    var base: SQLiteStore { get }
    var faults: FaultPlan { get }
}

extension FailingClickStoreProtocol {
    func recordClicks(_ clicks: [Click]) async throws {
        await faults.passHold()
        switch faults.next() {
        case .write: try await base.recordClicks(clicks)
        case .refuse: throw DatabaseAway()
        case .writeHalfAndRefuse:
            try await base.recordClicks(Array(clicks.prefix(clicks.count / 2)))
            throw DatabaseAway()
        }
    }

    func clickCount(linkID: String) async throws -> Int { try await base.clickCount(linkID: linkID) }
    func click(id: String) async throws -> Click? { try await base.click(id: id) }
    func prepareClickStorage(now: Date) async throws { try await base.prepareClickStorage(now: now) }
    func expireClicks(before cutoff: Date) async throws -> Int { try await base.expireClicks(before: cutoff) }
    func reclassifyClicks(ids: [String], from: Set<ClickTraffic>, to traffic: ClickTraffic) async throws -> [Click] {
        try await base.reclassifyClicks(ids: ids, from: from, to: traffic)
    }
}

/// Written through the store's asynchronous path, as PostgreSQL is.
struct FailingClickStore: FailingClickStoreProtocol {
    let base: SQLiteStore
    let faults: FaultPlan
}

/// Written on the recorder's own thread, as SQLite is.
struct FailingBlockingClickStore: FailingClickStoreProtocol, BlockingClickWriting {
    let base: SQLiteStore
    let faults: FaultPlan

    func recordClicksBlocking(_ clicks: [Click]) throws {
        switch faults.next() {
        case .write: try base.recordClicksBlocking(clicks)
        case .refuse: throw DatabaseAway()
        case .writeHalfAndRefuse:
            try base.recordClicksBlocking(Array(clicks.prefix(clicks.count / 2)))
            throw DatabaseAway()
        }
    }
}

/// The ids of the clicks the recorder handed on after writing them (where webhooks are queued), in order.
final class WrittenClicks: Sendable {
    private let state = Mutex<[String]>([])
    var ids: [String] { state.withLock { $0 } }
    func add(_ batch: [Click]) { state.withLock { $0 += batch.map(\.id) } }
}

#endif
