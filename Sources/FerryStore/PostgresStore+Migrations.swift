#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// Migrations, in order; each runs once, in a transaction, under an advisory lock.
    static let migrations: [(name: String, sql: [String])] = [
        ("v1", [
            """
            CREATE TABLE apps (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
                ios_team_id TEXT,
                ios_bundle_ids TEXT NOT NULL DEFAULT '[]',
                ios_app_store_id TEXT,
                ios_url_scheme TEXT,
                android_package TEXT,
                android_sha256 TEXT NOT NULL DEFAULT '[]',
                fallback_url TEXT,
                social_title TEXT,
                social_description TEXT,
                social_image_url TEXT,
                attribution_window DOUBLE PRECISION NOT NULL DEFAULT 86400,
                copy_to_open BOOLEAN NOT NULL DEFAULT FALSE,
                created_at DOUBLE PRECISION NOT NULL
            )
            """,
            """
            CREATE TABLE domains (
                host TEXT PRIMARY KEY CHECK (host = lower(host) AND length(host) BETWEEN 1 AND 260),
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                position INTEGER NOT NULL
            )
            """,
            "CREATE INDEX domains_app ON domains(app_id, position)",
            """
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                kind TEXT NOT NULL CHECK (kind IN ('publishable', 'secret')),
                environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
                hash TEXT NOT NULL UNIQUE,
                hint TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                revoked_at DOUBLE PRECISION
            )
            """,
            "CREATE INDEX api_keys_app ON api_keys(app_id)",
            """
            CREATE TABLE links (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
                domain TEXT NOT NULL,
                slug TEXT NOT NULL CHECK (slug = lower(slug) AND length(slug) BETWEEN 1 AND 64),
                destination TEXT NOT NULL,
                ios_url TEXT,
                android_url TEXT,
                params TEXT NOT NULL DEFAULT '{}',
                utm_source TEXT, utm_medium TEXT, utm_campaign TEXT, utm_content TEXT, utm_term TEXT,
                campaign TEXT,
                referrer TEXT,
                social_title TEXT, social_description TEXT, social_image_url TEXT,
                expires_at DOUBLE PRECISION,
                disabled BOOLEAN NOT NULL DEFAULT FALSE,
                created_at DOUBLE PRECISION NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL,
                CONSTRAINT links_domain_slug UNIQUE (domain, slug)
            )
            """,
            "CREATE INDEX links_app_env_seq ON links(app_id, environment, seq)",
            // Clicks by day (UTC): a day past the retention is dropped as a whole partition, not deleted row by row.
            // The partitions are made ahead of time (`prepareClickStorage`); clicks of a day without one land in
            // the default partition.
            """
            CREATE TABLE clicks (
                id TEXT NOT NULL,
                link_id TEXT NOT NULL,
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                ip_hash TEXT,
                network_hash TEXT,
                user_agent TEXT,
                platform TEXT NOT NULL,
                referer TEXT,
                query TEXT,
                accept_language TEXT,
                os_version TEXT,
                apple_device TEXT,
                PRIMARY KEY (id, created_at)
            ) PARTITION BY RANGE (created_at)
            """,
            "CREATE TABLE clicks_default PARTITION OF clicks DEFAULT",
            "CREATE INDEX clicks_link_created ON clicks(link_id, created_at)",
            "CREATE INDEX clicks_app_created ON clicks(app_id, created_at)",
            "CREATE INDEX clicks_app_address ON clicks(app_id, ip_hash, created_at)",
            "CREATE INDEX clicks_app_network ON clicks(app_id, network_hash, created_at)",
            "CREATE INDEX clicks_app_crowd ON clicks(app_id, environment, platform, created_at)",
            "CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE change_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), value BIGINT NOT NULL)",
            "INSERT INTO change_epoch (id, value) VALUES (1, 0)",
            // Every change to what the edge caches moves the counter and tells listening nodes.
            """
            CREATE FUNCTION ferry_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE change_epoch SET value = value + 1 WHERE id = 1;
                PERFORM pg_notify('ferry_changes', TG_TABLE_NAME);
                RETURN NULL;
            END
            $$
            """,
            "CREATE TRIGGER apps_changed AFTER INSERT OR UPDATE OR DELETE ON apps FOR EACH STATEMENT EXECUTE FUNCTION ferry_changed()",
            "CREATE TRIGGER domains_changed AFTER INSERT OR UPDATE OR DELETE ON domains FOR EACH STATEMENT EXECUTE FUNCTION ferry_changed()",
            "CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION ferry_changed()",
            "CREATE TRIGGER links_changed AFTER INSERT OR UPDATE OR DELETE ON links FOR EACH STATEMENT EXECUTE FUNCTION ferry_changed()",
            """
            CREATE TABLE click_signals (
                click_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                received_at DOUBLE PRECISION NOT NULL,
                platform TEXT,
                screen_width INTEGER CHECK (screen_width IS NULL OR screen_width BETWEEN 1 AND 20000),
                screen_height INTEGER CHECK (screen_height IS NULL OR screen_height BETWEEN 1 AND 20000),
                screen_scale DOUBLE PRECISION CHECK (screen_scale IS NULL OR (screen_scale > 0 AND screen_scale <= 10)),
                time_zone TEXT,
                time_zone_offset INTEGER,
                languages TEXT NOT NULL DEFAULT '[]',
                fingerprint TEXT
            )
            """,
            "CREATE INDEX click_signals_fingerprint ON click_signals(app_id, fingerprint, received_at)",
            "CREATE INDEX click_signals_received ON click_signals(received_at)",
            """
            CREATE TABLE attributions (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
                install_id TEXT NOT NULL CHECK (length(install_id) BETWEEN 1 AND 128),
                click_id TEXT CONSTRAINT attributions_click UNIQUE,
                link_id TEXT,
                match_type TEXT CHECK (match_type IS NULL OR match_type IN ('deterministic', 'probabilistic')),
                confidence DOUBLE PRECISION CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
                created_at DOUBLE PRECISION NOT NULL,
                CHECK ((click_id IS NULL) = (match_type IS NULL)),
                CONSTRAINT attributions_install UNIQUE (app_id, environment, install_id)
            )
            """,
            """
            CREATE TABLE user_bindings (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                environment TEXT NOT NULL,
                user_id TEXT NOT NULL CHECK (length(user_id) BETWEEN 1 AND 128),
                install_id TEXT NOT NULL,
                attribution_seq BIGINT REFERENCES attributions(seq),
                created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (app_id, environment, user_id)
            )
            """,
            """
            CREATE TABLE events (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                name TEXT NOT NULL,
                install_id TEXT,
                link_id TEXT,
                properties TEXT NOT NULL DEFAULT '{}',
                occurred_at DOUBLE PRECISION NOT NULL,
                received_at DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX events_app_name ON events(app_id, name, occurred_at)",
        ]),
        ("v2-stats", StatsSchema.statements(day: { "FLOOR(\($0) / 86400)::INTEGER" })),
        ("v3-webhooks", WebhookSchema.statements(real: "DOUBLE PRECISION")),
        // Statistics come from the roll-ups: nothing reads clicks by link, and the index cost a write per click.
        ("v4-click-indexes", ["DROP INDEX IF EXISTS clicks_link_created"]),
        // A link's change no longer moves the counter that makes every node forget everything: it is logged by place
        // with its transaction's id, and nodes forget that one link. Transactions commit out of the order in which
        // they wrote, so a node reads the entries of every transaction not finished at its last look (by snapshot
        // xmin), not the entries after the last one it saw.
        ("v5-link-changes", [
            "DROP TRIGGER links_changed ON links",
            """
            CREATE TABLE link_changes (
                xid BIGINT NOT NULL DEFAULT pg_current_xact_id()::text::bigint,
                domain TEXT NOT NULL,
                slug TEXT NOT NULL,
                changed_at DOUBLE PRECISION NOT NULL DEFAULT EXTRACT(EPOCH FROM clock_timestamp())
            )
            """,
            "CREATE INDEX link_changes_xid ON link_changes(xid)",
            "CREATE INDEX link_changes_changed ON link_changes(changed_at)",
            "CREATE TABLE link_changes_horizon (id INTEGER PRIMARY KEY CHECK (id = 1), xid BIGINT NOT NULL)",
            "INSERT INTO link_changes_horizon (id, xid) VALUES (1, 0)",
            """
            CREATE FUNCTION ferry_link_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    INSERT INTO link_changes (domain, slug) VALUES (OLD.domain, OLD.slug);
                END IF;
                IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (NEW.domain <> OLD.domain OR NEW.slug <> OLD.slug)) THEN
                    INSERT INTO link_changes (domain, slug) VALUES (NEW.domain, NEW.slug);
                END IF;
                PERFORM pg_notify('ferry_changes', 'links');
                RETURN NULL;
            END
            $$
            """,
            "CREATE TRIGGER links_changed AFTER INSERT OR UPDATE OR DELETE ON links FOR EACH ROW EXECUTE FUNCTION ferry_link_changed()",
        ]),
        ("v6-domain-claims", TenancySchema.domainClaims(real: "DOUBLE PRECISION")),
        ("v7-dashboard-sessions", TenancySchema.dashboardSessions(real: "DOUBLE PRECISION")),
        ("v8-binding-authority", TenancySchema.bindingAuthority),
        ("v9-link-routing", LinkRoutingSchema.statements),
        ("v10-link-paths", [
            // Link domains with a path prefix, and slugs of several segments (up to 128 bytes).
            "ALTER TABLE apps ADD COLUMN \(TenancySchema.pathPrefixesColumn)",
            "ALTER TABLE links DROP CONSTRAINT links_slug_check",
            "ALTER TABLE links ADD CONSTRAINT links_slug_check CHECK (\(TenancySchema.slugCheck(maxLength: 128)))",
        ]),
        ("v11-client-links", ClientLinksSchema.statements(bool: "BOOLEAN", false: "FALSE")),
        ("v12-min-confidence", MinConfidenceSchema.statements(real: "DOUBLE PRECISION")),
        ("v13-attribution-learning", AttributionLearningSchema.statements(real: "DOUBLE PRECISION", identity: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")),
        ("v14-user-clicks", UserClicksSchema.statements()),
        ("v15-click-traffic", ClickTrafficSchema.statements(indexes: false)),
        ("v16-reinstalls", ["ALTER TABLE attributions DROP CONSTRAINT attributions_install"] + ReinstallSchema.statements(real: "DOUBLE PRECISION")),
        ("v17-key-scopes", KeyScopesSchema.statements),
        ("v18-audit-log", AuditSchema.statements(real: "DOUBLE PRECISION", identity: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")),
        ("v19-accounts", AccountSchema.statements(real: "DOUBLE PRECISION")),
    ]

    /// A number no other program uses for `pg_advisory_xact_lock`: Ferry's migrations. The schema's hash is added,
    /// so nodes sharing a schema migrate one at a time while separate schemas (tests, several installs in one
    /// database) do not wait for each other.
    static let migrationLock: Int64 = 0x4665_7272_794D_6967

    func migrate() async throws {
        if let schema {
            // The name was checked to be letters, digits and underscores (PostgresURL); identifiers cannot be bound.
            try await execute(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(schema)\""))
        }
        try await execute("CREATE TABLE IF NOT EXISTS ferry_migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
        let logger = logger
        for migration in Self.migrations {
            try await transaction(bounded: false) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock) + hashtext(current_schema()))", logger: logger)
                let done = try await connection.query("SELECT name FROM ferry_migrations WHERE name = \(migration.name)", logger: logger).collect()
                guard done.isEmpty else { return }
                for statement in migration.sql {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO ferry_migrations (name, applied_at) VALUES (\(migration.name), \(Date().timeIntervalSince1970))", logger: logger)
            }
        }
    }
}
#endif
