import FerryAPI
import FerryCore
import Foundation
import Logging
import PostgresNIO
import _ConnectionPoolModule  // ConnectionPoolError: how the pool says it gave up connecting
import ServiceLifecycle
import Synchronization

/// Ferry's store on PostgreSQL (PostgresNIO's `PostgresClient`), for several `ferry serve` nodes on one database.
///
/// Every statement binds its values (PostgresNIO's query interpolation); no SQL is built from input. Migrations run
/// when the store opens, under an advisory lock, so nodes that start together migrate once. Times are stored as
/// seconds since 1970, as in the SQLite store, so both stores answer the same to the last digit.
public final class PostgresStore: FerryDatabase {
    let client: PostgresClient
    /// Large attribution-window counts, remembered for a few seconds.
    let crowdCounts = CrowdCounts()
    let logger: Logger
    let schema: String?
    /// The `application_name` of the store's connections: `ferry`, or `ferry/` and the schema.
    let applicationName: String
    /// The connection that listens for change notices, outside the pool.
    let listener: PostgresURL.Listener
    /// How long one operation may take before the store gives up on it (see ``guarded(bounded:_:)``).
    let operationDeadline: Duration
    private let runner: Task<Void, Never>
    /// Probes the server every second while the store is open (see ``isAway``).
    private let monitor = Mutex<Task<Void, Never>?>(nil)
    /// Set when the server was found away (a failed probe, or an operation failing for lack of a connection), cleared
    /// by the next probe that succeeds. While it is set, operations fail at once with `DatabaseUnavailable` instead
    /// of waiting in the pool for a connection that cannot be made.
    let health = Mutex(Health())

    /// What the store knows of its server. Every probe and operation takes a ticket when it starts; what it finds
    /// counts only if nothing that started later has already reported (a probe stuck since before the server came
    /// back must not mark it away again).
    struct Health {
        var away = false
        var nextTicket: UInt64 = 0
        var lastReport: UInt64 = 0

        mutating func ticket() -> UInt64 {
            nextTicket += 1
            return nextTicket
        }

        mutating func report(away: Bool, ticket: UInt64) {
            guard ticket > lastReport else { return }
            lastReport = ticket
            self.away = away
        }
    }

    /// Connects to `url` (`postgres://user:password@host:port/database`, `?sslmode=disable|prefer|require|verify-ca|verify-full`
    /// and `sslrootcert=PATH` as libpq reads them), starts the
    /// connection pool and migrates the schema. An operation that has not finished after `operationDeadline` fails
    /// as the server being away.
    public init(url: String, logger: Logger = PostgresStore.quietLogger, operationDeadline: Duration = PostgresStore.defaultOperationDeadline) async throws {
        let parsed = try PostgresURL(url)
        schema = parsed.schema
        applicationName = parsed.applicationName
        listener = parsed.listener
        self.operationDeadline = operationDeadline
        client = PostgresClient(configuration: parsed.configuration, backgroundLogger: logger)
        self.logger = logger
        let client = client
        runner = Task { await client.run() }
        await Task.yield()
        do {
            // The pool retries a server it cannot reach for a long while: give up on the first contact sooner. The
            // migrations that follow take as long as they take (filling the statistics of a large database, say).
            try await Self.withDeadline(Self.firstContactTimeout) { try await self.client.query("SELECT 1", logger: self.logger) }
            try await migrate()
        } catch let silence as PostgresUnavailable {
            runner.cancel()
            // The pool keeps why its connections fail to itself (a certificate refused, a password wrong): one
            // connection of our own says it.
            guard let reason = await Self.connectionFailure(parsed.listener, logger: logger) else { throw silence }
            throw PostgresUnavailable(message: "\(silence.message); a connection fails with: \(reason)")
        } catch {
            runner.cancel()
            throw error
        }
        let probe = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.probeInterval)
                guard let self, !Task.isCancelled else { return }
                try? await self.checkHealth()
            }
        }
        monitor.withLock { $0 = probe }
    }

    /// How often the store checks that the server answers.
    static let probeInterval = Duration.seconds(1)

    /// Whether the server was found away and has not answered since.
    public var isAway: Bool { health.withLock { $0.away } }

    /// How long an operation may take by default: far longer than any statement Ferry makes should, short enough
    /// that a server that stopped answering does not hold a caller (a request, the cache refresher, a shutdown) for
    /// good.
    public static let defaultOperationDeadline = Duration.seconds(60)

    /// Runs an operation unless the server is known to be away; notes the server away when the operation fails
    /// for lack of it.
    ///
    /// The operation is given ``operationDeadline`` and then abandoned, failing with `PostgresUnavailable`: a
    /// statement whose answer never comes (a connection whose server vanished without closing it, or one the
    /// pool handed out as it was being closed, whose statement is then never sent) must not stop its caller for
    /// ever. The caller's cancellation reaches the operation.
    func guarded<T: Sendable>(bounded: Bool = true, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let ticket = try health.withLock { health in
            if health.away { throw DatabaseUnavailable(message: "PostgreSQL is not answering (checked again every second)") }
            return health.ticket()
        }
        let deadline = operationDeadline
        do {
            guard bounded else { return try await operation() }
            return try await FerryStore.withDeadline(deadline, timeoutError: { PostgresUnavailable(message: "no answer from the server within \(deadline)") },
                                                     operation)
        } catch {
            if isOutage(error) { health.withLock { $0.report(away: true, ticket: ticket) } }
            throw error
        }
    }

    /// Runs a statement whose rows are not read.
    func execute(_ query: PostgresQuery) async throws {
        let client = client, logger = logger
        try await guarded { _ = try await client.query(query, logger: logger) }
    }

    /// How long opening the store waits for the server to answer the first time.
    static let firstContactTimeout = Duration.seconds(15)

    /// Why a connection to the server fails now, or nil when one succeeds (or gives no answer within five seconds).
    static func connectionFailure(_ listener: PostgresURL.Listener, logger: Logger) async -> String? {
        do {
            try await withDeadline(.seconds(5)) {
                let connection = try await PostgresConnection.connect(configuration: try listener.configuration(), id: 0, logger: logger)
                try await connection.close()
            }
            return nil
        } catch is PostgresUnavailable {
            return nil
        } catch let error as PSQLError {
            return error.underlying.map { String(describing: $0) } ?? String(describing: error.code)
        } catch {
            return String(describing: error)
        }
    }

    public func close() async throws {
        monitor.withLock { $0?.cancel() }
        runner.cancel()
        await runner.value
    }

    /// A logger that reports only warnings and errors (the pool reports every connection it opens or loses at `info`).
    public static var quietLogger: Logger {
        var logger = Logger(label: "ferry.postgres")
        logger.logLevel = .warning
        return logger
    }

    /// Runs `body` in a transaction; an error thrown by `body` comes out as itself (a `StoreConflict`, say). Only
    /// the migrations, which take as long as the data they rewrite, are not `bounded` by ``operationDeadline``.
    func transaction<T: Sendable>(bounded: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let client = client, logger = logger
        return try await guarded(bounded: bounded) {
            do {
                return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
            } catch let error as PostgresTransactionError {
                if let inner = error.closureError { throw inner }
                throw error
            }
        }
    }

    // MARK: Schema

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

    // MARK: Health

    public func changeEpoch() async throws -> Int64 {
        try await first("SELECT value FROM change_epoch WHERE id = 1") { try $0["value"].decode(Int64.self) } ?? 0
    }

    public func linkChanges(since mark: Int64?) async throws -> LinkChanges {
        // One statement, one snapshot: every transaction whose entries it cannot see yet has an id at or above its
        // xmin, which becomes the next mark.
        let rows = try await all("""
            SELECT now.xmin, horizon.xid AS horizon, changed.domain, changed.slug
            FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin) now
            CROSS JOIN link_changes_horizon horizon
            LEFT JOIN (SELECT domain, slug FROM link_changes WHERE xid >= \(mark ?? Int64.max) LIMIT \(LinkChanges.listLimit + 1)) changed ON TRUE
            """) { row in
            (try row["xmin"].decode(Int64.self), try row["horizon"].decode(Int64.self),
             try row["domain"].decode(String?.self), try row["slug"].decode(String?.self))
        }
        guard let head = rows.first else { throw StoreCorruption(message: "the horizon of the link change log is missing") }
        guard let mark else { return LinkChanges(places: [], mark: head.0) }
        if head.1 >= mark || rows.count > LinkChanges.listLimit { return LinkChanges(places: nil, mark: head.0) }
        let places = rows.compactMap { row in row.2.flatMap { domain in row.3.map { LinkChanges.Place(domain: domain, slug: $0) } } }
        return LinkChanges(places: places, mark: head.0)
    }

    /// Entries of a transaction still open stay, whatever their age: the horizon stays below every node's mark.
    public func pruneLinkChanges(before cutoff: Date) async throws -> Int {
        try await first("""
            WITH gone AS (
                DELETE FROM link_changes
                WHERE changed_at < \(cutoff.timeIntervalSince1970) AND xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                RETURNING xid
            ),
            moved AS (UPDATE link_changes_horizon SET xid = GREATEST(xid, (SELECT MAX(xid) FROM gone)) WHERE EXISTS (SELECT 1 FROM gone))
            SELECT COUNT(*) AS gone FROM gone
            """) { try $0["gone"].decode(Int.self) } ?? 0
    }

    /// Throws when the database does not answer `SELECT 1` within two seconds (a readiness probe must not hang).
    /// Whatever it finds decides whether the store's operations are tried (see ``isAway``).
    public func checkHealth() async throws {
        let ticket = health.withLock { $0.ticket() }
        do {
            try await Self.withDeadline(.seconds(2)) { try await self.client.query("SELECT 1", logger: self.logger) }
            health.withLock { $0.report(away: false, ticket: ticket) }
        } catch {
            health.withLock { $0.report(away: true, ticket: ticket) }
            throw error
        }
    }

    /// Runs `operation`, throwing `PostgresUnavailable` when it has not finished after `deadline`.
    static func withDeadline(_ deadline: Duration, _ operation: @escaping @Sendable () async throws -> Void) async throws {
        try await FerryStore.withDeadline(deadline, timeoutError: { PostgresUnavailable(message: "no answer from the server within \(deadline)") }, operation)
    }

    /// Whether an error says the server is away (refused or lost connections, a pool that gave up connecting, no
    /// answer in time) rather than that a query was wrong.
    public func isOutage(_ error: any Error) -> Bool {
        switch error {
        case is DatabaseUnavailable, is PostgresUnavailable, is ConnectionPoolError: return true
        case let error as PSQLError:
            return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed].contains(error.code)
        default: return false
        }
    }

    /// The channel the schema's triggers notify on every change the edge caches.
    static let changeChannel = "ferry_changes"

    /// Listens for the triggers' notices on a connection of its own, outside the pool; after every (re)connection
    /// it yields once, since notices sent while no one listened are lost. Reconnects a second after losing the
    /// connection, or ten seconds after asking to listen without an answer.
    ///
    /// Outside the pool, because a pooled connection that the server ends while it listens goes back to the pool
    /// as it closes, and a statement handed that connection is never sent; and because a listener that never gets
    /// its answer must be given up on rather than waited for.
    public func changeNotifications() -> AsyncStream<Void>? {
        let listener = listener, logger = logger
        return AsyncStream { continuation in
            let task = Task {
                var attempt = 0
                while !Task.isCancelled {
                    attempt += 1
                    do {
                        let connection = try await PostgresConnection.connect(configuration: listener.configuration(), id: attempt, logger: logger)
                        try await Self.listen(on: connection, yieldingTo: continuation)
                    } catch {
                        if Task.isCancelled { break }
                        logger.warning("change notices lost; listening again", metadata: ["error": "\(String(reflecting: error))"])
                    }
                    try? await Task.sleep(for: .seconds(1))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Listens on `connection` until it is lost or the caller is cancelled, then closes it.
    private static func listen(on connection: PostgresConnection, yieldingTo continuation: AsyncStream<Void>.Continuation) async throws {
        let (listening, started) = AsyncStream.makeStream(of: Void.self)
        let listener = Task {
            defer { started.finish() }  // listening, or failed to
            try await connection.listen(on: Self.changeChannel) { notices in
                started.finish()
                continuation.yield()
                for try await _ in notices { continuation.yield() }
            }
        }
        do {
            try await withTaskCancellationHandler {
                try await FerryStore.withDeadline(.seconds(10), timeoutError: { PostgresUnavailable(message: "LISTEN not answered within 10 seconds") }) {
                    for await _ in listening {}
                }
                try await listener.value
            } onCancel: {
                listener.cancel()
                let _: EventLoopFuture<Void> = connection.close()
            }
        } catch {
            try? await connection.close()  // closed before it goes (a connection must not be dropped open)
            throw error
        }
        try? await connection.close()
    }

    /// Ends every connection of this database and schema (every node's, not only this store's) that listens for
    /// change notices; returns how many (for tests and operators checking that nodes recover). Ferry's installs in
    /// other schemas of the database are left alone: their connections carry another `application_name`. Needs the
    /// right to signal other backends.
    public func terminateListeners() async throws -> Int {
        try await all("""
            SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = \(applicationName) AND pid <> pg_backend_pid()
                AND query ILIKE \("LISTEN%")
            """) { try $0["done"].decode(Bool.self) }.filter { $0 }.count
    }

    // MARK: Helpers

    /// The rows of a query, each read by `decode`.
    func all<T>(_ query: PostgresQuery, _ decode: (PostgresRandomAccessRow) throws -> T) async throws -> [T] {
        let client = client, logger = logger
        return try await guarded { try await client.query(query, logger: logger).collect() }.map { try decode($0.makeRandomAccess()) }
    }

    func first<T>(_ query: PostgresQuery, _ decode: (PostgresRandomAccessRow) throws -> T) async throws -> T? {
        try await all(query, decode).first
    }

    /// Inserts many rows with one statement per 1,000: `head` ends with `VALUES`, each row binds `columns` values.
    /// The placeholders (`($1, $2, …)`) are made from counts, never from the values.
    func insertRows<Row>(_ head: String, columns: Int, _ rows: [Row], tail: String,
                         bind: (Row, inout PostgresBindings) -> Void) async throws {
        for query in Self.rowQueries(head, columns: columns, rows, tail: tail, bind: bind) {
            try await execute(query)
        }
    }

    /// The statements of ``insertRows(_:columns:_:tail:bind:)``, for running on a connection in a transaction.
    static func rowQueries<Row>(_ head: String, columns: Int, _ rows: [Row], tail: String,
                                bind: (Row, inout PostgresBindings) -> Void) -> [PostgresQuery] {
        var queries: [PostgresQuery] = []
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + 1000)]
            var binds = PostgresBindings(capacity: chunk.count * columns)
            var tuples: [String] = []
            for (index, row) in chunk.enumerated() {
                bind(row, &binds)
                let first = index * columns + 1
                tuples.append("(" + (first..<first + columns).map { "$\($0)" }.joined(separator: ", ") + ")")
            }
            queries.append(PostgresQuery(unsafeSQL: "\(head) \(tuples.joined(separator: ", ")) \(tail)", binds: binds))
            start += chunk.count
        }
        return queries
    }

    /// The constraint a unique violation broke, or nil for any other error.
    static func uniqueViolation(_ error: any Error) -> String? {
        guard let error = error as? PSQLError, error.serverInfo?[.sqlState] == "23505" else { return nil }
        return error.serverInfo?[.constraintName] ?? ""
    }

    // MARK: Apps

    public func createApp(_ app: App) async throws {
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO apps (id, name, ios_team_id, ios_bundle_ids, ios_app_store_id, ios_url_scheme, android_package, android_sha256,
                    fallback_url, social_title, social_description, social_image_url, attribution_window, copy_to_open, created_at)
                VALUES (\(app.id), \(app.name), \(app.ios.teamID), \(JSONText.encode(app.ios.bundleIDs)), \(app.ios.appStoreID),
                    \(app.ios.urlScheme), \(app.android.packageName), \(JSONText.encode(app.android.sha256Fingerprints)), \(app.fallbackURL),
                    \(app.social.title), \(app.social.description), \(app.social.imageURL), \(app.attribution.window),
                    \(app.attribution.copyToOpen), \(app.createdAt.timeIntervalSince1970))
                """, logger: self.logger)
            try await Self.insertDomains(app, connection: connection, logger: self.logger)
        }
    }

    public func updateApp(_ app: App) async throws -> Bool {
        try await transaction { connection in
            let updated = try await connection.query("""
                UPDATE apps SET name = \(app.name), ios_team_id = \(app.ios.teamID), ios_bundle_ids = \(JSONText.encode(app.ios.bundleIDs)),
                    ios_app_store_id = \(app.ios.appStoreID), ios_url_scheme = \(app.ios.urlScheme), android_package = \(app.android.packageName),
                    android_sha256 = \(JSONText.encode(app.android.sha256Fingerprints)), fallback_url = \(app.fallbackURL),
                    social_title = \(app.social.title), social_description = \(app.social.description), social_image_url = \(app.social.imageURL),
                    attribution_window = \(app.attribution.window), copy_to_open = \(app.attribution.copyToOpen)
                WHERE id = \(app.id) RETURNING id
                """, logger: self.logger).collect()
            guard !updated.isEmpty else { return false }
            try await connection.query("DELETE FROM domains WHERE app_id = \(app.id)", logger: self.logger)
            try await Self.insertDomains(app, connection: connection, logger: self.logger)
            return true
        }
    }

    static func insertDomains(_ app: App, connection: PostgresConnection, logger: Logger) async throws {
        // Writers of domains take turns (readers do not wait), so that two apps cannot both take overlapping hosts
        // between one's check and its inserts.
        try await connection.query("LOCK TABLE domains IN SHARE ROW EXCLUSIVE MODE", logger: logger)
        let taken = try await connection.query("SELECT host FROM domains WHERE app_id <> \(app.id)", logger: logger).collect()
            .map { try $0.makeRandomAccess()["host"].decode(String.self) }
        if let conflict = StoreConflict.domainConflict(of: app, othersOwn: taken) { throw conflict }
        for (position, host) in app.domains.enumerated() {
            do {
                try await connection.query("INSERT INTO domains (host, app_id, position) VALUES (\(host), \(app.id), \(position))", logger: logger)
            } catch where uniqueViolation(error) != nil {
                throw StoreConflict(field: "domain", message: "domain '\(host)' already belongs to an app")
            }
        }
    }

    public func app(id: String) async throws -> App? {
        try await apps("SELECT * FROM apps WHERE id = \(id)").first
    }

    public func app(forDomain host: String) async throws -> App? {
        try await apps("SELECT apps.* FROM apps JOIN domains ON domains.app_id = apps.id WHERE domains.host = \(host)").first
    }

    public func listApps() async throws -> [App] {
        try await apps("SELECT * FROM apps ORDER BY created_at, id")
    }

    func apps(_ query: PostgresQuery) async throws -> [App] {
        var apps = try await all(query, Self.decodeApp)
        for index in apps.indices {
            apps[index].domains = try await all("SELECT host FROM domains WHERE app_id = \(apps[index].id) ORDER BY position") {
                try $0["host"].decode(String.self)
            }
        }
        return apps
    }

    static func decodeApp(_ row: PostgresRandomAccessRow) throws -> App {
        App(
            id: try row["id"].decode(String.self), name: try row["name"].decode(String.self), domains: [],
            ios: IOSSettings(teamID: try row["ios_team_id"].decode(String?.self),
                             bundleIDs: JSONText.decode(try row["ios_bundle_ids"].decode(String.self)) ?? [],
                             appStoreID: try row["ios_app_store_id"].decode(String?.self), urlScheme: try row["ios_url_scheme"].decode(String?.self)),
            android: AndroidSettings(packageName: try row["android_package"].decode(String?.self),
                                     sha256Fingerprints: JSONText.decode(try row["android_sha256"].decode(String.self)) ?? []),
            fallbackURL: try row["fallback_url"].decode(String?.self),
            social: SocialMetadata(title: try row["social_title"].decode(String?.self), description: try row["social_description"].decode(String?.self),
                                   imageURL: try row["social_image_url"].decode(String?.self)),
            attribution: AttributionSettings(window: try row["attribution_window"].decode(Double.self), copyToOpen: try row["copy_to_open"].decode(Bool.self)),
            createdAt: Date(timeIntervalSince1970: try row["created_at"].decode(Double.self))
        )
    }

    // MARK: Keys

    public func createKey(_ key: APIKeyRecord) async throws {
        try await execute("""
            INSERT INTO api_keys (id, app_id, kind, environment, hash, hint, created_at, revoked_at)
            VALUES (\(key.id), \(key.appID), \(key.kind.rawValue), \(key.environment.rawValue), \(key.hash), \(key.hint),
                \(key.createdAt.timeIntervalSince1970), \(key.revokedAt?.timeIntervalSince1970))
            """)
    }

    public func key(hash: String) async throws -> APIKeyRecord? {
        try await first("SELECT * FROM api_keys WHERE hash = \(hash)", Self.decodeKey)
    }

    public func keys(appID: String) async throws -> [APIKeyRecord] {
        try await all("SELECT * FROM api_keys WHERE app_id = \(appID) ORDER BY created_at, id", Self.decodeKey)
    }

    public func revokeKey(id: String, at date: Date) async throws -> Bool {
        try await !all("UPDATE api_keys SET revoked_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND revoked_at IS NULL RETURNING id") { _ in () }.isEmpty
    }

    static func decodeKey(_ row: PostgresRandomAccessRow) throws -> APIKeyRecord {
        guard let kind = APIKeyKind(rawValue: try row["kind"].decode(String.self)),
              let environment = APIEnvironment(rawValue: try row["environment"].decode(String.self)) else {
            throw StoreCorruption(message: "api_keys row has an unknown kind or environment")
        }
        return APIKeyRecord(
            id: try row["id"].decode(String.self), appID: try row["app_id"].decode(String.self), kind: kind, environment: environment,
            hash: try row["hash"].decode(String.self), hint: try row["hint"].decode(String.self),
            createdAt: Date(timeIntervalSince1970: try row["created_at"].decode(Double.self)),
            revokedAt: try row["revoked_at"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: Links

    public func createLink(_ link: Link) async throws {
        do {
            try await execute("""
                INSERT INTO links (id, app_id, environment, domain, slug, destination, ios_url, android_url, params,
                    utm_source, utm_medium, utm_campaign, utm_content, utm_term, campaign, referrer,
                    social_title, social_description, social_image_url, expires_at, disabled, created_at, updated_at)
                VALUES (\(link.id), \(link.appID), \(link.environment.rawValue), \(link.domain), \(link.slug), \(link.destination),
                    \(link.iosURL), \(link.androidURL), \(JSONText.encode(link.params)), \(link.utm.source), \(link.utm.medium),
                    \(link.utm.campaign), \(link.utm.content), \(link.utm.term), \(link.campaign), \(link.referrer), \(link.social.title),
                    \(link.social.description), \(link.social.imageURL), \(link.expiresAt?.timeIntervalSince1970), \(link.disabled),
                    \(link.createdAt.timeIntervalSince1970), \(link.updatedAt.timeIntervalSince1970))
                """)
        } catch where Self.uniqueViolation(error) != nil {
            throw StoreConflict(field: "slug", message: "slug '\(link.slug)' is already taken on \(link.domain)")
        }
    }

    public func updateLink(_ link: Link) async throws -> Bool {
        try await !all("""
            UPDATE links SET destination = \(link.destination), ios_url = \(link.iosURL), android_url = \(link.androidURL),
                params = \(JSONText.encode(link.params)), utm_source = \(link.utm.source), utm_medium = \(link.utm.medium),
                utm_campaign = \(link.utm.campaign), utm_content = \(link.utm.content), utm_term = \(link.utm.term),
                campaign = \(link.campaign), referrer = \(link.referrer), social_title = \(link.social.title),
                social_description = \(link.social.description), social_image_url = \(link.social.imageURL),
                expires_at = \(link.expiresAt?.timeIntervalSince1970), disabled = \(link.disabled), updated_at = \(link.updatedAt.timeIntervalSince1970)
            WHERE id = \(link.id) AND app_id = \(link.appID) RETURNING id
            """) { _ in () }.isEmpty
    }

    public func deleteLink(id: String, appID: String) async throws -> Bool {
        try await !all("DELETE FROM links WHERE id = \(id) AND app_id = \(appID) RETURNING id") { _ in () }.isEmpty
    }

    public func link(id: String, appID: String) async throws -> Link? {
        try await first("SELECT * FROM links WHERE id = \(id) AND app_id = \(appID)", Self.decodeLink)
    }

    public func link(domain: String, slug: String) async throws -> Link? {
        try await first("SELECT * FROM links WHERE domain = \(domain) AND slug = \(slug)", Self.decodeLink)
    }

    public func listLinks(appID: String, environment: APIEnvironment, limit: Int, after: Int64?) async throws -> LinkPage {
        let rows = try await all("""
            SELECT * FROM links WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND seq < \(after ?? Int64.max)
            ORDER BY seq DESC LIMIT \(limit + 1)
            """) { row in (try Self.decodeLink(row), try row["seq"].decode(Int64.self)) }
        return LinkPage(links: rows.prefix(limit).map(\.0), nextCursor: rows.count > limit ? rows[limit - 1].1 : nil)
    }

    public func searchLinks(appID: String, environment: APIEnvironment, matching text: String, limit: Int) async throws -> [Link] {
        let pattern = containsPattern(text)
        return try await all("""
            SELECT * FROM links WHERE app_id = \(appID) AND environment = \(environment.rawValue)
                AND (lower(slug) LIKE \(pattern) ESCAPE '\\' OR lower(destination) LIKE \(pattern) ESCAPE '\\'
                    OR lower(COALESCE(campaign, '')) LIKE \(pattern) ESCAPE '\\')
            ORDER BY seq DESC LIMIT \(limit)
            """, Self.decodeLink)
    }

    static func decodeLink(_ row: PostgresRandomAccessRow) throws -> Link {
        guard let environment = APIEnvironment(rawValue: try row["environment"].decode(String.self)) else {
            throw StoreCorruption(message: "links row has an unknown environment")
        }
        return Link(
            id: try row["id"].decode(String.self), appID: try row["app_id"].decode(String.self), environment: environment,
            domain: try row["domain"].decode(String.self), slug: try row["slug"].decode(String.self),
            destination: try row["destination"].decode(String.self), iosURL: try row["ios_url"].decode(String?.self),
            androidURL: try row["android_url"].decode(String?.self), params: JSONText.decode(try row["params"].decode(String.self)) ?? [:],
            utm: UTMParameters(source: try row["utm_source"].decode(String?.self), medium: try row["utm_medium"].decode(String?.self),
                               campaign: try row["utm_campaign"].decode(String?.self), content: try row["utm_content"].decode(String?.self),
                               term: try row["utm_term"].decode(String?.self)),
            campaign: try row["campaign"].decode(String?.self), referrer: try row["referrer"].decode(String?.self),
            social: SocialMetadata(title: try row["social_title"].decode(String?.self), description: try row["social_description"].decode(String?.self),
                                   imageURL: try row["social_image_url"].decode(String?.self)),
            expiresAt: try row["expires_at"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
            disabled: try row["disabled"].decode(Bool.self),
            createdAt: Date(timeIntervalSince1970: try row["created_at"].decode(Double.self)),
            updatedAt: Date(timeIntervalSince1970: try row["updated_at"].decode(Double.self)))
    }

    // MARK: Clicks

    public func recordClicks(_ clicks: [Click]) async throws {
        guard !clicks.isEmpty else { return }
        let logger = logger
        try await transaction { connection in
            var stored: Set<String> = []
            for query in Self.rowQueries("""
                INSERT INTO clicks (id, link_id, app_id, environment, created_at, ip_hash, network_hash, user_agent, platform, referer, query,
                    accept_language, os_version, apple_device) VALUES
                """, columns: 14, clicks, tail: "ON CONFLICT (id, created_at) DO NOTHING RETURNING id", bind: { click, binds in
                    binds.append(click.id); binds.append(click.linkID); binds.append(click.appID); binds.append(click.environment.rawValue)
                    binds.append(click.createdAt.timeIntervalSince1970); binds.append(click.ipHash); binds.append(click.networkHash)
                    binds.append(click.userAgent); binds.append(click.platform.rawValue); binds.append(click.referer); binds.append(click.query)
                    binds.append(click.acceptLanguage); binds.append(click.osVersion); binds.append(click.appleDevice)
                }) {
                for try await row in try await connection.query(query, logger: logger) {
                    stored.insert(try row.decode(String.self))
                }
            }
            try await Self.addClickStats(clicks.filter { stored.contains($0.id) }, connection: connection, logger: logger)
        }
    }

    public func clickCount(linkID: String) async throws -> Int {
        try await first("SELECT COUNT(*) AS n FROM clicks WHERE link_id = \(linkID)") { try $0["n"].decode(Int.self) } ?? 0
    }

    public func click(id: String) async throws -> Click? {
        try await first("SELECT * FROM clicks WHERE id = \(id)", Self.decodeClick)
    }

    /// A click row.
    static func decodeClick(_ row: PostgresRandomAccessRow) throws -> Click {
            Click(
                id: try row["id"].decode(String.self), linkID: try row["link_id"].decode(String.self), appID: try row["app_id"].decode(String.self),
                environment: APIEnvironment(rawValue: try row["environment"].decode(String.self)) ?? .live,
                createdAt: Date(timeIntervalSince1970: try row["created_at"].decode(Double.self)),
                ipHash: try row["ip_hash"].decode(String?.self), networkHash: try row["network_hash"].decode(String?.self),
                userAgent: try row["user_agent"].decode(String?.self),
                platform: ClientPlatform(rawValue: try row["platform"].decode(String.self)) ?? .other,
                referer: try row["referer"].decode(String?.self), query: try row["query"].decode(String?.self),
                acceptLanguage: try row["accept_language"].decode(String?.self), osVersion: try row["os_version"].decode(String?.self),
                appleDevice: try row["apple_device"].decode(String?.self))
    }

    /// The name of a day's click partition: `clicks_20261123` (UTC).
    public static func partitionName(dayStart: Double) -> String {
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date(timeIntervalSince1970: dayStart))
        return String(format: "clicks_%04d%02d%02d", components.year ?? 0, components.month ?? 0, components.day ?? 0)
    }

    /// Makes the partitions of yesterday, today and the next two days (UTC) when missing. A day whose clicks already
    /// went to the default partition keeps them there (PostgreSQL refuses the partition); its expiry deletes them.
    public func prepareClickStorage(now: Date) async throws {
        let today = (now.timeIntervalSince1970 / 86400).rounded(.down) * 86400
        for offset in -1...2 {
            let start = today + Double(offset) * 86400
            let name = Self.partitionName(dayStart: start)
            do {
                // The name is made of digits from a date and the bounds are numbers: nothing here comes from input.
                try await execute(PostgresQuery(unsafeSQL: """
                    CREATE TABLE IF NOT EXISTS \(name) PARTITION OF clicks FOR VALUES FROM (\(start)) TO (\(start + 86400))
                    """))
            } catch {
                logger.debug("click partition not made", metadata: ["partition": "\(name)", "error": "\(String(reflecting: error))"])
            }
        }
    }

    /// The day partitions of the clicks table, oldest first.
    public func clickPartitions() async throws -> [String] {
        try await all("""
            SELECT child.relname AS name FROM pg_inherits i
            JOIN pg_class child ON child.oid = i.inhrelid JOIN pg_class parent ON parent.oid = i.inhparent
            JOIN pg_namespace n ON n.oid = parent.relnamespace
            WHERE parent.relname = 'clicks' AND n.nspname = current_schema() AND child.relname <> 'clicks_default'
            ORDER BY child.relname
            """) { try $0["name"].decode(String.self) }
    }

    public func expireClicks(before cutoff: Date) async throws -> Int {
        let limit = cutoff.timeIntervalSince1970
        var gone = 0
        for name in try await clickPartitions() {
            // Only names this store made: clicks_ and eight digits.
            guard name.range(of: "^clicks_[0-9]{8}$", options: .regularExpression) != nil else { continue }
            let digits = name.dropFirst(7)
            var components = DateComponents()
            components.year = Int(digits.prefix(4)); components.month = Int(digits.dropFirst(4).prefix(2)); components.day = Int(digits.suffix(2))
            components.timeZone = TimeZone(identifier: "UTC")
            guard let start = Calendar(identifier: .gregorian).date(from: components)?.timeIntervalSince1970, start + 86400 <= limit else { continue }
            gone += try await first(PostgresQuery(unsafeSQL: "SELECT COUNT(*) AS n FROM \(name)")) { try $0["n"].decode(Int.self) } ?? 0
            try await execute(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(name)"))
        }
        // What is left before the cutoff: the default partition's, and the part of the day the cutoff falls in.
        gone += try await first("WITH gone AS (DELETE FROM clicks WHERE created_at < \(limit) RETURNING 1) SELECT COUNT(*) AS n FROM gone") {
            try $0["n"].decode(Int.self)
        } ?? 0
        return gone
    }

    // MARK: Settings

    public func setting(_ name: String) async throws -> String? {
        try await first("SELECT value FROM settings WHERE name = \(name)") { try $0["value"].decode(String.self) }
    }

    public func insertSettingIfAbsent(_ name: String, value: String) async throws -> String {
        try await execute("INSERT INTO settings (name, value) VALUES (\(name), \(value)) ON CONFLICT (name) DO NOTHING")
        return try await setting(name) ?? value
    }
}

/// The store as a ServiceLifecycle service: its pool runs from the moment the store opens (so the CLI and tests need
/// no service group), and `run()` ties the end of it to the server's graceful shutdown. Registered first in
/// `ferry serve`'s group, it is shut down last, after the click recorder has written what it held.
extension PostgresStore: Service {
    /// Waits for graceful shutdown (or cancellation), then closes the pool.
    public func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }
}

/// A row the store cannot read back (a value outside what the schema allows).
struct StoreCorruption: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// `postgres://user:password@host:port/database?sslmode=…` read into a client configuration.
struct PostgresURL {
    let configuration: PostgresClient.Configuration

    init(_ text: String) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? ""),
              let host = components.host, !host.isEmpty else {
            throw PostgresURLError(message: "a PostgreSQL URL looks like postgres://user:password@host:5432/database")
        }
        let user = components.user?.removingPercentEncoding ?? "postgres"
        let password = components.password?.removingPercentEncoding
        let database = components.path.count > 1 ? String(components.path.dropFirst()).removingPercentEncoding : nil
        let security = try TransportSecurity(mode: components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer",
                                             rootCertificates: components.queryItems?.first { $0.name == "sslrootcert" }?.value)
        let tls: PostgresClient.Configuration.TLS = switch security.mode {
        case .disable: .disable
        case .prefer: .prefer(security.tlsConfiguration)
        case .require: .require(security.tlsConfiguration)
        }
        var configuration = PostgresClient.Configuration(host: host, port: components.port ?? 5432, username: user, password: password,
                                                         database: database, tls: tls)
        configuration.options.maximumConnections = 10
        // `search_path=name` keeps Ferry's tables in a schema of their own (created when missing).
        if let schema = components.queryItems?.first(where: { $0.name == "search_path" })?.value {
            guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw PostgresURLError(message: "search_path must be a schema name of lowercase letters, digits and underscores")
            }
            self.schema = schema
        } else {
            schema = nil
        }
        // Names the connections in `pg_stat_activity` (PostgreSQL keeps the first 63 bytes, all ASCII here).
        applicationName = String(schema.map { "ferry/\($0)" }?.prefix(63) ?? "ferry")
        configuration.options.additionalStartupParameters = [("application_name", applicationName)] + (schema.map { [("search_path", $0)] } ?? [])
        self.configuration = configuration
        listener = Listener(host: host, port: components.port ?? 5432, username: user, password: password, database: database,
                            tls: security, startupParameters: configuration.options.additionalStartupParameters)
    }

    /// `sslmode` and `sslrootcert` as libpq reads them: whether TLS is used, and how far the server's certificate is
    /// believed.
    struct TransportSecurity: Sendable {
        enum Mode: Sendable { case disable, prefer, require }
        var mode: Mode
        /// The TLS settings: no verification (`prefer`, `require`), the chain (`verify-ca`), the chain and the host name
        /// (`verify-full`).
        var tlsConfiguration: TLSConfiguration

        init(mode text: String, rootCertificates: String?) throws {
            var configuration = TLSConfiguration.makeClientConfiguration()
            switch text {
            case "disable":
                mode = .disable
            case "allow", "prefer":
                mode = .prefer
                configuration.certificateVerification = .none
            case "require":
                // As libpq: encrypted but not verified, unless a root certificate is named, which makes it verify-ca.
                mode = .require
                configuration.certificateVerification = rootCertificates == nil ? .none : .noHostnameVerification
            case "verify-ca":
                mode = .require
                configuration.certificateVerification = .noHostnameVerification
            case "verify-full":
                mode = .require
                configuration.certificateVerification = .fullVerification
            default:
                throw PostgresURLError(message: "sslmode must be disable, allow, prefer, require, verify-ca or verify-full")
            }
            if let rootCertificates, rootCertificates != "system" {
                guard FileManager.default.isReadableFile(atPath: rootCertificates) else {
                    throw PostgresURLError(message: "sslrootcert names a file that cannot be read: \(rootCertificates)")
                }
                configuration.trustRoots = .file(rootCertificates)
            }
            tlsConfiguration = configuration
        }
    }

    /// Where the connection that listens for change notices goes, outside the pool.
    struct Listener: Sendable {
        var host: String
        var port: Int
        var username: String
        var password: String?
        var database: String?
        var tls: TransportSecurity
        var startupParameters: [(String, String)]

        /// The connection's configuration; its TLS context is made here, when it connects (as the pool makes its
        /// own), not when the store opens.
        func configuration() throws -> PostgresConnection.Configuration {
            let context: PostgresConnection.Configuration.TLS = switch tls.mode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: tls.tlsConfiguration))
            case .require: .require(try NIOSSLContext(configuration: tls.tlsConfiguration))
            }
            var configuration = PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: context)
            configuration.options.additionalStartupParameters = startupParameters
            return configuration
        }
    }

    /// The schema Ferry's tables live in, when the URL names one.
    let schema: String?
    /// What the connections call themselves.
    let applicationName: String
    /// The connection that listens for change notices.
    let listener: Listener
}

/// A PostgreSQL server that does not answer.
public struct PostgresUnavailable: Error, CustomStringConvertible {
    /// What happened.
    public var message: String
    /// The message.
    public var description: String { message }
}

/// A PostgreSQL URL Ferry cannot use.
public struct PostgresURLError: Error, CustomStringConvertible {
    /// What is wrong with it.
    public var message: String
    /// The message.
    public var description: String { message }
}
