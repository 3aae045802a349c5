#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import PostgresNIO

extension PostgresStore {
    package func recordAuditEvent(_ event: AuditEvent) async throws -> AuditEvent {
        let id = try await first("""
            INSERT INTO audit_log (app_id, environment, at, actor_kind, actor_id, actor_label, address, action, object_type, object_id, changes)
            VALUES (\(event.appID), \(event.environment?.rawValue), \(event.at.timeIntervalSince1970), \(event.actor.kind.rawValue),
                \(event.actor.id), \(event.actor.label), \(event.actor.address), \(event.action), \(event.objectType), \(event.objectID),
                \(JSONText.encode(event.changes)))
            RETURNING id
            """) { row in try row["id"].decode(Int64.self) }
        var stored = event
        stored.id = try id ?? { throw StoreCorruption(message: "the audit log gave no id") }()
        return stored
    }

    package func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        let condition = AuditSchema.condition(query) { "$\($0)" }
        var binds = PostgresBindings(capacity: condition.arguments.count + 1)
        for argument in condition.arguments {
            switch argument {
            case .text(let text): binds.append(text)
            case .real(let value): binds.append(value)
            case .integer(let value): binds.append(value)
            }
        }
        binds.append(max(0, query.limit))
        let sql = "SELECT \(AuditColumn.selectList()) FROM audit_log\(condition.sql) ORDER BY id DESC LIMIT $\(condition.arguments.count + 1)"
        return try await all(PostgresQuery(unsafeSQL: sql, binds: binds), AuditEvent.init(row:))
    }

    package func purgeAuditEvents(before cutoff: Date) async throws -> Int {
        try await all("DELETE FROM audit_log WHERE at < \(cutoff.timeIntervalSince1970) RETURNING id") { _ in () }.count
    }
}
#endif
