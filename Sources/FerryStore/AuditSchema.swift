#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation

/// The audit log, the same on SQLite and PostgreSQL: one row per change, newest with the highest id. It keeps no
/// reference to the app, so that what was done to an app outlives the app.
enum AuditSchema {
    /// `real`: SQLite's `REAL` or PostgreSQL's `DOUBLE PRECISION`; `identity`: the id column, ever increasing.
    static func statements(real: String, identity: String) -> [String] {
        [
            """
            CREATE TABLE audit_log (
                id \(identity),
                app_id TEXT,
                environment TEXT CHECK (environment IN ('live', 'test')),
                at \(real) NOT NULL,
                actor_kind TEXT NOT NULL CHECK (actor_kind IN ('key', 'user', 'cli', 'system')),
                actor_id TEXT NOT NULL,
                actor_label TEXT,
                address TEXT,
                action TEXT NOT NULL,
                object_type TEXT NOT NULL,
                object_id TEXT NOT NULL,
                changes TEXT NOT NULL
            )
            """,
            "CREATE INDEX audit_log_app ON audit_log(app_id, id)",
            "CREATE INDEX audit_log_object ON audit_log(app_id, object_type, object_id, id)",
            "CREATE INDEX audit_log_actor ON audit_log(app_id, actor_id, id)",
            // The retention purge reads by age alone.
            "CREATE INDEX audit_log_at ON audit_log(at)",
        ]
    }

    /// The condition of a query (`AuditQuery`), with one placeholder per `arguments` value (`?`, or `$n` from `first`).
    static func condition(_ query: AuditQuery, placeholder: (Int) -> String) -> (sql: String, arguments: [AuditArgument]) {
        var parts: [String] = [], arguments: [AuditArgument] = []
        func add(_ sql: (String) -> String, _ value: AuditArgument) {
            arguments.append(value)
            parts.append(sql(placeholder(arguments.count)))
        }
        if let appID = query.appID { add({ "app_id = \($0)" }, .text(appID)) }
        if let environment = query.environment { add({ "(environment IS NULL OR environment = \($0))" }, .text(environment.rawValue)) }
        if let type = query.objectType { add({ "object_type = \($0)" }, .text(type)) }
        if let id = query.objectID { add({ "object_id = \($0)" }, .text(id)) }
        if let actor = query.actorID { add({ "actor_id = \($0)" }, .text(actor)) }
        if let since = query.since { add({ "at >= \($0)" }, .real(since.timeIntervalSince1970)) }
        if let until = query.until { add({ "at < \($0)" }, .real(until.timeIntervalSince1970)) }
        if let before = query.before { add({ "id < \($0)" }, .integer(before)) }
        return (parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND "), arguments)
    }

    /// A value bound to a query's placeholder.
    enum AuditArgument {
        case text(String), real(Double), integer(Int64)
    }
}

/// The columns of `audit_log`.
enum AuditColumn: Int, StoreColumn {
    case id, appID, environment, at, actorKind, actorID, actorLabel, address, action, objectType, objectID, changes

    var columnName: String {
        switch self {
        case .id: "id"
        case .appID: "app_id"
        case .environment: "environment"
        case .at: "at"
        case .actorKind: "actor_kind"
        case .actorID: "actor_id"
        case .actorLabel: "actor_label"
        case .address: "address"
        case .action: "action"
        case .objectType: "object_type"
        case .objectID: "object_id"
        case .changes: "changes"
        }
    }
}

extension AuditEvent {
    /// An `audit_log` row.
    init(row: some StoreRow) throws {
        let row = row.columns(AuditColumn.self)
        guard let kind = AuditActor.Kind(rawValue: try row[.actorKind]) else {
            throw StoreCorruption(message: "audit_log row has an unknown actor kind")
        }
        let environment = try (row[.environment] as String?).map { text in
            guard let environment = APIEnvironment(rawValue: text) else { throw StoreCorruption(message: "audit_log row has an unknown environment") }
            return environment
        }
        guard let changes: [String: AuditChange] = JSONText.decode(try row[.changes] as String) else {
            throw StoreCorruption(message: "audit_log row's changes are not JSON")
        }
        try self.init(
            id: row[.id], appID: row[.appID], environment: environment, at: Date(timeIntervalSince1970: row[.at]),
            actor: AuditActor(kind: kind, id: row[.actorID], label: row[.actorLabel], address: row[.address]),
            action: row[.action], objectType: row[.objectType], objectID: row[.objectID], changes: changes)
    }
}
#endif
