#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import PostgresNIO

extension PostgresStore {
    // MARK: Dashboard sessions

    package func createSession(_ session: DashboardSessionRecord) async throws {
        try await execute("""
            INSERT INTO dashboard_sessions (hash, key_hash, created_at, expires_at)
            VALUES (\(session.hash), \(session.keyHash), \(session.createdAt.timeIntervalSince1970), \(session.expiresAt.timeIntervalSince1970))
            """)
    }

    package func session(hash: String) async throws -> DashboardSessionRecord? {
        try await first("SELECT * FROM dashboard_sessions WHERE hash = \(hash)", DashboardSessionRecord.init(row:))
    }

    package func deleteSession(hash: String) async throws -> Bool {
        try await !all("DELETE FROM dashboard_sessions WHERE hash = \(hash) RETURNING hash") { _ in () }.isEmpty
    }

    package func purgeSessions(expiredBefore date: Date) async throws -> Int {
        try await all("DELETE FROM dashboard_sessions WHERE expires_at < \(date.timeIntervalSince1970) RETURNING hash") { _ in () }.count
    }
}
#endif
