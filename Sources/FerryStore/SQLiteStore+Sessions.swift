#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    static func registerSessionsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11-dashboard-sessions") { db in
            for statement in TenancySchema.dashboardSessions(real: "REAL") { try db.execute(sql: statement) }
        }
    }

    // MARK: Dashboard sessions

    package func createSession(_ session: DashboardSessionRecord) async throws {
        try await write { db in
            try db.execute(sql: "INSERT INTO dashboard_sessions (hash, key_hash, created_at, expires_at) VALUES (?, ?, ?, ?)",
                           arguments: [session.hash, session.keyHash, session.createdAt.timeIntervalSince1970, session.expiresAt.timeIntervalSince1970])
        }
    }

    package func session(hash: String) async throws -> DashboardSessionRecord? {
        try await readHere { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM dashboard_sessions WHERE hash = ?"), arguments: [hash]).map(DashboardSessionRecord.init(row:))
        }
    }

    package func deleteSession(hash: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM dashboard_sessions WHERE hash = ?", arguments: [hash])
            return db.changesCount > 0
        }
    }

    package func purgeSessions(expiredBefore date: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM dashboard_sessions WHERE expires_at < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }
}
#endif
