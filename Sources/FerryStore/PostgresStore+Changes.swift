#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    package func changeEpoch() async throws -> Int64 {
        try await first("SELECT value FROM change_epoch WHERE id = 1") { try $0["value"].decode(Int64.self) } ?? 0
    }

    package func linkChanges(since mark: Int64?) async throws -> LinkChanges {
        // One statement, one snapshot: every transaction whose entries it cannot see yet has an id at or above its
        // xmin, which becomes the next mark.
        let rows = try await all("""
            SELECT now.xmin, horizon.xid AS horizon, changed.domain, changed.slug
            FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin) now
            CROSS JOIN link_changes_horizon horizon
            LEFT JOIN (SELECT domain, slug FROM link_changes WHERE xid >= \(mark ?? Int64.max) LIMIT \(LinkChanges.listLimit + 1)) changed ON TRUE
            """) { row in
            (try row["xmin"].decode(Int64.self), try row["horizon"].decode(Int64.self),
             try row["domain"].decode(String?.self), try row["slug"].decode(String?.self))
        }
        guard let head = rows.first else { throw StoreCorruption(message: "the horizon of the link change log is missing") }
        guard let mark else { return LinkChanges(places: [], mark: head.0) }
        if head.1 >= mark || rows.count > LinkChanges.listLimit { return LinkChanges(places: nil, mark: head.0) }
        let places = rows.compactMap { row in row.2.flatMap { domain in row.3.map { LinkChanges.Place(domain: domain, slug: $0) } } }
        return LinkChanges(places: places, mark: head.0)
    }

    /// Entries of a transaction still open stay, whatever their age: the horizon stays below every node's mark.
    package func pruneLinkChanges(before cutoff: Date) async throws -> Int {
        try await first("""
            WITH gone AS (
                DELETE FROM link_changes
                WHERE changed_at < \(cutoff.timeIntervalSince1970) AND xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                RETURNING xid
            ),
            moved AS (UPDATE link_changes_horizon SET xid = GREATEST(xid, (SELECT MAX(xid) FROM gone)) WHERE EXISTS (SELECT 1 FROM gone))
            SELECT COUNT(*) AS gone FROM gone
            """) { try $0["gone"].decode(Int.self) } ?? 0
    }

    /// The channel the schema's triggers notify on every change the edge caches.
    static let changeChannel = "ferry_changes"

    /// Listens for the triggers' notices on a connection of its own, outside the pool; after every (re)connection
    /// it yields once, since notices sent while no one listened are lost. Reconnects a second after losing the
    /// connection, or ten seconds after asking to listen without an answer.
    ///
    /// Outside the pool, because a pooled connection that the server ends while it listens goes back to the pool
    /// as it closes, and a statement handed that connection is never sent; and because a listener that never gets
    /// its answer must be given up on rather than waited for.
    package func changeNotifications() -> AsyncStream<Void>? {
        let listener = listener, logger = logger
        return AsyncStream { continuation in
            let task = Task {
                var attempt = 0
                while !Task.isCancelled {
                    attempt += 1
                    do {
                        let connection = try await PostgresConnection.connect(configuration: listener.configuration(), id: attempt, logger: logger)
                        try await Self.listen(on: connection, yieldingTo: continuation)
                    } catch {
                        if Task.isCancelled { break }
                        logger.warning("change notices lost; listening again", metadata: ["error": "\(String(reflecting: error))"])
                    }
                    try? await Task.sleep(for: .seconds(1))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Listens on `connection` until it is lost or the caller is cancelled, then closes it.
    private static func listen(on connection: PostgresConnection, yieldingTo continuation: AsyncStream<Void>.Continuation) async throws {
        let (listening, started) = AsyncStream.makeStream(of: Void.self)
        let listener = Task {
            defer { started.finish() }  // listening, or failed to
            try await connection.listen(on: Self.changeChannel) { notices in
                started.finish()
                continuation.yield()
                for try await _ in notices { continuation.yield() }
            }
        }
        do {
            try await withTaskCancellationHandler {
                try await FerryStore.withDeadline(.seconds(10), timeoutError: { PostgresUnavailable(message: "LISTEN not answered within 10 seconds") }) {
                    for await _ in listening {}
                }
                try await listener.value
            } onCancel: {
                listener.cancel()
                let _: EventLoopFuture<Void> = connection.close()
            }
        } catch {
            try? await connection.close()  // closed before it goes (a connection must not be dropped open)
            throw error
        }
        try? await connection.close()
    }

    /// Ends every connection of this database and schema (every node's, not only this store's) that listens for
    /// change notices; returns how many (for tests and operators checking that nodes recover). Ferry's installs in
    /// other schemas of the database are left alone: their connections carry another `application_name`. Needs the
    /// right to signal other backends.
    package func terminateListeners() async throws -> Int {
        try await all("""
            SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = \(applicationName) AND pid <> pg_backend_pid()
                AND query ILIKE \("LISTEN%")
            """) { try $0["done"].decode(Bool.self) }.filter { $0 }.count
    }
}
#endif
