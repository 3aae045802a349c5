#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import PostgresNIO

extension PostgresStore {
    package func createUser(_ user: UserRecord) async throws {
        do {
            try await execute("""
                INSERT INTO users (id, email, password_hash, created_at, password_changed_at)
                VALUES (\(user.id), \(user.email), \(user.passwordHash), \(user.createdAt.timeIntervalSince1970), \(user.passwordChangedAt.timeIntervalSince1970))
                """)
        } catch where Self.uniqueViolation(error) != nil {
            throw StoreConflict(field: "email", message: "\(user.email) has an account already")
        }
    }

    package func user(id: String) async throws -> UserRecord? {
        try await first("SELECT * FROM users WHERE id = \(id)", UserRecord.init(row:))
    }

    package func user(email: String) async throws -> UserRecord? {
        try await first("SELECT * FROM users WHERE email = \(email)", UserRecord.init(row:))
    }

    package func listUsers() async throws -> [UserRecord] {
        try await all("SELECT * FROM users ORDER BY created_at, id", UserRecord.init(row:))
    }

    package func setPassword(userID: String, hash: String, at date: Date, keeping session: String?) async throws -> Bool {
        let logger = logger
        return try await transaction { connection in
            let changed = try await connection.query("""
                UPDATE users SET password_hash = \(hash), password_changed_at = \(date.timeIntervalSince1970) WHERE id = \(userID) RETURNING id
                """, logger: logger).collect()
            guard !changed.isEmpty else { return false }
            try await connection.query("DELETE FROM user_sessions WHERE user_id = \(userID) AND hash IS DISTINCT FROM \(session)", logger: logger)
            return true
        }
    }

    package func deleteUser(id: String) async throws -> Bool {
        try await !all("DELETE FROM users WHERE id = \(id) RETURNING id") { _ in () }.isEmpty
    }

    package func setMembership(_ membership: Membership) async throws {
        try await execute("""
            INSERT INTO memberships (user_id, app_id, role, created_at)
            VALUES (\(membership.userID), \(membership.appID), \(membership.role.rawValue), \(membership.createdAt.timeIntervalSince1970))
            ON CONFLICT (user_id, app_id) DO UPDATE SET role = excluded.role
            """)
    }

    package func removeMembership(userID: String, appID: String) async throws -> Bool {
        try await !all("DELETE FROM memberships WHERE user_id = \(userID) AND app_id = \(appID) RETURNING user_id") { _ in () }.isEmpty
    }

    package func memberships(userID: String) async throws -> [Membership] {
        try await all("SELECT * FROM memberships WHERE user_id = \(userID) ORDER BY created_at, app_id") { try Membership(row: $0) }
    }

    package func members(appID: String) async throws -> [(user: UserRecord, membership: Membership)] {
        let users = UserColumn.allCases.map { "users.\($0.columnName)" }.joined(separator: ", ")
        let memberships = MembershipColumn.allCases.map { "memberships.\($0.columnName) AS m_\($0.columnName)" }.joined(separator: ", ")
        var query = PostgresQuery(unsafeSQL: """
            SELECT \(users), \(memberships) FROM memberships JOIN users ON users.id = memberships.user_id
            WHERE memberships.app_id = $1 ORDER BY memberships.created_at, users.email
            """)
        query.binds.append(appID)
        return try await all(query) { row in (try UserRecord(row: row), try Membership(row: row, prefix: "m_")) }
    }

    package func createInvitation(_ invitation: Invitation) async throws {
        try await execute("""
            INSERT INTO invitations (token_hash, app_id, email, role, invited_by, created_at, expires_at, used_at)
            VALUES (\(invitation.tokenHash), \(invitation.appID), \(invitation.email), \(invitation.role.rawValue), \(invitation.invitedBy),
                \(invitation.createdAt.timeIntervalSince1970), \(invitation.expiresAt.timeIntervalSince1970), \(invitation.usedAt?.timeIntervalSince1970))
            """)
    }

    package func invitation(tokenHash: String) async throws -> Invitation? {
        try await first("SELECT * FROM invitations WHERE token_hash = \(tokenHash)", Invitation.init(row:))
    }

    package func pendingInvitations(appID: String, now: Date) async throws -> [Invitation] {
        try await all("""
            SELECT * FROM invitations WHERE app_id = \(appID) AND used_at IS NULL AND expires_at > \(now.timeIntervalSince1970) ORDER BY created_at DESC
            """, Invitation.init(row:))
    }

    package func useInvitation(tokenHash: String, now: Date) async throws -> Invitation? {
        try await first("""
            UPDATE invitations SET used_at = \(now.timeIntervalSince1970)
            WHERE token_hash = \(tokenHash) AND used_at IS NULL AND expires_at > \(now.timeIntervalSince1970) RETURNING *
            """, Invitation.init(row:))
    }

    package func deleteInvitation(tokenHash: String, appID: String) async throws -> Bool {
        try await !all("DELETE FROM invitations WHERE token_hash = \(tokenHash) AND app_id = \(appID) AND used_at IS NULL RETURNING token_hash") { _ in () }
            .isEmpty
    }

    package func createUserSession(_ session: UserSessionRecord) async throws {
        try await execute("""
            INSERT INTO user_sessions (hash, user_id, created_at, expires_at, address, user_agent)
            VALUES (\(session.hash), \(session.userID), \(session.createdAt.timeIntervalSince1970), \(session.expiresAt.timeIntervalSince1970),
                \(session.address), \(session.userAgent))
            """)
    }

    package func userSession(hash: String, now: Date) async throws -> UserSessionRecord? {
        try await first("SELECT * FROM user_sessions WHERE hash = \(hash) AND expires_at > \(now.timeIntervalSince1970)", UserSessionRecord.init(row:))
    }

    package func userSessions(userID: String, now: Date) async throws -> [UserSessionRecord] {
        try await all("""
            SELECT * FROM user_sessions WHERE user_id = \(userID) AND expires_at > \(now.timeIntervalSince1970) ORDER BY created_at DESC, hash
            """, UserSessionRecord.init(row:))
    }

    package func deleteUserSession(hash: String, userID: String) async throws -> Bool {
        try await !all("DELETE FROM user_sessions WHERE hash = \(hash) AND user_id = \(userID) RETURNING hash") { _ in () }.isEmpty
    }

    package func purgeUserSessions(expiredBefore date: Date) async throws -> Int {
        try await all("DELETE FROM user_sessions WHERE expires_at < \(date.timeIntervalSince1970) RETURNING hash") { _ in () }.count
    }
}
#endif
