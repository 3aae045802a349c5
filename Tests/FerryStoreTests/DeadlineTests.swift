#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryStore
import FerryTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// An operation's deadline, and a PostgreSQL server that stops answering in the middle of a connection.
@Suite("Deadlines", .takesTurns)
struct DeadlineTests {
    struct Late: Error {}

    @Test func anOperationInTimeGivesItsValue() async throws {
        #expect(try await withDeadline(.seconds(30), timeoutError: { Late() }) { 42 } == 42)
        await #expect(throws: CancellationError.self, "the operation's own error comes out as itself") {
            try await withDeadline(.seconds(30), timeoutError: { Late() }) { throw CancellationError() }
        }
    }

    @Test func aLateOperationIsAbandonedAndCancelled() async throws {
        let cancelled = Flag()
        await #expect(throws: Late.self) {
            // Never ends by itself, and ignores cancellation: only the deadline can answer the caller.
            try await withDeadline(.milliseconds(200), timeoutError: { Late() }) {
                await withTaskCancellationHandler {
                    await Never.waitForever()
                } onCancel: {
                    cancelled.set()
                }
            }
        }
        #expect(cancelled.value, "the abandoned operation is told")
    }

    @Test(.timeLimit(.minutes(10))) func cancellingTheCallerCancelsTheOperation() async throws {
        let started = Flag()
        let caller = Task {
            try await withDeadline(.seconds(600), timeoutError: { Late() }) {
                started.set()
                try await Task.sleep(for: .seconds(600))
            }
        }
        while !started.value { try await Task.sleep(for: .milliseconds(5)) }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
    }

    /// One probe left without an answer on a busy machine does not turn every operation away; two in a row do, and
    /// a refused connection does at once. A probe that started before a later report says nothing.
    @Test func aSlowProbeIsNotAnOutageButTwoInARowAre() {
        var health = PostgresStore.Health()
        let first = health.ticket()
        health.reportSilence(ticket: first)
        #expect(!health.away, "one probe without an answer in time")
        health.report(away: false, ticket: health.ticket())
        health.reportSilence(ticket: health.ticket())
        #expect(!health.away, "an answer in between starts the count again")
        health.reportSilence(ticket: health.ticket())
        #expect(health.away, "two in a row")
        health.report(away: false, ticket: health.ticket())
        #expect(!health.away)

        let stale = health.ticket()
        health.report(away: true, ticket: health.ticket())
        #expect(health.away, "a refused connection counts at once")
        health.reportSilence(ticket: stale)
        health.report(away: false, ticket: stale)
        #expect(health.away, "reports older than the last one are ignored")
    }

    /// A proxy in front of the test database, and the URL of a schema of its own reached through it.
    static func proxiedDatabase() throws -> (proxy: FreezingProxy, url: String) {
        let base = try #require(ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"])
        let upstream = try #require(URLComponents(string: base))
        let proxy = try FreezingProxy(host: try #require(upstream.host), port: try #require(upstream.port))
        var proxied = upstream
        proxied.port = proxy.port
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        guard let url = proxied.string else {
            proxy.stop()
            throw URLError(.badURL)
        }
        return (proxy, url + (base.contains("?") ? "&" : "?") + "search_path=" + schema)
    }

    /// Through a proxy: a server that stops answering is taken for away at the second silent probe, not the first;
    /// one that refuses connections at the first of the store's own probes, which connects once to tell the two
    /// apart (a readiness check, which someone waits for, does not).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"].map { !$0.isEmpty } ?? false, "needs FERRY_TEST_POSTGRES_URL"),
          .timeLimit(.minutes(10)))
    func theStoresProbeTellsARefusingServerFromASlowOne() async throws {
        let (proxy, url) = try Self.proxiedDatabase()
        defer { proxy.stop() }
        // No probe of its own in the background: the test makes each one.
        let store = try await PostgresStore(url: url, probeInterval: .seconds(3_600))
        try await store.createApp(makeApp())

        proxy.freeze()
        await #expect(throws: PostgresUnavailable.self) { try await store.probe(askingWhySilent: true) }
        #expect(!store.isAway, "one silent probe: slow, perhaps")
        await #expect(throws: PostgresUnavailable.self) { try await store.probe(askingWhySilent: true) }
        #expect(store.isAway, "two in a row")
        proxy.thaw()
        try await store.probe(askingWhySilent: true)
        #expect(!store.isAway)

        proxy.stop()
        // The pool's connections end (a query caught on one fails, and marks the server away at once); wait until a
        // query waits for a new connection instead, then forget what the lost ones said, as when the pool notices
        // them closing before any query does.
        var silent = false
        for _ in 0..<20 where !silent {
            do { try await store.checkHealth() } catch { silent = error is PostgresUnavailable }
        }
        #expect(silent)
        store.health.withLock { $0.report(away: false, ticket: $0.ticket()) }
        await #expect(throws: PostgresUnavailable.self) { try await store.checkHealth() }
        #expect(!store.isAway, "a readiness check does not ask why")
        store.health.withLock { $0.report(away: false, ticket: $0.ticket()) }
        await #expect(throws: PostgresUnavailable.self) { try await store.probe(askingWhySilent: true) }
        #expect(store.isAway, "refused: away at the first of the store's own probes")
        try await store.close()
    }

    /// A statement sent on a connection whose server then stops answering (the network dropping packets, say,
    /// without closing anything) fails after the store's deadline instead of holding its caller for ever; the
    /// store notes the server away, and answers again once the server does.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"].map { !$0.isEmpty } ?? false, "needs FERRY_TEST_POSTGRES_URL"),
          .timeLimit(.minutes(10)))
    func aServerThatStopsAnsweringFailsTheOperationAtItsDeadline() async throws {
        let (proxy, url) = try Self.proxiedDatabase()
        defer { proxy.stop() }
        let store = try await PostgresStore(url: url, operationDeadline: .seconds(2))
        try await store.createApp(makeApp())
        #expect(try await store.app(id: "app_1")?.name == "Example")

        proxy.freeze()
        // The caller's answer must come while the server is still silent: only the deadline can give it. (The test's
        // own, longer limit turns a regression into a failure rather than a hang.)
        let outcome = try await withDeadline(.seconds(30), timeoutError: { Late() }) { () -> String in
            do {
                _ = try await store.app(id: "app_1")
                return "answered"
            } catch {
                return store.isOutage(error) ? "outage" : "other: \(error)"
            }
        }
        #expect(outcome == "outage")
        #expect(proxy.isFrozen, "the answer came from the deadline, not from the server")
        #expect(store.isAway)

        proxy.thaw()
        var answered = false
        for _ in 0..<100 where !answered {
            answered = (try? await store.app(id: "app_1"))?.name == "Example"
            if !answered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(answered, "the store answers again once the server does")
        try await store.close()
    }
}

/// Change notices of installs that share a database in separate schemas.
@Suite("PostgreSQL listeners", .takesTurns)
struct ListenerTests {
    static let base = ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static func url(_ base: String) -> String {
        base + (base.contains("?") ? "&" : "?") + "search_path=l_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Cutting the listeners of one install (what an operator or a test does to check that nodes recover) leaves
    /// those of another schema listening.
    // The limit turns a stream that never listens into a failure rather than a hang; it is generous because the
    // limit counts from the test's start, and a full parallel test run on two cores can keep a test waiting minutes.
    @Test(.enabled(if: base != nil, "needs FERRY_TEST_POSTGRES_URL"), .timeLimit(.minutes(10)))
    func cuttingListenersLeavesOtherSchemasAlone() async throws {
        let base = try #require(Self.base)
        let first = try await PostgresStore(url: Self.url(base)), second = try await PostgresStore(url: Self.url(base))
        #expect(first.applicationName.hasPrefix("ferry/l_") && first.applicationName != second.applicationName)
        var firstNotices = try #require(first.changeNotifications()).makeAsyncIterator()
        var secondNotices = try #require(second.changeNotifications()).makeAsyncIterator()
        // Each stream yields once it listens.
        _ = await firstNotices.next()
        _ = await secondNotices.next()
        func listening(_ store: PostgresStore) async throws -> Int {
            try await store.all("""
                SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = \(store.applicationName) AND query ILIKE \("LISTEN%")
                """) { try $0["n"].decode(Int.self) }.first ?? 0
        }
        #expect(try await listening(second) == 1)
        #expect(try await first.terminateListeners() == 1)
        #expect(try await listening(second) == 1, "the other install still listens")
        try await first.close()
        try await second.close()
    }
}

/// A boolean set from any task.
final class Flag: Sendable {
    private let state = Mutex(false)
    func set() { state.withLock { $0 = true } }
    var value: Bool { state.withLock { $0 } }
}

extension Never {
    /// Suspends for good (a continuation nobody resumes).
    static func waitForever() async {
        let parked = Mutex<[CheckedContinuation<Void, Never>]>([])
        await withCheckedContinuation { continuation in parked.withLock { $0.append(continuation) } }
    }
}

/// A TCP proxy on 127.0.0.1 that can stop passing bytes in both directions while keeping every connection open, as
/// a network that drops packets does, and pass them again.
final class FreezingProxy: @unchecked Sendable {
    // @unchecked: `frozen`, `stopped` and `sockets` are only touched under `lock`.
    let port: Int
    private let listener: Int32
    private let upstreamHost: String
    private let upstreamPort: Int
    private let lock = NSCondition()
    private var frozen = false
    private var stopped = false
    private var sockets: [Int32] = []

    init(host: String, port: Int) throws {
        upstreamHost = host
        upstreamPort = port
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 16) == 0 else { throw Failure(reason: "cannot listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    struct Failure: Error { var reason: String }

    var isFrozen: Bool { lock.withLock { frozen } }

    /// Stops passing bytes; what arrives meanwhile waits.
    func freeze() { lock.withLock { frozen = true } }

    /// Passes bytes again, those that waited first.
    func thaw() {
        lock.withLock {
            frozen = false
            lock.broadcast()
        }
    }

    /// Ends every connection and stops accepting. (Descriptors are shut down but not closed: a thread still using
    /// one must not reach a descriptor the test process has given to something else meanwhile.)
    func stop() {
        let open = lock.withLock { () -> [Int32] in
            stopped = true
            frozen = false
            lock.broadcast()
            return sockets
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for socket in open { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr(upstreamHost == "localhost" ? "127.0.0.1" : upstreamHost)
            address.sin_port = UInt16(upstreamPort).bigEndian
            let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard connected == 0 else { close(client); close(server); continue }
            let accepted = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                sockets += [client, server]
                return true
            }
            guard accepted else { close(client); close(server); return }
            Thread { [self] in pump(from: client, to: server) }.start()
            Thread { [self] in pump(from: server, to: client) }.start()
        }
    }

    /// Copies bytes one way, holding each read while the proxy is frozen; ends both ways when either side closes.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let go = lock.withLock { () -> Bool in
                while frozen && !stopped { lock.wait() }
                return !stopped
            }
            guard go else { break }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { break }
                sent += written
            }
            guard sent == count else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }
}
#endif
