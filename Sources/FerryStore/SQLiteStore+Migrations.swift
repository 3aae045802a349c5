#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import GRDB

extension SQLiteStore {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
            CREATE TABLE apps (
                id TEXT PRIMARY KEY NOT NULL,
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
                created_at REAL NOT NULL
            );
            CREATE TABLE domains (
                host TEXT PRIMARY KEY NOT NULL CHECK (host = lower(host) AND length(host) BETWEEN 1 AND 260),
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                position INTEGER NOT NULL
            );
            CREATE INDEX domains_app ON domains(app_id, position);
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY NOT NULL,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                kind TEXT NOT NULL CHECK (kind IN ('publishable', 'secret')),
                environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
                hash TEXT NOT NULL UNIQUE,
                hint TEXT NOT NULL,
                created_at REAL NOT NULL,
                revoked_at REAL
            );
            CREATE INDEX api_keys_app ON api_keys(app_id);
            CREATE TABLE links (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
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
                expires_at REAL,
                disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                UNIQUE (domain, slug)
            );
            CREATE INDEX links_app_env_seq ON links(app_id, environment, seq);
            CREATE TABLE clicks (
                id TEXT PRIMARY KEY NOT NULL,
                link_id TEXT NOT NULL,
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                created_at REAL NOT NULL,
                ip_hash TEXT,
                network_hash TEXT,
                user_agent TEXT,
                platform TEXT NOT NULL,
                referer TEXT,
                query TEXT,
                accept_language TEXT
            );
            CREATE INDEX clicks_link_created ON clicks(link_id, created_at);
            CREATE INDEX clicks_app_created ON clicks(app_id, created_at);
            CREATE TABLE settings (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            CREATE TABLE change_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
            INSERT INTO change_epoch (id, value) VALUES (1, 0);
            """)
            for table in ["apps", "domains", "api_keys", "links"] {
                for event in ["INSERT", "UPDATE", "DELETE"] {
                    try db.execute(sql: """
                    CREATE TRIGGER \(table)_\(event.lowercased())_epoch AFTER \(event) ON \(table)
                    BEGIN UPDATE change_epoch SET value = value + 1 WHERE id = 1; END;
                    """)
                }
            }
        }
        migrator.registerMigration("v2-attribution") { db in
            try db.execute(sql: """
            ALTER TABLE apps ADD COLUMN attribution_window REAL NOT NULL DEFAULT 86400;
            ALTER TABLE apps ADD COLUMN copy_to_open INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE clicks ADD COLUMN os_version TEXT;
            ALTER TABLE clicks ADD COLUMN apple_device TEXT;
            CREATE INDEX clicks_app_address ON clicks(app_id, ip_hash, created_at);
            CREATE INDEX clicks_app_network ON clicks(app_id, network_hash, created_at);
            CREATE INDEX clicks_app_crowd ON clicks(app_id, environment, platform, created_at);
            CREATE TABLE click_signals (
                click_id TEXT PRIMARY KEY NOT NULL,
                app_id TEXT NOT NULL,
                received_at REAL NOT NULL,
                platform TEXT,
                screen_width INTEGER CHECK (screen_width IS NULL OR screen_width BETWEEN 1 AND 20000),
                screen_height INTEGER CHECK (screen_height IS NULL OR screen_height BETWEEN 1 AND 20000),
                screen_scale REAL CHECK (screen_scale IS NULL OR (screen_scale > 0 AND screen_scale <= 10)),
                time_zone TEXT,
                time_zone_offset INTEGER,
                languages TEXT NOT NULL DEFAULT '[]',
                fingerprint TEXT
            );
            CREATE INDEX click_signals_fingerprint ON click_signals(app_id, fingerprint, received_at);
            CREATE INDEX click_signals_received ON click_signals(received_at);
            CREATE TABLE attributions (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
                install_id TEXT NOT NULL CHECK (length(install_id) BETWEEN 1 AND 128),
                click_id TEXT UNIQUE,
                link_id TEXT,
                match_type TEXT CHECK (match_type IS NULL OR match_type IN ('deterministic', 'probabilistic')),
                confidence REAL CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
                created_at REAL NOT NULL,
                CHECK ((click_id IS NULL) = (match_type IS NULL)),
                UNIQUE (app_id, environment, install_id)
            );
            CREATE TABLE user_bindings (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                environment TEXT NOT NULL,
                user_id TEXT NOT NULL CHECK (length(user_id) BETWEEN 1 AND 128),
                install_id TEXT NOT NULL,
                attribution_seq INTEGER REFERENCES attributions(seq),
                created_at REAL NOT NULL,
                PRIMARY KEY (app_id, environment, user_id)
            );
            CREATE TABLE events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                name TEXT NOT NULL,
                install_id TEXT,
                link_id TEXT,
                properties TEXT NOT NULL DEFAULT '{}',
                occurred_at REAL NOT NULL,
                received_at REAL NOT NULL
            );
            CREATE INDEX events_app_name ON events(app_id, name, occurred_at);
            """)
        }
        migrator.registerMigration("v3-click-expiry") { db in
            try db.execute(sql: "CREATE INDEX clicks_created ON clicks(created_at)")
        }
        registerStatsMigration(&migrator)
        registerWebhookMigration(&migrator)
        migrator.registerMigration("v6-click-indexes") { db in
            // Statistics come from the roll-ups, so nothing reads clicks by link any more; the index cost a random
            // write for every click recorded.
            try db.execute(sql: "DROP INDEX IF EXISTS clicks_link_created")
        }
        registerVisitorsMigration(&migrator)
        migrator.registerMigration("v8-attributable-click-indexes") { db in
            // Only clicks that can lead to an install are looked up by address or network; indexing the others (a
            // desktop browser's, a bot's) was a write at a random place of two large indexes for every such click.
            // The condition is the candidate queries' as it was written then (v19 adds the click's kind).
            try db.execute(sql: """
                DROP INDEX clicks_app_address;
                DROP INDEX clicks_app_network;
                CREATE INDEX clicks_app_address ON clicks(app_id, ip_hash, created_at) WHERE platform IN ('ios', 'android');
                CREATE INDEX clicks_app_network ON clicks(app_id, network_hash, created_at) WHERE platform IN ('ios', 'android');
                """)
        }
        migrator.registerMigration("v9-link-changes") { db in
            // A link's change no longer moves the counter that makes every cache forget everything: it is logged by
            // place, and caches forget that one link. One writer at a time, so `seq` grows in commit order.
            try db.execute(sql: """
                DROP TRIGGER links_insert_epoch;
                DROP TRIGGER links_update_epoch;
                DROP TRIGGER links_delete_epoch;
                CREATE TABLE link_changes (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    domain TEXT NOT NULL,
                    slug TEXT NOT NULL,
                    changed_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
                );
                CREATE INDEX link_changes_changed ON link_changes(changed_at);
                CREATE TRIGGER links_insert_change AFTER INSERT ON links
                BEGIN INSERT INTO link_changes (domain, slug) VALUES (NEW.domain, NEW.slug); END;
                CREATE TRIGGER links_update_change AFTER UPDATE ON links
                BEGIN
                    INSERT INTO link_changes (domain, slug) VALUES (OLD.domain, OLD.slug);
                    INSERT INTO link_changes (domain, slug) SELECT NEW.domain, NEW.slug WHERE NEW.domain <> OLD.domain OR NEW.slug <> OLD.slug;
                END;
                CREATE TRIGGER links_delete_change AFTER DELETE ON links
                BEGIN INSERT INTO link_changes (domain, slug) VALUES (OLD.domain, OLD.slug); END;
                """)
        }
        registerDomainClaimsMigration(&migrator)
        registerSessionsMigration(&migrator)
        migrator.registerMigration("v12-binding-authority") { db in
            for statement in TenancySchema.bindingAuthority { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v13-link-routing") { db in
            for statement in LinkRoutingSchema.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v14-link-paths") { db in
            // Link domains with a path prefix, and slugs of several segments (up to 128 bytes): SQLite cannot change a
            // CHECK, so `links` is built again.
            try db.execute(sql: "ALTER TABLE apps ADD COLUMN \(TenancySchema.pathPrefixesColumn)")
            try rebuild("links", in: db) {
                $0.replacingOccurrences(of: TenancySchema.slugCheck(maxLength: 64), with: TenancySchema.slugCheck(maxLength: 128))
            }
        }
        migrator.registerMigration("v15-client-links") { db in
            for statement in ClientLinksSchema.statements(bool: "INTEGER", false: "0") { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v16-min-confidence") { db in
            for statement in MinConfidenceSchema.statements(real: "REAL") { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v17-attribution-learning") { db in
            for statement in AttributionLearningSchema.statements(real: "REAL", identity: "INTEGER PRIMARY KEY") { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v18-user-clicks") { db in
            for statement in UserClicksSchema.statements() { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v19-click-traffic") { db in
            for statement in ClickTrafficSchema.statements(indexes: true) { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v20-reinstalls") { db in
            try rebuild("attributions", in: db) {
                $0.replacingOccurrences(of: #",\s*UNIQUE \(app_id, environment, install_id\)"#, with: "", options: .regularExpression)
            }
            for statement in ReinstallSchema.statements(real: "REAL") { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v21-key-scopes") { db in
            for statement in KeyScopesSchema.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v22-audit-log") { db in
            for statement in AuditSchema.statements(real: "REAL", identity: "INTEGER PRIMARY KEY AUTOINCREMENT") { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v23-accounts") { db in
            for statement in AccountSchema.statements(real: "REAL") { try db.execute(sql: statement) }
        }
        return migrator
    }

    /// Builds a table again from its definition as `change` rewrites it, keeping its rows, indexes, triggers and
    /// AUTOINCREMENT counter (SQLite's way to change what `ALTER TABLE` cannot: https://sqlite.org/lang_altertable.html).
    /// The definition is the one the database holds, so columns added since the table was created are kept.
    static func rebuild(_ table: String, in db: Database, change: (String) -> String) throws {
        let definitions = "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL"
        guard let definition = try String.fetchOne(db, sql: definitions + " AND type = 'table'", arguments: [table]) else {
            throw StoreCorruption(message: "table \(table) is missing")
        }
        let changed = change(definition)
        let creation = "CREATE TABLE \(table) ("
        guard changed != definition, changed.hasPrefix(creation) else {
            throw StoreCorruption(message: "the definition of \(table) is not the one this migration changes")
        }
        let dependents = try String.fetchAll(db, sql: definitions + " AND type IN ('index', 'trigger') ORDER BY rowid", arguments: [table])
        let counter = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table])
        let rebuilt = "\(table)_rebuilt"
        try db.execute(sql: "CREATE TABLE \(rebuilt) (" + changed.dropFirst(creation.count))
        try db.execute(sql: "INSERT INTO \(rebuilt) SELECT * FROM \(table)")
        try db.execute(sql: "DROP TABLE \(table)")
        try db.execute(sql: "ALTER TABLE \(rebuilt) RENAME TO \(table)")
        for statement in dependents { try db.execute(sql: statement) }
        if let counter {
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = ?", arguments: [table])
            try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [table, counter])
        }
    }
}
#endif
