#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation

/// People's accounts, the same on SQLite and PostgreSQL: users, their roles per app, invitations, and their
/// sessions. Removing a user removes their memberships and sessions with them (foreign keys), so a removed account
/// is signed out at once.
enum AccountSchema {
    static let roles = "('owner', 'admin', 'editor', 'viewer')"

    static func statements(real: String) -> [String] {
        [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
                password_hash TEXT NOT NULL,
                created_at \(real) NOT NULL,
                password_changed_at \(real) NOT NULL
            )
            """,
            """
            CREATE TABLE memberships (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                role TEXT NOT NULL CHECK (role IN \(roles)),
                created_at \(real) NOT NULL,
                PRIMARY KEY (user_id, app_id)
            )
            """,
            "CREATE INDEX memberships_app ON memberships(app_id)",
            """
            CREATE TABLE invitations (
                token_hash TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                email TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN \(roles)),
                invited_by TEXT NOT NULL,
                created_at \(real) NOT NULL,
                expires_at \(real) NOT NULL,
                used_at \(real)
            )
            """,
            "CREATE INDEX invitations_app ON invitations(app_id)",
            """
            CREATE TABLE user_sessions (
                hash TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at \(real) NOT NULL,
                expires_at \(real) NOT NULL,
                address TEXT,
                user_agent TEXT
            )
            """,
            "CREATE INDEX user_sessions_user ON user_sessions(user_id)",
            "CREATE INDEX user_sessions_expiry ON user_sessions(expires_at)",
        ]
    }
}

extension UserRecord {
    /// A `users` row.
    init(row: some StoreRow) throws {
        let row = row.columns(UserColumn.self)
        try self.init(id: row[.id], email: row[.email], passwordHash: row[.passwordHash], createdAt: Date(timeIntervalSince1970: row[.createdAt]),
                      passwordChangedAt: Date(timeIntervalSince1970: row[.passwordChangedAt]))
    }
}

enum UserColumn: Int, StoreColumn {
    case id, email, passwordHash, createdAt, passwordChangedAt

    var columnName: String {
        switch self {
        case .id: "id"
        case .email: "email"
        case .passwordHash: "password_hash"
        case .createdAt: "created_at"
        case .passwordChangedAt: "password_changed_at"
        }
    }
}

extension Membership {
    /// A `memberships` row, its columns' names after `prefix`.
    init(row: some StoreRow, prefix: String = "") throws {
        let row = row.columns(MembershipColumn.self, prefix: prefix)
        guard let role = MemberRole(rawValue: try row[.role]) else { throw StoreCorruption(message: "memberships row has an unknown role") }
        try self.init(userID: row[.userID], appID: row[.appID], role: role, createdAt: Date(timeIntervalSince1970: row[.createdAt]))
    }
}

enum MembershipColumn: Int, StoreColumn {
    case userID, appID, role, createdAt

    var columnName: String {
        switch self {
        case .userID: "user_id"
        case .appID: "app_id"
        case .role: "role"
        case .createdAt: "created_at"
        }
    }
}

extension Invitation {
    /// An `invitations` row.
    init(row: some StoreRow) throws {
        let row = row.columns(InvitationColumn.self)
        guard let role = MemberRole(rawValue: try row[.role]) else { throw StoreCorruption(message: "invitations row has an unknown role") }
        try self.init(tokenHash: row[.tokenHash], appID: row[.appID], email: row[.email], role: role, invitedBy: row[.invitedBy],
                      createdAt: Date(timeIntervalSince1970: row[.createdAt]), expiresAt: Date(timeIntervalSince1970: row[.expiresAt]),
                      usedAt: (row[.usedAt] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

enum InvitationColumn: Int, StoreColumn {
    case tokenHash, appID, email, role, invitedBy, createdAt, expiresAt, usedAt

    var columnName: String {
        switch self {
        case .tokenHash: "token_hash"
        case .appID: "app_id"
        case .email: "email"
        case .role: "role"
        case .invitedBy: "invited_by"
        case .createdAt: "created_at"
        case .expiresAt: "expires_at"
        case .usedAt: "used_at"
        }
    }
}

extension UserSessionRecord {
    /// A `user_sessions` row.
    init(row: some StoreRow) throws {
        let row = row.columns(UserSessionColumn.self)
        try self.init(hash: row[.hash], userID: row[.userID], createdAt: Date(timeIntervalSince1970: row[.createdAt]),
                      expiresAt: Date(timeIntervalSince1970: row[.expiresAt]), address: row[.address], userAgent: row[.userAgent])
    }
}

enum UserSessionColumn: Int, StoreColumn {
    case hash, userID, createdAt, expiresAt, address, userAgent

    var columnName: String {
        switch self {
        case .hash: "hash"
        case .userID: "user_id"
        case .createdAt: "created_at"
        case .expiresAt: "expires_at"
        case .address: "address"
        case .userAgent: "user_agent"
        }
    }
}
#endif
