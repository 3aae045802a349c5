#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
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
package final class PostgresStore: FerryDatabase {
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
    /// The metrics and spans of its operations.
    let observation = StoreObservation(system: "postgresql")
    /// The pool's most connections.
    package let connectionCapacity: Int

    /// What the store knows of its server. Every probe and operation takes a ticket when it starts; what it finds
    /// counts only if nothing that started later has already reported (a probe stuck since before the server came
    /// back must not mark it away again).
    ///
    /// A refused or lost connection marks the server away at once. A probe that merely gets no answer in time (and,
    /// for the store's own probe, whose server accepts a connection) does only when the probe before it got none
    /// either: a server busy enough to keep one `SELECT 1` waiting two seconds (a pool opening connections on a loaded
    /// machine) is slow, not gone, and refusing every operation for it would fail requests that would have been
    /// answered.
    struct Health {
        var away = false
        var nextTicket: UInt64 = 0
        var lastReport: UInt64 = 0
        /// Probes in a row that got no answer in time.
        var silentProbes = 0

        /// How many probes in a row must go unanswered before the server is taken for away.
        static let silentProbesBeforeAway = 2

        mutating func ticket() -> UInt64 {
            nextTicket += 1
            return nextTicket
        }

        mutating func report(away: Bool, ticket: UInt64) {
            guard ticket > lastReport else { return }
            lastReport = ticket
            self.away = away
            silentProbes = 0
        }

        /// A probe got no answer within its deadline.
        mutating func reportSilence(ticket: UInt64) {
            guard ticket > lastReport else { return }
            lastReport = ticket
            silentProbes += 1
            if silentProbes >= Self.silentProbesBeforeAway { away = true }
        }
    }

    /// Connects to `url` (`postgres://user:password@host:port/database`, `?sslmode=disable|prefer|require|verify-ca|verify-full`
    /// and `sslrootcert=PATH` as libpq reads them), starts the
    /// connection pool and migrates the schema. An operation that has not finished after `operationDeadline` fails
    /// as the server being away. The server is probed every `probeInterval` while the store is open.
    package init(url: String, logger: Logger = PostgresStore.quietLogger, operationDeadline: Duration = PostgresStore.defaultOperationDeadline,
                 probeInterval: Duration = PostgresStore.probeInterval) async throws {
        let parsed = try PostgresURL(url)
        schema = parsed.schema
        applicationName = parsed.applicationName
        listener = parsed.listener
        self.operationDeadline = operationDeadline
        client = PostgresClient(configuration: parsed.configuration, backgroundLogger: logger)
        connectionCapacity = parsed.configuration.options.maximumConnections
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
                try? await Task.sleep(for: probeInterval)
                guard let self, !Task.isCancelled else { return }
                try? await self.probe(askingWhySilent: true)
            }
        }
        monitor.withLock { $0 = probe }
    }

    /// How often the store checks that the server answers.
    package static let probeInterval = Duration.seconds(1)

    /// Whether the server was found away and has not answered since.
    package var isAway: Bool { health.withLock { $0.away } }

    package var metricsSystemName: String { observation.system }

    package func observe(with metrics: StoreMetrics) { observation.attach(metrics) }

    /// How long an operation may take by default: far longer than any statement Ferry makes should, short enough
    /// that a server that stopped answering does not hold a caller (a request, the cache refresher, a shutdown) for
    /// good.
    package static let defaultOperationDeadline = Duration.seconds(60)

    /// Runs an operation unless the server is known to be away; notes the server away when the operation fails
    /// for lack of it.
    ///
    /// The operation is given ``operationDeadline`` and then abandoned, failing with `PostgresUnavailable`: a
    /// statement whose answer never comes (a connection whose server vanished without closing it, or one the
    /// pool handed out as it was being closed, whose statement is then never sent) must not stop its caller for
    /// ever. The caller's cancellation reaches the operation.
    func guarded<T: Sendable>(bounded: Bool = true, _ kind: StoreOperation = .write, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let ticket = try health.withLock { health in
            if health.away { throw DatabaseUnavailable(message: "PostgreSQL is not answering (checked again every second)") }
            return health.ticket()
        }
        let deadline = operationDeadline
        do {
            return try await observation.measure(kind) {
                guard bounded else { return try await operation() }
                return try await FerryStore.withDeadline(deadline, timeoutError: { PostgresUnavailable(message: "no answer from the server within \(deadline)") },
                                                         operation)
            }
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

    /// Why a connection to the server fails now, or nil when one succeeds (or gives no answer `within` that time).
    static func connectionFailure(_ listener: PostgresURL.Listener, logger: Logger, within: Duration = .seconds(5)) async -> String? {
        do {
            try await withDeadline(within) {
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

    package func close() async throws {
        monitor.withLock { $0?.cancel() }
        runner.cancel()
        await runner.value
    }

    /// A logger that reports only warnings and errors (the pool reports every connection it opens or loses at `info`).
    package static var quietLogger: Logger {
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

    // MARK: Health

    /// Throws when the database does not answer `SELECT 1` within two seconds (a readiness probe must not hang).
    /// Whatever it finds decides whether the store's operations are tried (see ``isAway`` and ``Health``).
    package func checkHealth() async throws {
        try await probe(askingWhySilent: false)
    }

    /// `checkHealth`; `askingWhySilent` (the store's own probe, which nobody waits for) then tells a server that
    /// refuses connections from one that is only slow. The pool queues a query for a server it cannot reach as for a
    /// busy one, so `SELECT 1` goes unanswered either way; one connection of the probe's own is refused at once by
    /// the first, and the server is away without waiting for a second probe.
    func probe(askingWhySilent: Bool) async throws {
        let ticket = health.withLock { $0.ticket() }
        let deadline = Self.probeDeadline
        do {
            _ = try await FerryStore.withDeadline(deadline, timeoutError: { SilentProbe() }) {
                try await self.client.query("SELECT 1", logger: self.logger)
            }
            health.withLock { $0.report(away: false, ticket: ticket) }
        } catch is SilentProbe {
            if askingWhySilent, await Self.connectionFailure(listener, logger: logger, within: deadline) != nil {
                health.withLock { $0.report(away: true, ticket: ticket) }
            } else {
                health.withLock { $0.reportSilence(ticket: ticket) }
            }
            throw PostgresUnavailable(message: "no answer from the server within \(deadline)")
        } catch {
            health.withLock { $0.report(away: true, ticket: ticket) }
            throw error
        }
    }

    /// How long a probe waits for `SELECT 1`.
    static let probeDeadline = Duration.seconds(2)

    /// A probe's deadline passed.
    private struct SilentProbe: Error {}

    /// Runs `operation`, throwing `PostgresUnavailable` when it has not finished after `deadline`.
    static func withDeadline(_ deadline: Duration, _ operation: @escaping @Sendable () async throws -> Void) async throws {
        try await FerryStore.withDeadline(deadline, timeoutError: { PostgresUnavailable(message: "no answer from the server within \(deadline)") }, operation)
    }

    /// Whether an error says the server is away (refused or lost connections, a pool that gave up connecting, no
    /// answer in time) rather than that a query was wrong.
    package func isOutage(_ error: any Error) -> Bool {
        switch error {
        case is DatabaseUnavailable, is PostgresUnavailable, is ConnectionPoolError: return true
        case let error as PSQLError:
            return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed].contains(error.code)
        default: return false
        }
    }

    // MARK: Helpers

    /// The rows of a query, each read by `decode`.
    func all<T>(_ query: PostgresQuery, _ decode: (PostgresRandomAccessRow) throws -> T) async throws -> [T] {
        let client = client, logger = logger
        let kind: StoreOperation = query.sql.prefix(6).uppercased() == "SELECT" ? .read : .write
        return try await guarded(kind) { try await client.query(query, logger: logger).collect() }.map { try decode($0.makeRandomAccess()) }
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

    // MARK: Settings

    package func setting(_ name: String) async throws -> String? {
        try await first("SELECT value FROM settings WHERE name = \(name)") { try $0["value"].decode(String.self) }
    }

    package func insertSettingIfAbsent(_ name: String, value: String) async throws -> String {
        try await execute("INSERT INTO settings (name, value) VALUES (\(name), \(value)) ON CONFLICT (name) DO NOTHING")
        return try await setting(name) ?? value
    }
}

/// The store as a ServiceLifecycle service: its pool runs from the moment the store opens (so the CLI and tests need
/// no service group), and `run()` ties the end of it to the server's graceful shutdown. Registered first in
/// `ferry serve`'s group, it is shut down last, after the click recorder has written what it held.
extension PostgresStore: Service {
    /// Waits for graceful shutdown (or cancellation), then closes the pool.
    package func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }
}

/// A PostgreSQL server that does not answer.
package struct PostgresUnavailable: Error, CustomStringConvertible {
    /// What happened.
    package var message: String
    /// The message.
    package var description: String { message }
}
#endif
