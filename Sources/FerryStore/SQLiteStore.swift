import FerryAPI
import FerryCore
import Foundation
import GRDB
import Synchronization

/// Ferry's store on one SQLite file (GRDB, WAL mode), or in memory for tests.
///
/// One `DatabasePool` per file; every constraint lives in the schema; migrations run when the store opens, so any
/// process (the server or the CLI) may open a fresh file first.
public final class SQLiteStore: FerryDatabase, ImmediateLinkReading, BlockingClickWriting {
    let writer: any DatabaseWriter
    /// Read-only connections for `linkImmediately`, each used by one caller at a time.
    private let immediateReaders: [DatabaseQueue]
    /// Which of them are free: a caller that finds none free does not wait.
    private let freeImmediateReaders: Mutex<[Int]>
    /// Large attribution-window counts, remembered for a few seconds.
    let crowdCounts = CrowdCounts()
    /// Writes other than the click recorder's batches that are waiting or under way.
    private let otherWrites = Atomic<Int>(0)
    /// Copies the write-ahead log back into the file (nil in memory).
    private let checkpointer: LogCheckpointer?
    /// Clicks per transaction in `recordClicksBlocking`, as fits `clickTransactionTarget` at the last one's pace.
    private let clickTransactionSize = Atomic<Int>(SQLiteStore.clicksBetweenYields)
    /// How long `recordClicksBlocking` waits before its next transaction (nanoseconds): 0, or more while its last
    /// transaction found the processor saturated.
    private let starvedWriterPause = Atomic<Int64>(0)

    /// Opens (creating if needed) the database at `path` and migrates it.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // The writer keeps more pages in memory: each batch of clicks touches the pages of several indexes, and
            // reading them back from the file for every batch was a good part of the cost of recording a click.
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = -32768")
                // `LogCheckpointer` copies the log back beside the writer, every second; the commit that takes the
                // log past 32 MiB finishes the job (what is left since that copy) so that the log starts over.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 8192")
            }
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        writer = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(writer)
        var readOnly = configuration
        readOnly.readonly = true
        let count = min(8, max(2, ProcessInfo.processInfo.activeProcessorCount))
        immediateReaders = try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: readOnly) }
        freeImmediateReaders = Mutex(Array(0..<count))
        checkpointer = try LogCheckpointer(path: path, configuration: configuration, interval: 1)
    }

    /// An in-memory database (one connection), for tests.
    public init(inMemory: Void = ()) throws {
        writer = try DatabaseQueue()
        try Self.migrator.migrate(writer)
        immediateReaders = []
        freeImmediateReaders = Mutex([])
        checkpointer = nil
    }

    // MARK: Schema

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
            // The condition is `CandidateQuery.attributablePlatformsSQL` as it was written then: queries repeat it.
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
        return migrator
    }

    // MARK: Health

    public func changeEpoch() async throws -> Int64 {
        try await writer.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM change_epoch WHERE id = 1") ?? 0 }
    }

    public func linkChanges(since mark: Int64?) async throws -> LinkChanges {
        try await writer.read { db in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM link_changes") ?? 0
            guard let mark else { return LinkChanges(places: [], mark: last) }
            // Committed sequence numbers have no holes (one writer, and a rollback takes its numbers back), so a
            // mark below the first kept entry minus one means entries since it were pruned; one beyond the last,
            // a database put back from a copy.
            let first = try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM link_changes")
            if mark > last || (first.map { mark < $0 - 1 } ?? false) { return LinkChanges(places: nil, mark: last) }
            let rows = try Row.fetchAll(db, sql: "SELECT seq, domain, slug FROM link_changes WHERE seq > ? ORDER BY seq LIMIT ?",
                                        arguments: [mark, LinkChanges.listLimit + 1])
            if rows.count > LinkChanges.listLimit { return LinkChanges(places: nil, mark: last) }
            return LinkChanges(places: rows.map { LinkChanges.Place(domain: $0["domain"], slug: $0["slug"]) },
                               mark: rows.last.map { $0["seq"] } ?? mark)
        }
    }

    public func pruneLinkChanges(before cutoff: Date) async throws -> Int {
        try await write { db in
            // The newest entry stays, so that the log always shows where it stands.
            try db.execute(sql: "DELETE FROM link_changes WHERE changed_at < ? AND seq < (SELECT MAX(seq) FROM link_changes)",
                           arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }

    public func checkHealth() async throws {
        _ = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    public func close() async throws {
        // The immediate readers first: once the writer is the file's last connection, closing it checkpoints the
        // write-ahead log and removes it, so that the next start does not read a large log back.
        let idle = freeImmediateReaders.withLock { free in
            defer { free.removeAll() }
            return free
        }
        for index in idle { try immediateReaders[index].close() }
        try checkpointer?.stop()
        try writer.close()
    }

    // MARK: Apps

    public func createApp(_ app: App) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO apps (id, name, ios_team_id, ios_bundle_ids, ios_app_store_id, ios_url_scheme, android_package,
                    android_sha256, fallback_url, social_title, social_description, social_image_url, attribution_window,
                    copy_to_open, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [app.id] + Self.appArguments(app) + [app.createdAt.timeIntervalSince1970])
            try Self.insertDomains(app, db: db)
        }
    }

    public func updateApp(_ app: App) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                UPDATE apps SET name = ?, ios_team_id = ?, ios_bundle_ids = ?, ios_app_store_id = ?, ios_url_scheme = ?,
                    android_package = ?, android_sha256 = ?, fallback_url = ?, social_title = ?, social_description = ?,
                    social_image_url = ?, attribution_window = ?, copy_to_open = ?
                WHERE id = ?
                """, arguments: Self.appArguments(app) + [app.id])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "DELETE FROM domains WHERE app_id = ?", arguments: [app.id])
            try Self.insertDomains(app, db: db)
            return true
        }
    }

    public func app(id: String) async throws -> App? {
        try await readHere { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM apps WHERE id = ?"), arguments: [id]).map { try Self.decodeApp($0, db: db) }
        }
    }

    public func app(forDomain host: String) async throws -> App? {
        try await writer.read { db in
            let statement = try db.cachedStatement(sql: "SELECT apps.* FROM apps JOIN domains ON domains.app_id = apps.id WHERE domains.host = ?")
            return try Row.fetchOne(statement, arguments: [host]).map { try Self.decodeApp($0, db: db) }
        }
    }

    public func listApps() async throws -> [App] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY created_at, id").map { try Self.decodeApp($0, db: db) }
        }
    }

    private static func appArguments(_ app: App) -> StatementArguments {
        [
            app.name, app.ios.teamID, JSONText.encode(app.ios.bundleIDs), app.ios.appStoreID, app.ios.urlScheme,
            app.android.packageName, JSONText.encode(app.android.sha256Fingerprints), app.fallbackURL,
            app.social.title, app.social.description, app.social.imageURL, app.attribution.window, app.attribution.copyToOpen,
        ]
    }

    private static func insertDomains(_ app: App, db: Database) throws {
        // One writer at a time: no other app's domains can change between this read and the inserts.
        let taken = try String.fetchAll(db, sql: "SELECT host FROM domains WHERE app_id <> ?", arguments: [app.id])
        if let conflict = StoreConflict.domainConflict(of: app, othersOwn: taken) { throw conflict }
        for (position, host) in app.domains.enumerated() {
            do {
                try db.execute(sql: "INSERT INTO domains (host, app_id, position) VALUES (?, ?, ?)", arguments: [host, app.id, position])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                throw StoreConflict(field: "domain", message: "domain '\(host)' already belongs to an app")
            }
        }
    }

    private static func decodeApp(_ row: Row, db: Database) throws -> App {
        let id: String = row["id"]
        let domains = try String.fetchAll(db.cachedStatement(sql: "SELECT host FROM domains WHERE app_id = ? ORDER BY position"), arguments: [id])
        return App(
            id: id, name: row["name"], domains: domains,
            ios: IOSSettings(teamID: row["ios_team_id"], bundleIDs: JSONText.decode(row["ios_bundle_ids"]) ?? [],
                             appStoreID: row["ios_app_store_id"], urlScheme: row["ios_url_scheme"]),
            android: AndroidSettings(packageName: row["android_package"], sha256Fingerprints: JSONText.decode(row["android_sha256"]) ?? []),
            fallbackURL: row["fallback_url"],
            social: SocialMetadata(title: row["social_title"], description: row["social_description"], imageURL: row["social_image_url"]),
            attribution: AttributionSettings(window: row["attribution_window"], copyToOpen: row["copy_to_open"]),
            createdAt: Date(timeIntervalSince1970: row["created_at"])
        )
    }

    // MARK: Keys

    public func createKey(_ key: APIKeyRecord) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO api_keys (id, app_id, kind, environment, hash, hint, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [key.id, key.appID, key.kind.rawValue, key.environment.rawValue, key.hash, key.hint,
                                 key.createdAt.timeIntervalSince1970, key.revokedAt?.timeIntervalSince1970])
        }
    }

    public func key(hash: String) async throws -> APIKeyRecord? {
        try await readHere { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM api_keys WHERE hash = ?"), arguments: [hash]).map(Self.decodeKey)
        }
    }

    public func keys(appID: String) async throws -> [APIKeyRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM api_keys WHERE app_id = ? ORDER BY created_at, id", arguments: [appID]).map(Self.decodeKey)
        }
    }

    public func revokeKey(id: String, at date: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [date.timeIntervalSince1970, id])
            return db.changesCount > 0
        }
    }

    private static func decodeKey(_ row: Row) throws -> APIKeyRecord {
        guard let kind = APIKeyKind(rawValue: row["kind"]), let environment = APIEnvironment(rawValue: row["environment"]) else {
            throw DatabaseError(message: "api_keys row has an unknown kind or environment")
        }
        return APIKeyRecord(
            id: row["id"], appID: row["app_id"], kind: kind, environment: environment, hash: row["hash"], hint: row["hint"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        )
    }

    // MARK: Links

    public func createLink(_ link: Link) async throws {
        try await write { db in
            do {
                try db.execute(sql: """
                    INSERT INTO links (id, app_id, environment, domain, slug, destination, ios_url, android_url, params,
                        utm_source, utm_medium, utm_campaign, utm_content, utm_term, campaign, referrer,
                        social_title, social_description, social_image_url, expires_at, disabled, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [link.id, link.appID, link.environment.rawValue, link.domain, link.slug] + Self.linkContent(link)
                        + [link.createdAt.timeIntervalSince1970, link.updatedAt.timeIntervalSince1970])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw StoreConflict(field: "slug", message: "slug '\(link.slug)' is already taken on \(link.domain)")
            }
        }
    }

    public func updateLink(_ link: Link) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                UPDATE links SET destination = ?, ios_url = ?, android_url = ?, params = ?, utm_source = ?, utm_medium = ?,
                    utm_campaign = ?, utm_content = ?, utm_term = ?, campaign = ?, referrer = ?, social_title = ?,
                    social_description = ?, social_image_url = ?, expires_at = ?, disabled = ?, updated_at = ?
                WHERE id = ? AND app_id = ?
                """, arguments: Self.linkContent(link) + [link.updatedAt.timeIntervalSince1970, link.id, link.appID])
            return db.changesCount > 0
        }
    }

    public func deleteLink(id: String, appID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM links WHERE id = ? AND app_id = ?", arguments: [id, appID])
            return db.changesCount > 0
        }
    }

    public func link(id: String, appID: String) async throws -> Link? {
        try await readHere { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Self.linkColumns) FROM links WHERE id = ? AND app_id = ?")
            return try statement.decodedRow(arguments: [id, appID], Self.decodeLink)
        }
    }

    public func link(domain: String, slug: String) async throws -> Link? {
        try await writer.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Self.linkColumns) FROM links WHERE domain = ? AND slug = ?")
            return try statement.decodedRow(arguments: [domain, slug], Self.decodeLink)
        }
    }

    /// A point read on a connection of its own, on the caller's thread. A link lookup is a few B-tree pages, and
    /// SQLite's readers never wait for its writer (WAL), so the edge can afford it on an event loop.
    public func linkImmediately(domain: String, slug: String) throws -> Link? {
        let read = try onFreeImmediateReader { reader in
            // One statement reads a consistent snapshot by itself: no transaction around it (two fewer statements).
            try reader.inDatabase { db in
                let statement = try db.cachedStatement(sql: "SELECT \(Self.linkColumns) FROM links WHERE domain = ? AND slug = ?")
                return try statement.decodedRow(arguments: [domain, slug], Self.decodeLink)
            }
        }
        guard let read else { throw ImmediateReadUnavailable() }
        return read
    }

    /// `body` on one of the immediate readers, which no other caller uses meanwhile; nil, without waiting, when
    /// none is free.
    private func onFreeImmediateReader<T>(_ body: (DatabaseQueue) throws -> T) rethrows -> T? {
        guard let index = freeImmediateReaders.withLock({ $0.popLast() }) else { return nil }
        defer { freeImmediateReaders.withLock { $0.append(index) } }
        return try body(immediateReaders[index])
    }

    public func listLinks(appID: String, environment: APIEnvironment, limit: Int, after: Int64?) async throws -> LinkPage {
        try await writer.read { db in
            let rows = try db.makeStatement(sql: """
                SELECT \(Self.linkColumns) FROM links WHERE app_id = ? AND environment = ? AND seq < ? ORDER BY seq DESC LIMIT ?
                """).decodedRows(arguments: [appID, environment.rawValue, after ?? Int64.max, limit + 1]) { row in
                (link: try Self.decodeLink(row), seq: try row[Self.linkSeqColumn] as Int64)
            }
            let next: Int64? = rows.count > limit ? rows[limit - 1].seq : nil
            return LinkPage(links: rows.prefix(limit).map(\.link), nextCursor: next)
        }
    }

    public func searchLinks(appID: String, environment: APIEnvironment, matching text: String, limit: Int) async throws -> [Link] {
        let pattern = containsPattern(text)
        return try await writer.read { db in
            try db.makeStatement(sql: """
                SELECT \(Self.linkColumns) FROM links WHERE app_id = ? AND environment = ?
                    AND (lower(slug) LIKE ? ESCAPE '\\' OR lower(destination) LIKE ? ESCAPE '\\' OR lower(COALESCE(campaign, '')) LIKE ? ESCAPE '\\')
                ORDER BY seq DESC LIMIT ?
                """).decodedRows(arguments: [appID, environment.rawValue, pattern, pattern, pattern, limit], Self.decodeLink)
        }
    }

    private static func linkContent(_ link: Link) -> StatementArguments {
        [
            link.destination, link.iosURL, link.androidURL, JSONText.encode(link.params),
            link.utm.source, link.utm.medium, link.utm.campaign, link.utm.content, link.utm.term,
            link.campaign, link.referrer, link.social.title, link.social.description, link.social.imageURL,
            link.expiresAt?.timeIntervalSince1970, link.disabled,
        ]
    }

    /// The columns of a link, in the order `decodeLink` reads them by position: a column found by name costs a
    /// lowercased copy of every name it is compared with, and a link has two dozen (a fifth of a cache miss's time).
    static let linkColumns = """
        id, app_id, environment, domain, slug, destination, ios_url, android_url, params, utm_source, utm_medium, \
        utm_campaign, utm_content, utm_term, campaign, referrer, social_title, social_description, social_image_url, \
        expires_at, disabled, created_at, updated_at, seq
        """
    /// The position of `seq` in `linkColumns`.
    static let linkSeqColumn = 23

    private static func decodeLink(_ row: StatementColumns) throws -> Link {
        guard let environment = APIEnvironment(rawValue: try row[2]) else {
            throw DatabaseError(message: "links row has an unknown environment")
        }
        return try Link(
            id: row[0], appID: row[1], environment: environment, domain: row[3], slug: row[4],
            destination: row[5], iosURL: row[6], androidURL: row[7],
            params: JSONText.decode(row[8] as String?) ?? [:],
            utm: UTMParameters(source: row[9], medium: row[10], campaign: row[11], content: row[12], term: row[13]),
            campaign: row[14], referrer: row[15],
            social: SocialMetadata(title: row[16], description: row[17], imageURL: row[18]),
            expiresAt: (row[19] as Double?).map(Date.init(timeIntervalSince1970:)),
            disabled: row[20],
            createdAt: Date(timeIntervalSince1970: row[21]),
            updatedAt: Date(timeIntervalSince1970: row[22])
        )
    }

    // MARK: Clicks

    public func recordClicks(_ clicks: [Click]) async throws {
        guard !clicks.isEmpty else { return }
        try await writer.write { db in _ = try Self.insertClicks(clicks[...], db: db) }
    }

    /// Writes on the calling thread (GRDB runs a synchronous write there, once the writer connection is free), in
    /// transactions sized to hold the database for about `clickTransactionTarget` each: the recorder's thread runs
    /// at a low priority, and while the processor is saturated it writes many times slower, so its transactions
    /// shrink rather than keep a link's creation waiting for seconds. A transaction also gives way to any other
    /// write that comes meanwhile: it commits what it has written, lets that write through, and goes on. A
    /// transaction during which the thread had the processor less than a quarter of the time says the machine is
    /// saturated: the thread then waits (a tenth of a second, doubling up to two seconds) before taking the database
    /// again, so that a starved writer holds it as little as it can.
    public func recordClicksBlocking(_ clicks: [Click]) throws {
        var rest = clicks[...]
        while !rest.isEmpty {
            let pause = starvedWriterPause.load(ordering: .relaxed)
            if pause > 0 { Thread.sleep(forTimeInterval: Double(pause) / 1e9) }
            let chunk = rest.prefix(clickTransactionSize.load(ordering: .relaxed))
            let started = ContinuousClock.now
            let startedWorking = ThreadClock.now()
            let written = try writer.write { db in
                try Self.insertClicks(chunk, db: db, givingWay: { self.otherWrites.load(ordering: .relaxed) > 0 })
            }
            let elapsed = ContinuousClock.now - started
            let perClick = elapsed / written
            let fitting = perClick > .zero ? Int(Self.clickTransactionTarget / perClick) : Int.max
            clickTransactionSize.store(min(Self.largestClickTransaction, max(Self.clicksBetweenYields, fitting)), ordering: .relaxed)
            rest = rest.dropFirst(written)
            let working = startedWorking.flatMap { start in ThreadClock.now().map { $0 - start } }
            if let working, elapsed > .milliseconds(10), working * 4 < elapsed {
                starvedWriterPause.store(min(max(pause * 2, Self.starvedPause), Self.longestStarvedPause), ordering: .relaxed)
            } else {
                starvedWriterPause.store(0, ordering: .relaxed)
            }
        }
    }

    /// How long a starved click writer first waits before taking the database again, and at most (nanoseconds).
    static let starvedPause: Int64 = 100_000_000
    static let longestStarvedPause: Int64 = 2_000_000_000

    /// How long a transaction of clicks written by `recordClicksBlocking` should hold the database.
    static let clickTransactionTarget = Duration.milliseconds(200)
    /// The most clicks in one transaction (more clicks per transaction write fewer index pages per click).
    static let largestClickTransaction = 20_000

    /// How many clicks are inserted between two looks at whether another write is waiting, and the fewest a
    /// transaction takes.
    static let clicksBetweenYields = 16

    /// Inserts clicks (ignoring ids already stored) and adds the roll-up increments of those stored; stops early,
    /// after a multiple of `clicksBetweenYields`, once `givingWay` says so. Returns how many it took.
    static func insertClicks(_ clicks: ArraySlice<Click>, db: Database, givingWay: () -> Bool = { false }) throws -> Int {
        let statement = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO clicks (id, link_id, app_id, environment, created_at, ip_hash, network_hash, user_agent,
                platform, referer, query, accept_language, os_version, apple_device)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var stored: [Click] = []
        stored.reserveCapacity(clicks.count)
        var taken = 0
        for click in clicks {
            if taken > 0, taken % clicksBetweenYields == 0, givingWay() { break }
            taken += 1
            try statement.execute(arguments: [
                click.id, click.linkID, click.appID, click.environment.rawValue, click.createdAt.timeIntervalSince1970,
                click.ipHash, click.networkHash, click.userAgent, click.platform.rawValue, click.referer, click.query,
                click.acceptLanguage, click.osVersion, click.appleDevice,
            ])
            if db.changesCount > 0 { stored.append(click) }
        }
        try addClickStats(stored, db: db)
        return taken
    }

    /// A read the API makes on every request it serves (its key, its app, a match's candidates): on the caller's
    /// thread, in a transaction of its own, when one of the immediate readers is free, else through the pool. A
    /// read in WAL mode never waits for the writer, so it is work the caller would wait for anyway; doing it here
    /// saves the two thread switches of handing it to a reader's queue and back (a sixth of a match's processor
    /// time went on those switches).
    func readHere<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        if let read = try onFreeImmediateReader({ reader in try reader.read(body) }) { return read }
        return try await writer.read(body)
    }

    /// Every write but the click recorder's goes through here, so that a batch of clicks gives way to it.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        otherWrites.add(1, ordering: .relaxed)
        defer { otherWrites.subtract(1, ordering: .relaxed) }
        return try await writer.write(updates)
    }

    public func clickCount(linkID: String) async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM clicks WHERE link_id = ?", arguments: [linkID]) ?? 0 }
    }

    public func click(id: String) async throws -> Click? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM clicks WHERE id = ?", arguments: [id]).map(Self.decodeClick)
        }
    }

    /// A click row.
    static func decodeClick(_ row: Row) -> Click {
        Click(
            id: row["id"], linkID: row["link_id"], appID: row["app_id"],
            environment: APIEnvironment(rawValue: row["environment"]) ?? .live,
            createdAt: Date(timeIntervalSince1970: row["created_at"]), ipHash: row["ip_hash"], networkHash: row["network_hash"],
            userAgent: row["user_agent"], platform: ClientPlatform(rawValue: row["platform"]) ?? .other,
            referer: row["referer"], query: row["query"], acceptLanguage: row["accept_language"],
            osVersion: row["os_version"], appleDevice: row["apple_device"]
        )
    }

    /// Nothing to ready: one table, indexed by time.
    public func prepareClickStorage(now: Date) async throws {}

    public func expireClicks(before cutoff: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM clicks WHERE created_at < ?", arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }

    // MARK: Settings

    public func setting(_ name: String) async throws -> String? {
        try await writer.read { db in try String.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [name]) }
    }

    public func insertSettingIfAbsent(_ name: String, value: String) async throws -> String {
        try await write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)", arguments: [name, value])
            return try String.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [name]) ?? value
        }
    }
}

/// JSON text columns (params, bundle ids, fingerprints).
enum JSONText {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    static func decode<T: Decodable>(_ text: String?) -> T? {
        guard let text else { return nil }
        // Most links have no params: an empty object needs no JSON decoder.
        if text == "{}", let empty = [String: String]() as? T { return empty }
        // An app's bundle ids and fingerprints are read with every API request it makes.
        if T.self == [String].self, let list = plainStrings(text) as? T { return list }
        return try? JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    /// A JSON array of strings as `encode` writes it (`["a","b"]`, no spaces), when no string holds an escape; nil for
    /// anything else, which the JSON decoder then reads.
    static func plainStrings(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]"), !bytes.contains(UInt8(ascii: "\\")) else { return nil }
        var list: [String] = []
        var index = 1
        let end = bytes.count - 1
        while index < end {
            guard bytes[index] == UInt8(ascii: "\""), let close = bytes[(index + 1)..<end].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            guard bytes[(index + 1)..<close].allSatisfy({ $0 >= 0x20 }) else { return nil }
            list.append(String(decoding: bytes[(index + 1)..<close], as: UTF8.self))
            index = close + 1
            if index < end {
                guard bytes[index] == UInt8(ascii: ","), index + 1 < end else { return nil }
                index += 1
            }
        }
        return list
    }
}

/// The processor time the calling thread has used.
enum ThreadClock {
    /// Now, on the calling thread's clock; nil where the system has no such clock.
    static func now() -> Duration? {
        #if os(Linux)
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return nil }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        #else
        return nil
        #endif
    }
}
