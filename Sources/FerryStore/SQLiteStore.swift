#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB
import Synchronization

/// Ferry's store on one SQLite file (GRDB, WAL mode), or in memory for tests.
///
/// One `DatabasePool` per file; every constraint lives in the schema; migrations run when the store opens, so any
/// process (the server or the CLI) may open a fresh file first.
package final class SQLiteStore: FerryDatabase, ImmediateLinkReading, BlockingClickWriting {
    let writer: any DatabaseWriter
    /// Read-only connections for `linkImmediately`, each used by one caller at a time.
    private let immediateReaders: [DatabaseQueue]
    /// Which of them are free: a caller that finds none free does not wait.
    private let freeImmediateReaders: Mutex<[Int]>
    /// Large attribution-window counts, remembered for a few seconds.
    let crowdCounts = CrowdCounts()
    /// Writes other than the click recorder's batches that are waiting or under way.
    let otherWrites = Atomic<Int>(0)
    /// Copies the write-ahead log back into the file (nil in memory).
    private let checkpointer: LogCheckpointer?
    /// Clicks per transaction in `recordClicksBlocking`, as fits `clickTransactionTarget` at the last one's pace.
    let clickTransactionSize = Atomic<Int>(SQLiteStore.clicksBetweenYields)
    /// How long `recordClicksBlocking` waits before its next transaction (nanoseconds): 0, or more while its last
    /// transaction found the processor saturated.
    let starvedWriterPause = Atomic<Int64>(0)
    /// The metrics and spans of its operations (but the edge's immediate link reads, which run on an event loop).
    let observation = StoreObservation(system: "sqlite")
    /// How many readers the pool may open besides the writer.
    static let poolReaders = 5

    /// Opens (creating if needed) the database at `path` and migrates it.
    package init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // The writer keeps more pages in memory: each batch of clicks touches the pages of several indexes, and
            // reading them back from the file for every batch was a good part of the cost of recording a click.
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = -32768")
                // `LogCheckpointer` copies the log back beside the writer, every second; the commit that takes the
                // log past 32 MiB finishes the job (what is left since that copy) so that the log starts over.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 8192")
            }
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        configuration.maximumReaderCount = Self.poolReaders
        writer = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(writer)
        var readOnly = configuration
        readOnly.readonly = true
        let count = min(8, max(2, ProcessInfo.processInfo.activeProcessorCount))
        immediateReaders = try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: readOnly) }
        freeImmediateReaders = Mutex(Array(0..<count))
        checkpointer = try LogCheckpointer(path: path, configuration: configuration, interval: 1)
    }

    /// An in-memory database (one connection), for tests.
    package init(inMemory: Void = ()) throws {
        writer = try DatabaseQueue()
        try Self.migrator.migrate(writer)
        immediateReaders = []
        freeImmediateReaders = Mutex([])
        checkpointer = nil
    }

    // MARK: Health

    package func checkHealth() async throws {
        _ = try await read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    package func close() async throws {
        // The immediate readers first: once the writer is the file's last connection, closing it checkpoints the
        // write-ahead log and removes it, so that the next start does not read a large log back.
        let idle = freeImmediateReaders.withLock { free in
            defer { free.removeAll() }
            return free
        }
        for index in idle { try immediateReaders[index].close() }
        try checkpointer?.stop()
        try writer.close()
    }

    // MARK: Reads and writes

    /// `body` on one of the immediate readers, which no other caller uses meanwhile; nil, without waiting, when
    /// none is free.
    func onFreeImmediateReader<T>(_ body: (DatabaseQueue) throws -> T) rethrows -> T? {
        guard let index = freeImmediateReaders.withLock({ $0.popLast() }) else { return nil }
        defer { freeImmediateReaders.withLock { $0.append(index) } }
        return try body(immediateReaders[index])
    }

    /// A read the API makes on every request it serves (its key, its app, a match's candidates): on the caller's
    /// thread, in a transaction of its own, when one of the immediate readers is free, else through the pool. A
    /// read in WAL mode never waits for the writer, so it is work the caller would wait for anyway; doing it here
    /// saves the two thread switches of handing it to a reader's queue and back (a sixth of a match's processor
    /// time went on those switches).
    func readHere<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await observation.measure(.read) {
            if let read = try onFreeImmediateReader({ reader in try reader.read(body) }) { return read }
            return try await writer.read(body)
        }
    }

    /// A read through the pool.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await observation.measure(.read) { try await writer.read(body) }
    }

    /// Every write but the click recorder's goes through here, so that a batch of clicks gives way to it.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        otherWrites.add(1, ordering: .relaxed)
        defer { otherWrites.subtract(1, ordering: .relaxed) }
        return try await observation.measure(.write) { try await writer.write(updates) }
    }

    // MARK: Observation

    package var isAway: Bool { false }
    package var metricsSystemName: String { observation.system }
    package var connectionCapacity: Int { Self.poolReaders + 1 + immediateReaders.count }
    package func observe(with metrics: StoreMetrics) { observation.attach(metrics) }

    // MARK: Settings

    package func setting(_ name: String) async throws -> String? {
        try await read { db in try String.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [name]) }
    }

    package func insertSettingIfAbsent(_ name: String, value: String) async throws -> String {
        try await write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)", arguments: [name, value])
            return try String.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [name]) ?? value
        }
    }
}
#endif
