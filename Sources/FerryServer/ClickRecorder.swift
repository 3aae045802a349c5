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
/// With a journal (`ClickJournal`), every click is appended to it within `journalInterval` of being answered, on a
/// thread of its own at the process's priority, and the database is written from the journal: a database that falls
/// behind (a spike the writer cannot keep up with, an outage) leaves the clicks on disk, and they are written when it
/// catches up, after a restart too. Only a full journal (its limit, or its disk nearly full) drops clicks, counted, with
/// an error logged. No copy of a click is kept in memory: the writer reads every batch back from the journal (from the
/// page cache under normal load), and `isPending` sees the latest `bufferLimit` clicks appended by their ids' hashes.
///
/// Without a journal the clicks wait in memory: past `bufferLimit` clicks, new clicks are dropped and counted rather
/// than growing memory without end.
///
/// Either way, stopping writes what it can: everything without a journal; with one, what the database takes within
/// `stopWriteLimit` (the rest is written at the next start).
///
/// On a store that writes on the calling thread (SQLite), batches are written on a thread of the recorder's own
/// whose scheduling priority is lowered by `writerPriority`: when the processor is saturated, answering clicks comes
/// before storing them, and whenever the processor has time to spare the writer gets all of it.
package final class ClickRecorder: Service, Sendable {
    private struct Pending {
        var click: Click
        var origin: ClickOrigin?
    }

    /// A click with its address's keyed hashes worked out, as 128 bits: the writer makes them the texts the database
    /// keeps (`stored`), off the edge's processor time.
    private struct Resolved {
        var click: Click
        var ipDigest: AddressDigest?
        var networkDigest: AddressDigest?

        /// The click as the database keeps it.
        var stored: Click {
            var click = click
            if let ipDigest { click.ipHash = ipDigest.hex }
            if let networkDigest { click.networkHash = networkDigest.hex }
            return click
        }
    }

    /// Without a journal, a click held in memory for the database, with its place in the order of clicks taken.
    private struct Held {
        var resolved: Resolved
        var end: JournalPosition
        var click: Click { resolved.click }
    }

    /// A click appended to the journal and not yet stored, as `isPending` looks for it: its id's hash value, and where
    /// its record ends.
    private struct Unstored {
        var id: Int
        var end: JournalPosition
    }

    /// What the next write takes.
    private enum Batch {
        case held([Held])
        case journal(from: JournalPosition)
    }

    /// With a journal, a click the edge handed over as bytes: its record's payload in `Intake.bytes` from `start` to
    /// `end`, but for its address hashes, which go at `middle`, and its traffic, which goes last (the appender works
    /// them out from `address`). A `complete` payload has both already.
    private struct Encoded {
        var start: Int
        var middle: Int
        var end: Int
        var address: IPAddress?
        var traffic: ClickTraffic
        var complete: Bool
    }

    /// The clicks the edge handed over and the appender has not taken, under a lock of their own: the edge's event
    /// loops take it for every click, and nothing else happens under it but the appender's swap of the buffers.
    ///
    /// With a journal, the edge encodes each click here (`bytes`, `encoded`), so that what the appender takes holds no
    /// reference to anything: a click's texts are shared with the edge's threads (the link's and app's ids, the
    /// connection's user agent), and each copy or release of them on the appender's thread is an atomic operation on
    /// memory those threads use. Without one, the clicks themselves wait (`pending`).
    private struct Intake {
        var pending: [Pending] = []
        var bytes: [UInt8] = []
        var encoded: [Encoded] = []
        /// The clicks' ids' hash values, in the order they came.
        var ids: [Int] = []
        var dropped = 0
        var count: Int { ids.count }

        /// Exchanges the clicks with `other`'s (not the count of those dropped).
        mutating func swapClicks(with other: inout Intake) {
            swap(&pending, &other.pending)
            swap(&bytes, &other.bytes)
            swap(&encoded, &other.encoded)
            swap(&ids, &other.ids)
        }
    }

    /// An intake and its lock. With a journal, each thread that hands clicks over (the edge's event loops) gets one of
    /// its own, so that two loops never wait for each other while one encodes a click; without one, there is one.
    private final class IntakeShard: Sendable {
        let intake = Mutex(Intake())
    }

    /// A number of a thread that hands clicks over, given in turn: with a journal, its intake is the one of that number.
    private final class ThreadNumber: Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    /// The rest; when both locks are taken, this one is taken first.
    private struct State {
        /// The id hash values of the clicks taken and being resolved and appended now.
        var appending: [Int] = []
        /// Without a journal, the clicks taken and not yet stored, in order.
        var held = CircularBuffer<Held>()
        /// With one, the latest `bufferLimit` clicks appended and not yet stored, in order.
        var unstored = CircularBuffer<Unstored>()
        /// The clicks being stored now.
        var writing: [Click] = []
        /// Everything before this is stored.
        var stored = JournalPosition(segment: 0, offset: 0)
        /// Everything before this is appended (or held).
        var appended = JournalPosition(segment: 0, offset: 0)
        var isAppending = false
        var isWriting = false
        var recorded = 0
        var failedFlushes = 0
        /// Whether the journal refused the last clicks it was given (it is full).
        var journalFull = false
        /// The writing thread, and the thread that appends to the journal (at the process's own priority), each made
        /// when first needed.
        var writerThread: NIOThreadPool?
        var journalThread: NIOThreadPool?
        var stopped = false
    }

    private let state: Mutex<State>
    private let shards: [IntakeShard]
    /// One thread-specific key for every recorder of the process (their number is bounded).
    private static let threadNumber = ThreadSpecificVariable<ThreadNumber>()
    private static let nextThreadNumber = Atomic<Int>(0)
    /// Without a journal, the clicks taken and not yet stored, which count against `bufferLimit` with those pending.
    private let holding = Atomic<Int>(0)
    private let store: any ClickStore
    private let journal: ClickJournal?
    private let flushInterval: Duration
    private let journalInterval: Duration
    private let stopWriteLimit: Duration
    private let batchSize: Int
    private let bufferLimit: Int
    private let logger: Logger
    private let addresses: ClientAddressResolver
    private let hasher: AddressHasher?
    /// The appender's: one batch at a time takes it.
    private let networkDigests = Mutex(NetworkDigestCache())
    private let writerPriority: ClickWriterPriority
    private let afterWrite: (@Sendable ([Click]) async -> Void)?
    /// Where each batch's lag and write time go.
    private let metrics: ServerMetrics?
    /// Networks whose clicks are email security scanners' (`MailScannerNetworks`, and the operator's own).
    private let scannerNetworks: [IPNetwork]
    private let bursts = Mutex(ScannerBurstDetector())

    /// Creates a recorder writing to `store`, through `journal` when there is one; `afterWrite` gets each batch once it
    /// is stored (webhooks).
    ///
    /// Clicks recorded with an origin get their address hashes from `addresses` and `hasher` before they are
    /// appended. `writerPriority` is how the writing thread is scheduled against the rest of the process. A
    /// person's-looking click from one of `scannerNetworks`, or in a burst (`ScannerBurstDetector`), is recorded as a
    /// scanner's.
    package init(store: any ClickStore, journal: ClickJournal? = nil, flushInterval: Duration, journalInterval: Duration = .milliseconds(50),
                stopWriteLimit: Duration = .seconds(10), batchSize: Int, bufferLimit: Int, logger: Logger,
                addresses: ClientAddressResolver = ClientAddressResolver(), hasher: AddressHasher? = nil, writerPriority: ClickWriterPriority = .nice(0),
                scannerNetworks: [IPNetwork] = [], metrics: ServerMetrics? = nil, afterWrite: (@Sendable ([Click]) async -> Void)? = nil) {
        self.afterWrite = afterWrite
        self.metrics = metrics
        self.scannerNetworks = scannerNetworks
        self.store = store
        self.journal = journal
        self.flushInterval = flushInterval
        self.journalInterval = journalInterval
        self.stopWriteLimit = stopWriteLimit
        self.batchSize = max(1, batchSize)
        self.bufferLimit = max(1, bufferLimit)
        self.logger = logger
        self.addresses = addresses
        self.hasher = hasher
        self.writerPriority = writerPriority
        shards = (0..<(journal == nil ? 1 : 8)).map { _ in IntakeShard() }
        var initial = State()
        if let journal {
            // What an earlier run appended and the database did not store is read back from the journal.
            let (end, checkpoint) = journal.positions
            initial.stored = checkpoint
            initial.appended = end
        }
        state = Mutex(initial)
    }

    /// The calling thread's intake.
    private var ownShard: IntakeShard {
        guard shards.count > 1 else { return shards[0] }
        if let number = Self.threadNumber.currentValue { return shards[number.value % shards.count] }
        let number = Self.nextThreadNumber.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max
        Self.threadNumber.currentValue = ThreadNumber(number)
        return shards[number % shards.count]
    }

    /// Hands a click over; returns at once. False when the click was dropped: without a journal, when the buffer was
    /// full; with one, when the clicks not yet appended fill the calling thread's buffer (the journal's disk has
    /// stalled). With an `origin`, the click's address hashes are filled in before it is appended.
    @discardableResult
    package func record(_ click: Click, origin: ClickOrigin? = nil) -> Bool {
        let id = click.id.hashValue
        guard journal != nil else {
            let holding = holding.load(ordering: .relaxed)
            return shards[0].intake.withLock { intake in
                guard intake.count + holding < bufferLimit else {
                    intake.dropped += 1
                    return false
                }
                intake.pending.append(Pending(click: click, origin: origin))
                intake.ids.append(id)
                return true
            }
        }
        let click = UserClickToken.token(inQuery: click.query) == nil ? click : UserClickToken.separated(click)
        // The client's address is told here, from the connection's texts; its keyed hashes are the appender's.
        let address: IPAddress?? = hasher == nil ? nil : origin.map { $0.clientAddress(using: addresses) }
        return ownShard.intake.withLock { intake in
            guard intake.count < bufferLimit else {
                intake.dropped += 1
                return false
            }
            let start = intake.bytes.count
            if let address {
                ClickRecordCoding.encodeHead(click, into: &intake.bytes)
                let middle = intake.bytes.count
                ClickRecordCoding.encodeTail(click, into: &intake.bytes)
                intake.encoded.append(Encoded(start: start, middle: middle, end: intake.bytes.count, address: address, traffic: click.traffic, complete: false))
            } else {
                ClickRecordCoding.encode(click, into: &intake.bytes)
                let end = intake.bytes.count
                intake.encoded.append(Encoded(start: start, middle: end, end: end, address: nil, traffic: click.traffic, complete: true))
            }
            intake.ids.append(id)
            return true
        }
    }

    /// Whether a click is still waiting to be written, or being written. Under a backlog too deep to keep in memory, a
    /// click that is only in the journal is not seen here.
    package func isPending(clickID: String) -> Bool {
        let id = clickID.hashValue
        return state.withLock { state in
            state.writing.contains { $0.id == clickID } || state.held.contains { $0.click.id == clickID }
                || state.unstored.contains { $0.id == id && $0.end > state.stored }
                || state.appending.contains(id) || shards.contains { $0.intake.withLock { $0.ids.contains(id) } }
        }
    }

    /// Writes a click that is waiting now, and waits (at most `timeout`) while another flush is writing it; true
    /// when it is no longer pending.
    package func waitUntilWritten(clickID: String, timeout: Duration = .seconds(2)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isPending(clickID: clickID) {
            await flush(until: deadline)
            guard isPending(clickID: clickID) else { return true }
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Counters: clicks not written yet (waiting, being appended, held or being written; not those only in the
    /// journal), written, and dropped since start.
    package var statistics: (pending: Int, recorded: Int, dropped: Int) {
        state.withLock { state in
            let (pending, dropped) = shards.reduce((0, 0)) { sum, shard in
                shard.intake.withLock { (sum.0 + $0.count, sum.1 + $0.dropped) }
            }
            return (pending + state.appending.count + state.held.count + state.unstored.count, state.recorded, dropped)
        }
    }

    /// The journal's figures: its bytes on disk, the bytes appended and not yet stored, whether it is refusing clicks
    /// (full), and damaged records skipped. Nil without a journal.
    package var journalStatistics: (bytes: Int64, backlogBytes: Int64, full: Bool, damaged: Int)? {
        guard let journal else { return nil }
        return (journal.bytes, journal.backlogBytes, state.withLock { $0.journalFull }, journal.damagedRecords)
    }

    /// Appends the clicks waiting, then writes until everything appended is stored or a write fails; while the
    /// recorder's own threads are appending or writing, waits for them (at most until `deadline`).
    package func flush(until deadline: ContinuousClock.Instant? = nil) async {
        while true {
            append()
            let outcome = await writeAll(until: deadline)
            let appending = state.withLock { $0.isAppending }
            guard outcome == .busy || appending, deadline.map({ ContinuousClock.now < $0 }) ?? true else { return }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Takes the clicks waiting and appends them now, on the caller's thread (the benchmark of the appender).
    package func appendNow() { append() }

    /// Takes the clicks waiting, fills in their address hashes, and appends them to the journal (or, without one,
    /// holds them for the database). With a full journal, the clicks are dropped and counted.
    func append() {
        var taken: [Intake] = []
        let ids: [Int]? = state.withLock { state in
            guard !state.isAppending else { return nil }
            for shard in shards {
                let (waiting, bytes) = shard.intake.withLock { ($0.count, $0.bytes.count) }
                guard waiting > 0 else { continue }
                // A swap, not a copy, with buffers made before the edge's event loop's lock is taken: they have room
                // for as many clicks as were waiting, so that the edge does not grow them click by click.
                var fresh = Intake()
                let capacity = max(1024, waiting)
                if journal == nil {
                    fresh.pending.reserveCapacity(capacity)
                } else {
                    fresh.encoded.reserveCapacity(capacity)
                    fresh.bytes.reserveCapacity(max(1 << 16, bytes + bytes / 4))
                }
                fresh.ids.reserveCapacity(capacity)
                shard.intake.withLock { $0.swapClicks(with: &fresh) }
                taken.append(fresh)
            }
            guard !taken.isEmpty else { return nil }
            let ids = taken.count == 1 ? taken[0].ids : taken.flatMap(\.ids)
            if journal == nil { holding.add(ids.count, ordering: .relaxed) }
            state.isAppending = true
            state.appending = ids
            return ids
        }
        guard let ids else { return }
        guard let journal else {
            var clicks: [Resolved] = []
            clicks.reserveCapacity(ids.count)
            networkDigests.withLock { networks in
                for part in taken {
                    for pending in part.pending { clicks.append(resolve(pending, networks: &networks)) }
                }
            }
            state.withLock { state in
                for click in clicks {
                    let end = JournalPosition(segment: 0, offset: state.appended.offset + 1)
                    state.held.append(Held(resolved: click, end: end))
                    state.appended = end
                }
                state.appending.removeAll()
                state.isAppending = false
            }
            return
        }
        var records = JournalRecords(capacity: taken.reduce(0) { $0 + $1.bytes.count + $1.encoded.count * 64 })
        networkDigests.withLock { networks in
            for part in taken {
                part.bytes.withUnsafeBytes { bytes in
                    for click in part.encoded { frame(click, from: bytes, into: &records, networks: &networks) }
                }
            }
        }
        do {
            let start = try journal.append(records)
            let recovered: Bool = state.withLock { state in
                for (id, end) in zip(ids, records.ends) {
                    state.unstored.append(Unstored(id: id, end: JournalPosition(segment: start.segment, offset: start.offset + Int64(end))))
                }
                // The oldest beyond the bound are in the journal only, and no longer seen by `isPending`.
                if state.unstored.count > bufferLimit { state.unstored.removeFirst(state.unstored.count - bufferLimit) }
                state.appended = JournalPosition(segment: start.segment, offset: start.offset + Int64(records.ends.last ?? 0))
                state.appending.removeAll()
                state.isAppending = false
                defer { state.journalFull = false }
                return state.journalFull
            }
            if recovered { logger.warning("click journal has room again; clicks are kept") }
        } catch {
            shards[0].intake.withLock { $0.dropped += ids.count }
            let first: Bool = state.withLock { state in
                state.appending.removeAll()
                state.isAppending = false
                defer { state.journalFull = true }
                return !state.journalFull
            }
            if first {
                logger.critical("click journal full: clicks are answered but dropped until the database catches up or the journal gets room",
                                metadata: ["error": "\(error)", "journal": "\(journal.directory.path)"])
            }
        }
    }

    /// Writes batches until everything appended is stored, a write fails, another caller is writing, `until` passes
    /// or `stopping` says so.
    @discardableResult
    private func writeAll(until deadline: ContinuousClock.Instant?, stopping: () -> Bool = { false }) async -> WriteOutcome {
        while true {
            let outcome = await writeBatch()
            guard outcome == .wrote else { return outcome }
            if let deadline, ContinuousClock.now >= deadline { return .wrote }
            if stopping() { return .wrote }
        }
    }

    private enum WriteOutcome {
        case wrote, nothingLeft, busy, failed
    }

    /// Writes one batch.
    private func writeBatch() async -> WriteOutcome {
        let batch: Batch?? = state.withLock { state in
            guard !state.isWriting else { return .some(nil) }
            if journal == nil, !state.held.isEmpty {
                let taken = Array(state.held.prefix(batchSize))
                state.isWriting = true
                state.writing = taken.map(\.resolved.click)
                return Batch.held(taken)
            }
            guard state.stored < state.appended else { return nil }
            state.isWriting = true
            return Batch.journal(from: state.stored)
        }
        guard let taken = batch else { return .nothingLeft }
        guard let batch = taken else { return .busy }
        let started = ContinuousClock.now
        do {
            let (written, end, earlier) = try await write(batch)
            if let metrics, !written.isEmpty {
                metrics.clicksWritten(oldest: written.lazy.map(\.createdAt).min(), nanoseconds: (ContinuousClock.now - started).wholeNanoseconds)
            }
            let progressed: Bool = state.withLock { state in
                let progressed = end > state.stored
                state.stored = max(state.stored, end)
                var removed = 0
                while let first = state.held.first, first.end <= state.stored {
                    state.held.removeFirst()
                    removed += 1
                }
                if journal == nil { holding.subtract(removed, ordering: .relaxed) }
                while let first = state.unstored.first, first.end <= state.stored { state.unstored.removeFirst() }
                state.recorded += written.count
                state.writing = []
                state.isWriting = false
                return progressed
            }
            if let journal {
                do { try journal.commit(end) } catch {
                    logger.error("click journal checkpoint not written; its clicks will be read again", metadata: ["error": "\(error)"])
                }
            }
            if !written.isEmpty { await afterWrite?(written) }
            await reclassifyBursts(earlier)
            // A journal that reads nothing from where the writer is (a record cut short that it could not skip) must
            // not hold the writer in a loop; the next round tries again.
            return progressed ? .wrote : .nothingLeft
        } catch {
            let failures: Int = state.withLock { state in
                state.writing = []
                state.isWriting = false
                state.failedFlushes += 1
                return state.failedFlushes
            }
            metrics?.clickBatchFailed()
            logger.error("click batch not written; will retry", metadata: ["error": "\(error)", "failures": "\(failures)"])
            return .failed
        }
    }

    /// Reads a batch (from memory, or back from the journal), marks its scanners' bursts, and stores it: on the
    /// writing thread when the store writes on the calling thread, else through the store's own asynchronous path.
    /// Returns the clicks as stored, where the batch ends, and the ids of clicks of earlier batches that the batch
    /// shows to be a scanner's.
    private func write(_ batch: Batch) async throws -> (clicks: [Click], end: JournalPosition, earlier: [String]) {
        if let blocking = store as? any BlockingClickWriting, let thread = writerThread() {
            do {
                return try await thread.runIfActive { [self] in
                    let prepared = try prepare(batch)
                    try blocking.recordClicksBlocking(prepared.clicks)
                    return prepared
                }
            } catch let error as NIOThreadPoolError.ThreadPoolInactive {
                logger.debug("click writer stopped; writing on the caller", metadata: ["error": "\(error)"])
            }
        }
        let prepared = try prepare(batch)
        try await store.recordClicks(prepared.clicks)
        return prepared
    }

    /// A batch's clicks with its scanners' bursts marked, where it ends, and the earlier clicks its bursts take in.
    private func prepare(_ batch: Batch) throws -> (clicks: [Click], end: JournalPosition, earlier: [String]) {
        let (clicks, end) = try read(batch)
        let (marked, earlier) = markBursts(clicks)
        return (marked, end, earlier)
    }

    /// The clicks of a batch and where it ends: those held, or those read back from the journal (a record this version
    /// cannot read is logged and skipped).
    private func read(_ batch: Batch) throws -> (clicks: [Click], end: JournalPosition) {
        switch batch {
        case .held(let held):
            return (held.map(\.resolved.stored), held.last?.end ?? JournalPosition(segment: 0, offset: 0))
        case .journal(let from):
            guard let journal else { return ([], from) }
            let (records, next) = try journal.read(from: from, count: batchSize)
            var clicks: [Click] = []
            clicks.reserveCapacity(records.count)
            for record in records {
                if let click = ClickRecordCoding.decode(record.payload) {
                    clicks.append(click)
                } else {
                    logger.error("click journal record not readable; skipped", metadata: ["at": "\(record.start)"])
                }
            }
            state.withLock { $0.writing = clicks }
            return (clicks, next)
        }
    }

    /// Appends the record of a click the edge encoded, with its address hashes and traffic.
    private func frame(_ click: Encoded, from bytes: UnsafeRawBufferPointer, into records: inout JournalRecords,
                       networks: inout NetworkDigestCache) {
        guard !click.complete, let hasher else {
            return records.append { $0.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[click.start..<click.end])) }
        }
        let hashes = address(click.address, traffic: click.traffic, hasher: hasher, networks: &networks)
        records.append { payload in
            payload.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[click.start..<click.middle]))
            ClickRecordCoding.encodeHashes(ip: hashes.ip, network: hashes.network, into: &payload)
            payload.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[click.middle..<click.end]))
            ClickRecordCoding.encodeTraffic(hashes.traffic, into: &payload)
        }
    }

    /// A click with the keyed hashes of its client address, a signed-in person's token apart from the query
    /// (`UserClickToken`), and a scanner's click told from a person's by its network: work left off the redirect path,
    /// done before the click is appended, so that the journal never holds an address.
    private func resolve(_ pending: Pending, networks: inout NetworkDigestCache) -> Resolved {
        var resolved = Resolved(click: UserClickToken.separated(pending.click))
        if let address = addressHashes(pending, networks: &networks) {
            resolved.ipDigest = address.ip
            resolved.networkDigest = address.network
            resolved.click.ipHash = nil
            resolved.click.networkHash = nil
            resolved.click.traffic = address.traffic
        }
        return resolved
    }

    /// The keyed hashes of a click's client address (nil when it has none) and its traffic, a scanner's when its
    /// network is one; nil when the click came without an origin, and keeps what it has.
    private func addressHashes(_ pending: Pending, networks: inout NetworkDigestCache)
        -> (ip: AddressDigest?, network: AddressDigest?, traffic: ClickTraffic)?
    {
        guard let origin = pending.origin, let hasher else { return nil }
        return address(origin.clientAddress(using: addresses), traffic: pending.click.traffic, hasher: hasher, networks: &networks)
    }

    /// The keyed hashes of a client's address, and the traffic of its click, a scanner's when its person's-looking click
    /// comes from a scanner's network.
    private func address(_ address: IPAddress?, traffic: ClickTraffic, hasher: AddressHasher, networks: inout NetworkDigestCache)
        -> (ip: AddressDigest?, network: AddressDigest?, traffic: ClickTraffic)
    {
        var traffic = traffic
        if traffic == .person, let address, scannerNetworks.contains(where: { $0.contains(address) }) { traffic = .scanner }
        return (address.map(hasher.digest), address.map { networks.digest($0, hasher: hasher) }, traffic)
    }

    /// A batch with the clicks that make a scanner's burst marked (`ScannerBurstDetector`), as the database writer sees
    /// them in order, and the ids of clicks of earlier batches that the batch shows to be a scanner's.
    private func markBursts(_ batch: [Click]) -> (clicks: [Click], earlier: [String]) {
        var clicks = batch
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

    /// The journal's thread, started on first use; nil once the recorder has stopped.
    private func appendingThread() -> NIOThreadPool? {
        state.withLock { state in
            if state.stopped { return nil }
            if let thread = state.journalThread { return thread }
            let thread = NIOThreadPool(numberOfThreads: 1)
            thread.start()
            state.journalThread = thread
            return thread
        }
    }

    /// Runs until shutdown: appends to the journal every `journalInterval` (flushing it to the disk at most once a
    /// second) and writes the database every `flushInterval`. Then appends and writes what is left, also when it is
    /// cancelled rather than shut down gracefully (as a service group does to every service when one of them fails).
    package func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            if let journal {
                group.addTask {
                    var synced = ContinuousClock.now
                    while !Task.isCancelled && !Task.isShuttingDownGracefully {
                        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.journalInterval) }
                        if Task.isCancelled { break }
                        let due = ContinuousClock.now - synced >= .seconds(1)
                        if due { synced = .now }
                        if let thread = self.appendingThread() {
                            _ = try? await thread.runIfActive {
                                self.append()
                                if due { journal.sync() }
                            }
                        }
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.flushInterval) }
                    if Task.isCancelled { break }
                    if self.journal == nil { self.append() }
                    await self.writeAll(until: nil) { Task.isCancelled || Task.isShuttingDownGracefully }
                }
            }
        }
        // Not in this task: once it is cancelled, the writing thread and the stores refuse to start a write, and
        // what the recorder holds would be lost.
        await Task { await self.finish() }.value
    }

    /// Appends what is waiting, flushes the journal to the disk, writes the database (everything without a journal;
    /// with one, for at most `stopWriteLimit`), and stops the threads.
    private func finish() async {
        // A request's flush may be appending as the loops end: what it took is appended when it returns.
        while state.withLock({ state in state.isAppending || shards.contains { $0.intake.withLock { $0.count > 0 } } }) {
            append()
            if state.withLock({ $0.isAppending }) { try? await Task.sleep(for: .milliseconds(1)) }
        }
        journal?.sync()
        await writeAll(until: journal == nil ? nil : .now + stopWriteLimit) { false }
        let (writer, appender): (NIOThreadPool?, NIOThreadPool?) = state.withLock { state in
            state.stopped = true
            defer { (state.writerThread, state.journalThread) = (nil, nil) }
            return (state.writerThread, state.journalThread)
        }
        try? await writer?.shutdownGracefully()
        try? await appender?.shutdownGracefully()
        let stats = statistics
        var metadata: Logger.Metadata = ["recorded": "\(stats.recorded)", "pending": "\(stats.pending)", "dropped": "\(stats.dropped)"]
        if let journal = journalStatistics { metadata["journalBacklogBytes"] = "\(journal.backlogBytes)" }
        logger.info("click recorder stopped", metadata: metadata)
    }
}
#endif
