#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    package func createUser(_ user: UserRecord) async throws {
        try await write { db in
            do {
                try db.execute(sql: "INSERT INTO users (id, email, password_hash, created_at, password_changed_at) VALUES (?, ?, ?, ?, ?)",
                               arguments: [user.id, user.email, user.passwordHash, user.createdAt.timeIntervalSince1970,
                                           user.passwordChangedAt.timeIntervalSince1970])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw StoreConflict(field: "email", message: "\(user.email) has an account already")
            }
        }
    }

    package func user(id: String) async throws -> UserRecord? {
        try await read { db in try Row.fetchOne(db, sql: "SELECT \(UserColumn.selectList()) FROM users WHERE id = ?", arguments: [id]).map(UserRecord.init(row:)) }
    }

    package func user(email: String) async throws -> UserRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(UserColumn.selectList()) FROM users WHERE email = ?", arguments: [email]).map(UserRecord.init(row:))
        }
    }

    package func listUsers() async throws -> [UserRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(UserColumn.selectList()) FROM users ORDER BY created_at, id").map(UserRecord.init(row:))
        }
    }

    package func setPassword(userID: String, hash: String, at date: Date, keeping session: String?) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE users SET password_hash = ?, password_changed_at = ? WHERE id = ?",
                           arguments: [hash, date.timeIntervalSince1970, userID])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "DELETE FROM user_sessions WHERE user_id = ? AND hash IS NOT ?", arguments: [userID, session])
            return true
        }
    }

    package func deleteUser(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    package func setMembership(_ membership: Membership) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO memberships (user_id, app_id, role, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, app_id) DO UPDATE SET role = excluded.role
                """, arguments: [membership.userID, membership.appID, membership.role.rawValue, membership.createdAt.timeIntervalSince1970])
        }
    }

    package func removeMembership(userID: String, appID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM memberships WHERE user_id = ? AND app_id = ?", arguments: [userID, appID])
            return db.changesCount > 0
        }
    }

    package func memberships(userID: String) async throws -> [Membership] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(MembershipColumn.selectList()) FROM memberships WHERE user_id = ? ORDER BY created_at, app_id",
                             arguments: [userID]).map { try Membership(row: $0) }
        }
    }

    package func members(appID: String) async throws -> [(user: UserRecord, membership: Membership)] {
        try await read { db in
            let users = UserColumn.allCases.map { "users.\($0.columnName)" }.joined(separator: ", ")
            let memberships = MembershipColumn.allCases.map { "memberships.\($0.columnName) AS m_\($0.columnName)" }.joined(separator: ", ")
            return try Row.fetchAll(db, sql: """
                SELECT \(users), \(memberships) FROM memberships JOIN users ON users.id = memberships.user_id
                WHERE memberships.app_id = ? ORDER BY memberships.created_at, users.email
                """, arguments: [appID]).map { row in
                (try UserRecord(row: row), try Membership(row: row, prefix: "m_"))
            }
        }
    }

    package func createInvitation(_ invitation: Invitation) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO invitations (token_hash, app_id, email, role, invited_by, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [invitation.tokenHash, invitation.appID, invitation.email, invitation.role.rawValue, invitation.invitedBy,
                                 invitation.createdAt.timeIntervalSince1970, invitation.expiresAt.timeIntervalSince1970,
                                 invitation.usedAt?.timeIntervalSince1970])
        }
    }

    package func invitation(tokenHash: String) async throws -> Invitation? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(InvitationColumn.selectList()) FROM invitations WHERE token_hash = ?", arguments: [tokenHash])
                .map(Invitation.init(row:))
        }
    }

    package func pendingInvitations(appID: String, now: Date) async throws -> [Invitation] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(InvitationColumn.selectList()) FROM invitations WHERE app_id = ? AND used_at IS NULL AND expires_at > ?
                ORDER BY created_at DESC
                """, arguments: [appID, now.timeIntervalSince1970]).map(Invitation.init(row:))
        }
    }

    package func useInvitation(tokenHash: String, now: Date) async throws -> Invitation? {
        try await write { db in
            try db.execute(sql: "UPDATE invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
                           arguments: [now.timeIntervalSince1970, tokenHash, now.timeIntervalSince1970])
            guard db.changesCount > 0 else { return nil }
            return try Row.fetchOne(db, sql: "SELECT \(InvitationColumn.selectList()) FROM invitations WHERE token_hash = ?", arguments: [tokenHash])
                .map(Invitation.init(row:))
        }
    }

    package func deleteInvitation(tokenHash: String, appID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM invitations WHERE token_hash = ? AND app_id = ? AND used_at IS NULL", arguments: [tokenHash, appID])
            return db.changesCount > 0
        }
    }

    package func createUserSession(_ session: UserSessionRecord) async throws {
        try await write { db in
            try db.execute(sql: "INSERT INTO user_sessions (hash, user_id, created_at, expires_at, address, user_agent) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [session.hash, session.userID, session.createdAt.timeIntervalSince1970, session.expiresAt.timeIntervalSince1970,
                                       session.address, session.userAgent])
        }
    }

    package func userSession(hash: String, now: Date) async throws -> UserSessionRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(UserSessionColumn.selectList()) FROM user_sessions WHERE hash = ? AND expires_at > ?",
                             arguments: [hash, now.timeIntervalSince1970]).map(UserSessionRecord.init(row:))
        }
    }

    package func userSessions(userID: String, now: Date) async throws -> [UserSessionRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(UserSessionColumn.selectList()) FROM user_sessions WHERE user_id = ? AND expires_at > ? ORDER BY created_at DESC, hash
                """, arguments: [userID, now.timeIntervalSince1970]).map(UserSessionRecord.init(row:))
        }
    }

    package func deleteUserSession(hash: String, userID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM user_sessions WHERE hash = ? AND user_id = ?", arguments: [hash, userID])
            return db.changesCount > 0
        }
    }

    package func purgeUserSessions(expiredBefore date: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM user_sessions WHERE expires_at < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }
}
#endif
