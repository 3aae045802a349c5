#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
/// Tables and columns that keep tenants apart, the same statements on SQLite and PostgreSQL but for the type of real
/// numbers: domains waiting for their proof of control, dashboard sessions, and who made each user binding.
enum TenancySchema {
    static func domainClaims(real: String) -> [String] {
        [
            """
            CREATE TABLE domain_claims (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                domain TEXT NOT NULL CHECK (domain = lower(domain) AND length(domain) BETWEEN 1 AND 260),
                token TEXT NOT NULL,
                created_at \(real) NOT NULL,
                PRIMARY KEY (app_id, domain)
            )
            """,
        ]
    }

    static func dashboardSessions(real: String) -> [String] {
        [
            """
            CREATE TABLE dashboard_sessions (
                hash TEXT PRIMARY KEY,
                key_hash TEXT NOT NULL,
                created_at \(real) NOT NULL,
                expires_at \(real) NOT NULL
            )
            """,
            "CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at)",
            // Sessions were signed with a key kept in the database, which its readers could sign with too.
            "DELETE FROM settings WHERE name = 'dashboard_session_key'",
        ]
    }

    static let bindingAuthority = [
        // Bindings made before anyone told them apart are believed as little as a publishable key's.
        "ALTER TABLE user_bindings ADD COLUMN authority TEXT NOT NULL DEFAULT 'device' CHECK (authority IN ('device', 'server'))",
    ]
}
#endif
