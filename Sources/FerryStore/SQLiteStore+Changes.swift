#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    package func changeEpoch() async throws -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT value FROM change_epoch WHERE id = 1") ?? 0 }
    }

    package func linkChanges(since mark: Int64?) async throws -> LinkChanges {
        try await read { db in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM link_changes") ?? 0
            guard let mark else { return LinkChanges(places: [], mark: last) }
            // Committed sequence numbers have no holes (one writer, and a rollback takes its numbers back), so a
            // mark below the first kept entry minus one means entries since it were pruned; one beyond the last,
            // a database put back from a copy.
            let first = try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM link_changes")
            if mark > last || (first.map { mark < $0 - 1 } ?? false) { return LinkChanges(places: nil, mark: last) }
            let rows = try Row.fetchAll(db, sql: "SELECT seq, domain, slug FROM link_changes WHERE seq > ? ORDER BY seq LIMIT ?",
                                        arguments: [mark, LinkChanges.listLimit + 1])
            if rows.count > LinkChanges.listLimit { return LinkChanges(places: nil, mark: last) }
            return LinkChanges(places: rows.map { LinkChanges.Place(domain: $0["domain"], slug: $0["slug"]) },
                               mark: rows.last.map { $0["seq"] } ?? mark)
        }
    }

    package func pruneLinkChanges(before cutoff: Date) async throws -> Int {
        try await write { db in
            // The newest entry stays, so that the log always shows where it stands.
            try db.execute(sql: "DELETE FROM link_changes WHERE changed_at < ? AND seq < (SELECT MAX(seq) FROM link_changes)",
                           arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }
}
#endif
