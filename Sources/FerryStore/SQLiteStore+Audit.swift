#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    package func recordAuditEvent(_ event: AuditEvent) async throws -> AuditEvent {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO audit_log (app_id, environment, at, actor_kind, actor_id, actor_label, address, action, object_type, object_id, changes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [event.appID, event.environment?.rawValue, event.at.timeIntervalSince1970, event.actor.kind.rawValue, event.actor.id,
                                 event.actor.label, event.actor.address, event.action, event.objectType, event.objectID, JSONText.encode(event.changes)])
            var stored = event
            stored.id = db.lastInsertedRowID
            return stored
        }
    }

    package func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        let condition = AuditSchema.condition(query) { _ in "?" }
        let values: [DatabaseValue] = condition.arguments.map { argument in
            switch argument {
            case .text(let text): text.databaseValue
            case .real(let value): value.databaseValue
            case .integer(let value): value.databaseValue
            }
        }
        let arguments = StatementArguments(values + [max(0, query.limit).databaseValue])
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(AuditColumn.selectList()) FROM audit_log\(condition.sql) ORDER BY id DESC LIMIT ?",
                             arguments: arguments).map(AuditEvent.init(row:))
        }
    }

    package func purgeAuditEvents(before cutoff: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM audit_log WHERE at < ?", arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }
}
#endif
