#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FerryStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Where a click came from, as its connection told it. The client's address, and the keyed hashes that are all the
/// database keeps of it, are worked out when the click is written, not while its visitor waits for the redirect.
package struct ClickOrigin: Sendable {
    /// The socket peer: its address as text, or the socket address itself (made text only when the click is written).
    enum Peer: Sendable {
        case text(String?)
        case socket(SocketAddress?)
    }

    let peerAddress: Peer
    /// Every `X-Forwarded-For` field, in order.
    package var forwardedFor: [String]

    /// Creates an origin from the socket peer's address text.
    package init(peer: String?, forwardedFor: [String]) {
        self.init(peer: .text(peer), forwardedFor: forwardedFor)
    }

    init(peer: Peer, forwardedFor: [String]) {
        self.peerAddress = peer
        self.forwardedFor = forwardedFor
    }

    /// The socket peer's address.
    package var peer: String? {
        switch peerAddress {
        case .text(let text): text
        case .socket(let address): address?.ipAddress
        }
    }
}

/// Takes clicks from the edge without waiting and writes them to the store in batches, off the request path.
///
/// The buffer is bounded: when the database falls behind by more than `bufferLimit` clicks, new clicks are dropped
/// and counted rather than growing memory without end. A graceful shutdown writes everything still held.
///
/// On a store that writes on the calling thread (SQLite), batches are written on a thread of the recorder's own
/// whose scheduling priority is lowered by `writerPriority`: when the processor is saturated, answering clicks comes
/// before recording them (the buffer then fills and the excess is counted as dropped), and whenever the processor
/// has time to spare the writer gets all of it.
package final class ClickRecorder: Service, Sendable {
    private struct Pending {
        var click: Click
        var origin: ClickOrigin?
    }

    /// Everything under the lock is constant time per click, or a move of one batch: the edge's event loops take this
    /// lock for every click they hand over, and must not wait behind a copy of the whole buffer.
    private struct State {
        var pending = CircularBuffer<Pending>()
        /// The batches being written now, by number (usually one).
        var inFlight: [Int: [Pending]] = [:]
        var batches = 0
        var dropped = 0
        var recorded = 0
        var failedFlushes = 0
        /// The writing thread, made when first needed.
        var writerThread: NIOThreadPool?
        var stopped = false
    }

    private let state = Mutex(State())
    private let store: any ClickStore
    private let flushInterval: Duration
    private let batchSize: Int
    private let bufferLimit: Int
    private let logger: Logger
    private let addresses: ClientAddressResolver
    private let hasher: AddressHasher?
    private let writerPriority: ClickWriterPriority
    private let afterWrite: (@Sendable ([Click]) async -> Void)?

    /// Creates a recorder writing to `store`; `afterWrite` gets each batch once it is stored (webhooks).
    ///
    /// Clicks recorded with an origin get their address hashes from `addresses` and `hasher` when written.
    /// `writerPriority` is how the writing thread is scheduled against the rest of the process.
    package init(store: any ClickStore, flushInterval: Duration, batchSize: Int, bufferLimit: Int, logger: Logger,
                addresses: ClientAddressResolver = ClientAddressResolver(), hasher: AddressHasher? = nil, writerPriority: ClickWriterPriority = .nice(0),
                afterWrite: (@Sendable ([Click]) async -> Void)? = nil) {
        self.afterWrite = afterWrite
        self.store = store
        self.flushInterval = flushInterval
        self.batchSize = max(1, batchSize)
        self.bufferLimit = max(1, bufferLimit)
        self.logger = logger
        self.addresses = addresses
        self.hasher = hasher
        self.writerPriority = writerPriority
    }

    /// Hands a click over; returns at once. False when the buffer was full and the click was dropped. With an
    /// `origin`, the click's address hashes are filled in when it is written.
    @discardableResult
    package func record(_ click: Click, origin: ClickOrigin? = nil) -> Bool {
        state.withLock { state in
            guard state.pending.count < bufferLimit else {
                state.dropped += 1
                return false
            }
            state.pending.append(Pending(click: click, origin: origin))
            return true
        }
    }

    /// Whether a click is still waiting to be written, or being written.
    package func isPending(clickID: String) -> Bool {
        state.withLock { state in
            state.inFlight.values.contains { $0.contains { $0.click.id == clickID } } || state.pending.contains { $0.click.id == clickID }
        }
    }

    /// Writes a click that is waiting now, and waits (at most `timeout`) while another flush is writing it; true
    /// when it is no longer pending.
    package func waitUntilWritten(clickID: String, timeout: Duration = .seconds(2)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isPending(clickID: clickID) {
            await flush()
            guard isPending(clickID: clickID) else { return true }
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Counters: clicks not written yet (waiting, or in the batch being written), written, and dropped since start.
    package var statistics: (pending: Int, recorded: Int, dropped: Int) {
        state.withLock { ($0.pending.count + $0.inFlight.values.reduce(0) { $0 + $1.count }, $0.recorded, $0.dropped) }
    }

    /// Writes until the buffer is empty or a write fails.
    package func flush() async {
        while true {
            let (number, taken): (Int, [Pending]) = state.withLock { state in
                let count = min(batchSize, state.pending.count)
                guard count > 0 else { return (0, []) }
                var batch: [Pending] = []
                batch.reserveCapacity(count)
                for _ in 0..<count { batch.append(state.pending.removeFirst()) }
                state.batches += 1
                state.inFlight[state.batches] = batch
                return (state.batches, batch)
            }
            if taken.isEmpty { return }
            do {
                let batch = try await write(taken)
                state.withLock { state in
                    state.recorded += batch.count
                    state.inFlight[number] = nil
                }
                await afterWrite?(batch)
            } catch {
                let failures: Int = state.withLock { state in
                    // Put the batch back in front, within the bound; what does not fit is counted as dropped.
                    let room = max(0, bufferLimit - state.pending.count)
                    for pending in taken.prefix(room).reversed() { state.pending.prepend(pending) }
                    state.inFlight[number] = nil
                    state.dropped += taken.count - min(room, taken.count)
                    state.failedFlushes += 1
                    return state.failedFlushes
                }
                logger.error("click batch not written; will retry", metadata: ["error": "\(error)", "failures": "\(failures)"])
                return
            }
        }
    }

    /// Fills in the address hashes of a batch and stores it: on the writing thread when the store writes on the
    /// calling thread, else through the store's own asynchronous path. Returns the clicks as stored.
    private func write(_ taken: [Pending]) async throws -> [Click] {
        if let blocking = store as? any BlockingClickWriting, let thread = writerThread() {
            do {
                return try await thread.runIfActive { [self] in
                    let batch = resolve(taken)
                    try blocking.recordClicksBlocking(batch)
                    return batch
                }
            } catch let error as NIOThreadPoolError.ThreadPoolInactive {
                logger.debug("click writer stopped; writing on the caller", metadata: ["error": "\(error)"])
            }
        }
        let batch = resolve(taken)
        try await store.recordClicks(batch)
        return batch
    }

    /// The clicks of a batch with the keyed hashes of their client addresses.
    private func resolve(_ taken: [Pending]) -> [Click] {
        taken.map { pending in
            var click = pending.click
            if let origin = pending.origin, let hasher {
                let address = addresses.clientAddress(peer: origin.peer, forwardedFor: origin.forwardedFor)
                click.ipHash = address.map(hasher.hash)
                click.networkHash = address.map(hasher.hashNetwork)
            }
            return click
        }
    }

    /// The writing thread, started (with its priority lowered) on first use; nil once the recorder has stopped.
    private func writerThread() -> NIOThreadPool? {
        let (thread, isNew): (NIOThreadPool?, Bool) = state.withLock { state in
            if state.stopped { return (nil, false) }
            if let thread = state.writerThread { return (thread, false) }
            let thread = NIOThreadPool(numberOfThreads: 1)
            thread.start()
            state.writerThread = thread
            return (thread, true)
        }
        if isNew, let thread, writerPriority != .nice(0) {
            let priority = writerPriority
            let logger = logger
            // Linux schedules each thread on its own: this lowers the writing thread's priority only.
            thread.submit { _ in
                if !priority.applyToCurrentThread() {
                    logger.warning("cannot lower the click writer's priority", metadata: ["errno": "\(errno)"])
                }
            }
        }
        return thread
    }

    /// The nice value and scheduling policy of the thread that writes batches (nil when the store writes through its
    /// own path), as the system reports them.
    func writerThreadScheduling() async throws -> (nice: Int32, policy: Int32)? {
        guard store is any BlockingClickWriting, let thread = writerThread() else { return nil }
        return try await thread.runIfActive {
            errno = 0
            #if os(Linux)
            return (getpriority(PRIO_PROCESS_WHO, 0), sched_getscheduler(0))
            #else
            return (getpriority(PRIO_PROCESS_WHO, 0), 0)
            #endif
        }
    }

    /// Runs until shutdown, flushing every `flushInterval`, then flushes what is left.
    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: self.flushInterval)
            }
            await flush()
        }
        await flush()
        let thread: NIOThreadPool? = state.withLock { state in
            state.stopped = true
            defer { state.writerThread = nil }
            return state.writerThread
        }
        try? await thread?.shutdownGracefully()
        let stats = statistics
        logger.info("click recorder stopped", metadata: ["recorded": "\(stats.recorded)", "pending": "\(stats.pending)", "dropped": "\(stats.dropped)"])
    }
}

/// How the thread that writes clicks is scheduled against the threads that answer them.
package enum ClickWriterPriority: Sendable, Equatable {
    /// Runs only when the processor would otherwise be idle (Linux's `SCHED_IDLE`): a thread answering a click takes
    /// the processor from it the moment it wakes. Elsewhere, the lowest nice value.
    case idle
    /// Runs at this nice value above the process's (0…19): a share of the processor under load, shrinking with it.
    case nice(Int32)

    /// Parses `idle` or a nice value from 0 to 19.
    package init?(_ text: String) {
        if text.lowercased() == "idle" { self = .idle; return }
        guard let value = Int32(text), (0...19).contains(value) else { return nil }
        self = .nice(value)
    }

    /// Applies this priority to the calling thread; false (with `errno` set) when the system refuses.
    func applyToCurrentThread() -> Bool {
        switch self {
        case .nice(let value):
            return setpriority(PRIO_PROCESS_WHO, 0, min(19, max(0, value))) == 0
        case .idle:
            #if os(Linux)
            var parameters = sched_param()
            parameters.sched_priority = 0
            return sched_setscheduler(0, linuxSchedIdle, &parameters) == 0
            #else
            return setpriority(PRIO_PROCESS_WHO, 0, 19) == 0
            #endif
        }
    }
}

#if os(Linux)
/// Linux's `SCHED_IDLE` policy, which the C library declares only for GNU sources.
let linuxSchedIdle: Int32 = 5
#endif

#if canImport(Glibc)
/// `setpriority`'s `which` for a process (a thread, on Linux), as the C library spells its type.
private let PRIO_PROCESS_WHO = __priority_which_t(PRIO_PROCESS.rawValue)
#else
private let PRIO_PROCESS_WHO = PRIO_PROCESS
#endif

/// Keeps the link cache in step with the store when links, apps, domains or keys change elsewhere (the CLI, another
/// node): a changed link is forgotten by itself, read from the log of link changes; a change to an app, a domain or
/// a key empties the cache. It looks every `interval`, and at once on each of the store's change notices
/// (PostgreSQL's LISTEN/NOTIFY, when the store has them).
package struct CacheRefresher: Service {
    let cache: LinkCache
    let store: any FerryDatabase
    let interval: Duration
    let logger: Logger

    /// Creates a refresher.
    package init(cache: LinkCache, store: any FerryDatabase, interval: Duration, logger: Logger) {
        self.cache = cache
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Where the refresher stands: the counter of app, domain and key changes and the mark in the log of link
    /// changes it last read, and when it last read them.
    struct Position {
        var epoch: Int64?
        var mark: Int64?
        var lastRead: ContinuousClock.Instant?
    }

    /// Looks every `interval` and on each change notice, until shutdown.
    package func run() async throws {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            if let notices = store.changeNotifications() {
                group.addTask {
                    await cancelWhenGracefulShutdown { for await _ in notices { wake.yield() } }
                }
            }
            group.addTask {
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                    wake.yield()
                }
                wake.finish()
            }
            group.addTask {
                var position = Position()
                await self.look(&position)
                for await _ in wakes { await self.look(&position) }
            }
            await group.waitForAll()
        }
    }

    /// Reads what changed since `position` and makes the cache forget it.
    func look(_ position: inout Position) async {
        do {
            let epoch = try await store.changeEpoch()
            let now = ContinuousClock.now
            // A refresher that could not read the log for longer than the log is kept may have missed entries.
            let outOfReach = position.lastRead.map { now - $0 > .seconds(LinkChanges.retention / 2) } ?? false
            if position.epoch != nil && (position.epoch != epoch || outOfReach) {
                cache.removeAll()
                position.mark = nil
            }
            position.epoch = epoch
            let changes = try await store.linkChanges(since: position.mark)
            if let places = changes.places {
                for place in places { cache.invalidate(domain: place.domain, slug: place.slug) }
            } else {
                cache.removeAll()
            }
            position.mark = changes.mark
            position.lastRead = now
        } catch {
            logger.warning("cannot read what changed", metadata: ["error": "\(error)"])
        }
    }
}

/// Purges click signals and client hashes once they are older than their app's attribution window.
package struct AttributionJanitor: Service {
    let store: any FerryDatabase
    let interval: Duration
    let clickRetention: Duration?
    let logger: Logger

    /// Creates a janitor; `clickRetention` nil keeps clicks for ever.
    package init(store: any FerryDatabase, interval: Duration, clickRetention: Duration? = nil, logger: Logger) {
        self.store = store
        self.interval = interval
        self.clickRetention = clickRetention
        self.logger = logger
    }

    /// Purges at start and then every `interval` until shutdown: click signals past their window, clicks past the
    /// retention; and readies the storage of the coming days' clicks.
    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let now = FerryAdmin.wallClock()
            do {
                try await store.prepareClickStorage(now: now)
                let touched = try await store.purgeAttributionSignals(now: now)
                if touched > 0 { logger.info("purged expired click signals", metadata: ["rows": "\(touched)"]) }
                // Who visited is needed only to count a day's distinct visitors; late clicks of yesterday still count.
                _ = try await store.purgeVisitors(beforeDay: StatsRollup.day(of: now) - 1)
                _ = try await store.pruneLinkChanges(before: now.addingTimeInterval(-LinkChanges.retention))
                if let clickRetention {
                    let seconds = Double(clickRetention.components.seconds)
                    let expired = try await store.expireClicks(before: now.addingTimeInterval(-seconds))
                    if expired > 0 { logger.info("expired old clicks", metadata: ["rows": "\(expired)"]) }
                }
            } catch {
                logger.warning("cannot purge click signals", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }
}
#endif
