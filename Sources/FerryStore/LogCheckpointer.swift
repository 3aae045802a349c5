#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Dispatch
import Foundation
import GRDB
import Synchronization

/// Copies SQLite's write-ahead log back into the database file about once a second, from a connection and a thread
/// of its own, so that no write waits for a checkpoint.
///
/// With SQLite's automatic checkpoints alone, the commit that takes the log past its threshold copies the whole log
/// back and syncs the file before it returns, and every other write waits behind it: hundreds of milliseconds for a
/// large log, paid by whichever write came at that moment (a link's creation, an install's match). A passive
/// checkpoint on another connection runs beside the writer and the readers instead. It cannot by itself let the log
/// start over while writes keep coming (the log restarts only once all of it is copied, and a busy writer always
/// has added some), so the writer's own automatic checkpoint stays on: when it comes, it copies only what was
/// written since this one's last pass, and the log starts over.
final class LogCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Opens the checkpointing connection and starts its thread.
    init(path: String, configuration: Configuration, interval: TimeInterval) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration)
        let finished = finished
        // The thread holds the checkpointer only while it works, so that a store dropped without being closed takes
        // its thread with it.
        let thread = Thread { [weak self] in
            while let checkpointer = self, !checkpointer.stopped.load(ordering: .relaxed) {
                _ = checkpointer.wake.wait(timeout: .now() + interval)
                checkpointer.checkpoint()
            }
            finished.signal()
        }
        thread.name = "ferry-wal-checkpoint"
        thread.start()
    }

    /// One passive checkpoint now: as much of the log as no reader still needs. Returns the log's frames and how many
    /// of them are in the database file.
    @discardableResult
    func checkpoint() -> (log: Int, copied: Int)? {
        try? connection.inDatabase { db in
            let result = try db.checkpoint(.passive)
            return (result.walFrameCount, result.checkpointedFrameCount)
        }
    }

    /// Stops the thread, copies the whole log back and empties it (the store is closing: nothing writes any more),
    /// and closes the connection. The next start then has no log to read back, whichever connection closes last (the
    /// pool's last is a reader, which cannot remove the log).
    func stop() throws {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        wake.signal()
        finished.wait()
        _ = try? connection.inDatabase { try $0.checkpoint(.truncate) }
        try connection.close()
    }
}
#endif
