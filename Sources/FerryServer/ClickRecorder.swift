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

/// Takes clicks from the edge without waiting and writes them to the store in batches, off the request path.
///
/// The buffer is bounded: when the database falls behind by more than `bufferLimit` clicks, new clicks are dropped
/// and counted rather than growing memory without end. Stopping, gracefully or by cancellation, writes everything
/// still held.
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
    /// Networks whose clicks are email security scanners' (`MailScannerNetworks`, and the operator's own).
    private let scannerNetworks: [IPNetwork]
    private let bursts = Mutex(ScannerBurstDetector())

    /// Creates a recorder writing to `store`; `afterWrite` gets each batch once it is stored (webhooks).
    ///
    /// Clicks recorded with an origin get their address hashes from `addresses` and `hasher` when written.
    /// `writerPriority` is how the writing thread is scheduled against the rest of the process. A person's-looking click
    /// from one of `scannerNetworks`, or in a burst (`ScannerBurstDetector`), is recorded as a scanner's.
    package init(store: any ClickStore, flushInterval: Duration, batchSize: Int, bufferLimit: Int, logger: Logger,
                addresses: ClientAddressResolver = ClientAddressResolver(), hasher: AddressHasher? = nil, writerPriority: ClickWriterPriority = .nice(0),
                scannerNetworks: [IPNetwork] = [], afterWrite: (@Sendable ([Click]) async -> Void)? = nil) {
        self.afterWrite = afterWrite
        self.scannerNetworks = scannerNetworks
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
                let (batch, earlier) = try await write(taken)
                state.withLock { state in
                    state.recorded += batch.count
                    state.inFlight[number] = nil
                }
                await afterWrite?(batch)
                await reclassifyBursts(earlier)
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
    /// calling thread, else through the store's own asynchronous path. Returns the clicks as stored, and the ids of
    /// clicks of earlier batches that the batch shows to be a scanner's.
    private func write(_ taken: [Pending]) async throws -> (clicks: [Click], earlier: [String]) {
        if let blocking = store as? any BlockingClickWriting, let thread = writerThread() {
            do {
                return try await thread.runIfActive { [self] in
                    let resolved = resolve(taken)
                    try blocking.recordClicksBlocking(resolved.clicks)
                    return resolved
                }
            } catch let error as NIOThreadPoolError.ThreadPoolInactive {
                logger.debug("click writer stopped; writing on the caller", metadata: ["error": "\(error)"])
            }
        }
        let resolved = resolve(taken)
        try await store.recordClicks(resolved.clicks)
        return resolved
    }

    /// The clicks of a batch with the keyed hashes of their client addresses, a signed-in person's token apart from
    /// the query (`UserClickToken`), and a scanner's click told from a person's by its network or its burst: work left
    /// off the redirect path. Also returns the ids of clicks of earlier batches that a burst shows to be a scanner's.
    private func resolve(_ taken: [Pending]) -> (clicks: [Click], earlier: [String]) {
        var clicks = taken.map { pending in
            var click = UserClickToken.separated(pending.click)
            if let origin = pending.origin, let hasher {
                let address = addresses.clientAddress(peer: origin.peer, forwardedFor: origin.forwardedFor)
                click.ipHash = address.map(hasher.hash)
                click.networkHash = address.map(hasher.hashNetwork)
                if click.traffic == .person, let address, scannerNetworks.contains(where: { $0.contains(address) }) {
                    click.traffic = .scanner
                }
            }
            return click
        }
        var earlier: [String] = []
        bursts.withLock { detector in
            var position: [String: Int] = [:]
            for index in clicks.indices {
                position[clicks[index].id] = index
                let verdict = detector.observe(clicks[index])
                guard verdict.isScanner else { continue }
                clicks[index].traffic = .scanner
                for id in verdict.earlier {
                    if let inBatch = position[id] { clicks[inBatch].traffic = .scanner } else { earlier.append(id) }
                }
            }
        }
        return (clicks, earlier)
    }

    /// Takes clicks already stored as people's, which a later click showed to be a scanner's burst, out of the
    /// people's figures. A failure is logged: the clicks stay counted as people's.
    private func reclassifyBursts(_ ids: [String]) async {
        guard !ids.isEmpty else { return }
        do {
            _ = try await store.reclassifyClicks(ids: ids, from: [.person], to: .scanner)
        } catch {
            logger.error("scanner clicks not reclassified", metadata: ["clicks": "\(ids.count)", "error": "\(error)"])
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

    /// Runs until shutdown, flushing every `flushInterval`, then flushes what is left, also when it is cancelled
    /// rather than shut down gracefully (as a service group does to every service when one of them fails).
    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: self.flushInterval)
            }
            if Task.isCancelled { break }
            await flush()
        }
        // Not in this task: once it is cancelled, the writing thread and the stores refuse to start a write, and
        // what the recorder holds would be lost.
        await Task { await self.flush() }.value
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
#endif
