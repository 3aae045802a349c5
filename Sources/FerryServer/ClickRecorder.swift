import FerryCore
import FerryStore
import Logging
import ServiceLifecycle
import Synchronization

/// Takes clicks from the edge without waiting and writes them to the store in batches, off the request path.
///
/// The buffer is bounded: when the database falls behind by more than `bufferLimit` clicks, new clicks are dropped
/// and counted rather than growing memory without end. A graceful shutdown writes everything still held.
public final class ClickRecorder: Service, Sendable {
    private struct State {
        var pending: [Click] = []
        /// Ids of the batch being written now.
        var inFlight: Set<String> = []
        var dropped = 0
        var recorded = 0
        var failedFlushes = 0
    }

    private let state = Mutex(State())
    private let store: any ClickStore
    private let flushInterval: Duration
    private let batchSize: Int
    private let bufferLimit: Int
    private let logger: Logger
    private let afterWrite: (@Sendable ([Click]) async -> Void)?

    /// Creates a recorder writing to `store`; `afterWrite` gets each batch once it is stored (webhooks).
    public init(store: any ClickStore, flushInterval: Duration, batchSize: Int, bufferLimit: Int, logger: Logger,
                afterWrite: (@Sendable ([Click]) async -> Void)? = nil) {
        self.afterWrite = afterWrite
        self.store = store
        self.flushInterval = flushInterval
        self.batchSize = max(1, batchSize)
        self.bufferLimit = max(1, bufferLimit)
        self.logger = logger
    }

    /// Hands a click over; returns at once. False when the buffer was full and the click was dropped.
    @discardableResult
    public func record(_ click: Click) -> Bool {
        state.withLock { state in
            guard state.pending.count < bufferLimit else {
                state.dropped += 1
                return false
            }
            state.pending.append(click)
            return true
        }
    }

    /// Whether a click is still waiting to be written, or being written.
    public func isPending(clickID: String) -> Bool {
        state.withLock { $0.inFlight.contains(clickID) || $0.pending.contains { $0.id == clickID } }
    }

    /// Writes a click that is waiting now, and waits (at most `timeout`) while another flush is writing it; true
    /// when it is no longer pending.
    public func waitUntilWritten(clickID: String, timeout: Duration = .seconds(2)) async -> Bool {
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
    public var statistics: (pending: Int, recorded: Int, dropped: Int) {
        state.withLock { ($0.pending.count + $0.inFlight.count, $0.recorded, $0.dropped) }
    }

    /// Writes until the buffer is empty or a write fails.
    public func flush() async {
        while true {
            let batch: [Click] = state.withLock { state in
                let count = min(batchSize, state.pending.count)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                state.inFlight.formUnion(batch.map(\.id))
                return batch
            }
            if batch.isEmpty { return }
            do {
                try await store.recordClicks(batch)
                state.withLock { state in
                    state.recorded += batch.count
                    state.inFlight.subtract(batch.map(\.id))
                }
                await afterWrite?(batch)
            } catch {
                let failures: Int = state.withLock { state in
                    // Put the batch back in front, within the bound; what does not fit is counted as dropped.
                    let room = max(0, bufferLimit - state.pending.count)
                    state.pending.insert(contentsOf: batch.prefix(room), at: 0)
                    state.inFlight.subtract(batch.map(\.id))
                    state.dropped += batch.count - min(room, batch.count)
                    state.failedFlushes += 1
                    return state.failedFlushes
                }
                logger.error("click batch not written; will retry", metadata: ["error": "\(error)", "failures": "\(failures)"])
                return
            }
        }
    }

    /// Runs until shutdown, flushing every `flushInterval`, then flushes what is left.
    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: self.flushInterval)
            }
            await flush()
        }
        await flush()
        let stats = statistics
        logger.info("click recorder stopped", metadata: ["recorded": "\(stats.recorded)", "pending": "\(stats.pending)", "dropped": "\(stats.dropped)"])
    }
}

/// Empties the link cache when the store says links changed elsewhere (the CLI, another process).
public struct CacheRefresher: Service {
    let cache: LinkCache
    let store: any FerryDatabase
    let interval: Duration
    let logger: Logger

    /// Creates a refresher.
    public init(cache: LinkCache, store: any FerryDatabase, interval: Duration, logger: Logger) {
        self.cache = cache
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Drops the cache on each of the store's change notices (PostgreSQL's LISTEN/NOTIFY, when the store has them),
    /// and polls the store's change counter as well, until shutdown.
    public func run() async throws {
        guard let notices = store.changeNotifications() else { return try await poll() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await cancelWhenGracefulShutdown {
                    for await _ in notices { self.cache.removeAll() }
                }
            }
            group.addTask { try? await self.poll() }
        }
    }

    func poll() async throws {
        var seen = try? await store.changeEpoch()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            do {
                let epoch = try await store.changeEpoch()
                if epoch != seen {
                    cache.removeAll()
                    seen = epoch
                }
            } catch {
                logger.warning("cannot read the change counter", metadata: ["error": "\(error)"])
            }
        }
    }
}

/// Purges click signals and client hashes once they are older than their app's attribution window.
public struct AttributionJanitor: Service {
    let store: any FerryDatabase
    let interval: Duration
    let clickRetention: Duration?
    let logger: Logger

    /// Creates a janitor; `clickRetention` nil keeps clicks for ever.
    public init(store: any FerryDatabase, interval: Duration, clickRetention: Duration? = nil, logger: Logger) {
        self.store = store
        self.interval = interval
        self.clickRetention = clickRetention
        self.logger = logger
    }

    /// Purges at start and then every `interval` until shutdown: click signals past their window, clicks past the
    /// retention; and readies the storage of the coming days' clicks.
    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let now = FerryAdmin.wallClock()
            do {
                try await store.prepareClickStorage(now: now)
                let touched = try await store.purgeAttributionSignals(now: now)
                if touched > 0 { logger.info("purged expired click signals", metadata: ["rows": "\(touched)"]) }
                // Who visited is needed only to count a day's distinct visitors; late clicks of yesterday still count.
                _ = try await store.purgeVisitors(beforeDay: StatsRollup.day(of: now) - 1)
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
