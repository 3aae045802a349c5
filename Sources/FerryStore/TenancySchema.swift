#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
/// Tables and columns that keep tenants apart, the same statements on SQLite and PostgreSQL but for the type of real
/// numbers: domains waiting for their proof of control, dashboard sessions, who made each user binding, and how an
/// app's domains shape its links' paths (path prefixes, the slug's CHECK).
enum TenancySchema {
    /// `apps.path_prefixes`: the path prefixes of an app's link domains, a JSON object of domain → prefix.
    static let pathPrefixesColumn = "path_prefixes TEXT NOT NULL DEFAULT '{}'"

    /// The CHECK of `links.slug` (as the first migration wrote it, with 64).
    static func slugCheck(maxLength: Int) -> String {
        "slug = lower(slug) AND length(slug) BETWEEN 1 AND \(maxLength)"
    }

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
