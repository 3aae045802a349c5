#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import FerryStore
import Foundation
import Logging

/// Where the click journal is kept (`FerryConfiguration.clickJournal`).
package enum ClickJournalLocation: Sendable, Hashable {
    /// Beside the SQLite file, or `ferry-clicks` in the working directory with PostgreSQL; off for a store that was
    /// handed over ready-made (no location to put it beside) and for an in-memory SQLite database.
    case automatic
    /// No journal: clicks wait for the database in memory, and are dropped past the click buffer's limit.
    case off
    /// This directory.
    case directory(String)

    /// `automatic` made definite for the database at `database`: the directory it stands for, or `off`.
    package func resolved(for database: DatabaseLocation) -> ClickJournalLocation {
        directory(for: database).map { .directory($0) } ?? .off
    }

    /// The directory for a database at `database`; nil when there is none.
    package func directory(for database: DatabaseLocation?) -> String? {
        switch self {
        case .off: nil
        case .directory(let path): path
        case .automatic:
            switch database {
            case .sqlite(let path)?: path == ":memory:" || path.hasPrefix("file::memory:") ? nil : path + ".clicks"
            case .postgres?: "ferry-clicks"
            case nil: nil
            }
        }
    }
}

/// Where Ferry keeps its data: `sqlite:PATH` (or a bare path), or `postgres://…`.
package enum DatabaseLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL server URL.
    case postgres(url: String)

    /// The default: `./ferry.sqlite`.
    package static let `default` = DatabaseLocation.sqlite(path: "ferry.sqlite")

    /// Parses `sqlite:PATH`, `sqlite://PATH`, `postgres://…`, `postgresql://…` or a plain file path.
    package init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("postgres://") || trimmed.hasPrefix("postgresql://") {
            self = .postgres(url: trimmed)
        } else if trimmed.hasPrefix("sqlite://") {
            self = .sqlite(path: String(trimmed.dropFirst("sqlite://".count)))
        } else if trimmed.hasPrefix("sqlite:") {
            self = .sqlite(path: String(trimmed.dropFirst("sqlite:".count)))
        } else if trimmed.contains("://") {
            throw ConfigurationError("database must be sqlite:PATH or postgres://…, not '\(text)'")
        } else {
            self = .sqlite(path: trimmed)
        }
        if case .sqlite(let path) = self, path.isEmpty { throw ConfigurationError("database path is empty") }
    }

    /// The location without credentials, for logs.
    package var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url):
            if let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://") { "\(url[..<scheme.upperBound])…@\(url[url.index(after: at)...])" } else { url }
        }
    }

    /// Opens the store this location names, running its migrations.
    package func open(logger: Logger = PostgresStore.quietLogger) async throws -> any FerryDatabase {
        switch self {
        case .sqlite(let path):
            return try SQLiteStore(path: path)
        case .postgres(let url):
            do {
                return try await PostgresStore(url: url, logger: logger)
            } catch let error as PostgresURLError {
                throw ConfigurationError(error.message)
            } catch let error as PostgresUnavailable {
                throw ConfigurationError("PostgreSQL at \(description) could not be used: \(error.message)")
            } catch {
                throw ConfigurationError("PostgreSQL at \(description) could not be used: \(String(reflecting: error))")
            }
        }
    }
}

/// A configuration mistake, explained.
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    package var description: String

    /// Creates an error.
    package init(_ description: String) { self.description = description }
}

/// Everything `ferry serve` can be told, with defaults for a laptop. Read from flags and the environment at the
/// entry point, then passed down.
package struct FerryConfiguration: Sendable {
    /// Address to bind.
    package var host = "127.0.0.1"
    /// Port to bind (0 picks a free one).
    package var port = 8080
    /// Where data lives.
    package var database = DatabaseLocation.default
    /// Proxies whose `X-Forwarded-For` is believed (loopback always is).
    package var trustedProxies: [IPNetwork] = []
    /// Networks whose clicks are email security scanners', besides those their vendors publish.
    package var scannerNetworks: [IPNetwork] = []
    /// Whether the networks email security vendors publish (`MailScannerNetworks`) mark scanners' clicks.
    package var publishedScannerNetworks = true
    /// Every network whose clicks are recorded as a scanner's.
    package var allScannerNetworks: [IPNetwork] { (publishedScannerNetworks ? MailScannerNetworks.published.map(\.network) : []) + scannerNetworks }
    /// Key for the keyed hash of client addresses; generated once and kept in the database when nil.
    package var ipHashKey: String?
    /// How often the click recorder writes a batch.
    package var clickFlushInterval: Duration = .milliseconds(250)
    /// Largest click batch written in one transaction.
    package var clickBatchSize = 5000
    /// Clicks held in memory at most while the database is slow. Without a click journal, beyond that new clicks are
    /// counted and dropped; with one, the older ones are read back from the journal.
    package var clickBufferLimit = 50_000
    /// Where every click answered is appended before the database stores it (`ClickJournal`; `FERRY_CLICK_JOURNAL`, a
    /// directory or `off`). Automatic: beside the SQLite file (`ferry.sqlite.clicks`), or `ferry-clicks` in the
    /// working directory with PostgreSQL; off for a store handed to `buildApplication` ready-made.
    package var clickJournal = ClickJournalLocation.automatic
    /// The most bytes the click journal holds (`FERRY_CLICK_JOURNAL_MAX_MB`); past it, clicks are counted as dropped
    /// and an alarm is logged until the database catches up. Default: 8 GiB, about fifteen million clicks.
    package var clickJournalMaxBytes: Int64 = 8 << 30
    /// How the thread that writes clicks is scheduled against the threads that answer them (SQLite only): a nice
    /// value (0…19) gives it a share under load, `idle` runs it only on processor time nothing else wants. When the
    /// processor is saturated, redirects come first and the clicks the writer cannot keep up with are counted as
    /// dropped; 0 lets the writer compete evenly.
    package var clickWriterPriority = ClickWriterPriority.nice(19)
    /// Links held by the link cache.
    package var linkCacheCapacity = 20_000
    /// How often the cache checks whether another process changed links.
    package var cacheRefreshInterval: Duration = .seconds(1)
    /// How long a click waits for the database to look up what the cache does not know; past it (or when the
    /// database is away) the edge answers from what it knew before, or with a 503 page.
    package var edgeLookupTimeout: Duration = .seconds(2)
    /// How often each node looks for webhook deliveries that are due.
    package var webhookPollInterval: Duration = .seconds(1)
    /// The first retry delay of a failed webhook delivery, in seconds; each next one is three times longer.
    package var webhookRetryBase: Double = 10
    /// How often click signals older than their app's attribution window are purged.
    package var purgeInterval: Duration = .seconds(600)
    /// How long clicks are kept (for statistics); nil keeps them for ever. Default: 400 days.
    package var clickRetention: Duration? = .seconds(400 * 86400)
    /// How long the anonymised observations of installs are kept for apps that learn their attribution model
    /// (`FERRY_ATTRIBUTION_OBSERVATION_RETENTION_DAYS`, 1 to 365). Default: 28 days, what a refit reads.
    package var attributionObservationRetention: Duration = .seconds(28 * 86400)
    /// log2 of scrypt's cost for new passwords (`FERRY_PASSWORD_HASH_COST`, 10 to 20). Default: 17, OWASP's advice.
    package var passwordHashCost = 17
    /// How long the audit log keeps each change (`FERRY_AUDIT_RETENTION_DAYS`, 1 to 36,500). Default: 365 days.
    package var auditRetention: Duration = .seconds(365 * 86400)
    /// How often each node looks for apps whose learnt attribution model is due for a refit
    /// (`FERRY_ATTRIBUTION_REFIT_MINUTES`, 1 to 1440). Default: 15 minutes.
    package var attributionRefitInterval: Duration = .seconds(15 * 60)
    /// Largest request body accepted, in bytes.
    package var maxBodyBytes = 64 * 1024
    /// How long a client may leave its connection silent while Ferry waits on it (a request head or body that stalls,
    /// a keep-alive connection left idle) before Ferry closes it. Longer than the 60 s idle timeout load balancers
    /// commonly use, so that a balancer, not Ferry, closes the idle connections it keeps (`FERRY_READ_TIMEOUT`, seconds).
    package var readTimeout: Duration = .seconds(75)
    /// Log level.
    package var logLevel: Logger.Level = .info
    /// How the log is written: lines of text, or one JSON object a line (`FERRY_LOG_FORMAT`, `text` or `json`).
    package var logFormat: LogFormat = .text
    /// Whether the edge's fast path answers clicks on links in memory ahead of the framework (`FERRY_EDGE_FAST_PATH`,
    /// `on` or `off`). Off, the framework answers every request (with the same bytes, more slowly): a way to rule the
    /// fast path out when looking into a problem, or to run on a framework version it was not checked against.
    package var edgeFastPath = true
    /// Networks besides loopback that may read `/metrics` (a Prometheus scraper's).
    package var metricsAllowed: [IPNetwork] = []
    /// Whether webhooks may be sent, and domains' proof files read, from loopback, private and link-local addresses (a
    /// receiver on the operator's own network); off, an app's owner cannot make the server call into the network it
    /// runs in.
    package var webhookAllowPrivateDestinations = false
    /// How webhook attempts, and reads of domains' proof files, are made: the resolver, the certificates `https`
    /// hosts are checked against, each attempt's deadline, how much of an answer is read, and how many webhook
    /// attempts run at once.
    package var webhookDelivery = WebhookDeliverySettings()
    /// Request limits per client address and per API key (`FERRY_RATE_LIMITS`).
    package var rateLimits = RateLimitSettings.defaults
    /// Whether apps may add link domains through the API and the dashboard, with a proof of control
    /// (`FERRY_DOMAIN_SELF_SERVICE=verified`, the default), or only the operator may (`off`).
    package var domainSelfService = DomainSelfService.verified
    /// The DNS server asked for the TXT records that prove control of a domain (`FERRY_DNS_SERVER`, an IP address with
    /// an optional port); the system's first nameserver when nil.
    package var dnsServer: String?

    /// The defaults.
    package init() {}

    /// Reads the `FERRY_*` environment variables over these values.
    /// `FERRY_PASSWORD_HASH_COST` from an environment, checked; 17 when unset.
    package static func passwordHashCost(_ environment: [String: String]) throws -> Int {
        guard let value = environment["FERRY_PASSWORD_HASH_COST"], !value.isEmpty else { return 17 }
        guard let cost = Int(value), (10...20).contains(cost) else {
            throw ConfigurationError("FERRY_PASSWORD_HASH_COST must be a whole number from 10 to 20 (log2 of scrypt's cost)")
        }
        return cost
    }

    package mutating func apply(environment: [String: String]) throws {
        if let value = environment["FERRY_DATABASE_URL"], !value.isEmpty { database = try DatabaseLocation(parsing: value) }
        if let value = environment["FERRY_HOST"], !value.isEmpty { host = value }
        if let value = environment["FERRY_PORT"], !value.isEmpty {
            guard let port = Int(value), (0...65535).contains(port) else { throw ConfigurationError("FERRY_PORT must be a port number") }
            self.port = port
        }
        if let value = environment["FERRY_TRUSTED_PROXIES"], !value.isEmpty {
            do { trustedProxies = try IPNetwork.parseList(value) } catch { throw ConfigurationError("FERRY_TRUSTED_PROXIES: \(error)") }
        }
        if let value = environment["FERRY_SCANNER_NETWORKS"], !value.isEmpty {
            do { scannerNetworks = try IPNetwork.parseList(value) } catch { throw ConfigurationError("FERRY_SCANNER_NETWORKS: \(error)") }
        }
        if let value = environment["FERRY_PUBLISHED_SCANNER_NETWORKS"], !value.isEmpty {
            switch value.lowercased() {
            case "on": publishedScannerNetworks = true
            case "off": publishedScannerNetworks = false
            default: throw ConfigurationError("FERRY_PUBLISHED_SCANNER_NETWORKS must be on or off, not '\(value)'")
            }
        }
        if let value = environment["FERRY_CLICK_RETENTION_DAYS"], !value.isEmpty {
            guard let days = Int(value), (0...36500).contains(days) else {
                throw ConfigurationError("FERRY_CLICK_RETENTION_DAYS must be a number of days (0 keeps clicks for ever)")
            }
            clickRetention = days == 0 ? nil : .seconds(days * 86400)
        }
        if let value = environment["FERRY_ATTRIBUTION_OBSERVATION_RETENTION_DAYS"], !value.isEmpty {
            guard let days = Int(value), (1...365).contains(days) else {
                throw ConfigurationError("FERRY_ATTRIBUTION_OBSERVATION_RETENTION_DAYS must be a number of days from 1 to 365")
            }
            attributionObservationRetention = .seconds(days * 86400)
        }
        passwordHashCost = try Self.passwordHashCost(environment)
        if let value = environment["FERRY_AUDIT_RETENTION_DAYS"], !value.isEmpty {
            guard let days = Int(value), (1...36500).contains(days) else {
                throw ConfigurationError("FERRY_AUDIT_RETENTION_DAYS must be a number of days from 1 to 36500")
            }
            auditRetention = .seconds(days * 86400)
        }
        if let value = environment["FERRY_ATTRIBUTION_REFIT_MINUTES"], !value.isEmpty {
            guard let minutes = Int(value), (1...1440).contains(minutes) else {
                throw ConfigurationError("FERRY_ATTRIBUTION_REFIT_MINUTES must be a number of minutes from 1 to 1440")
            }
            attributionRefitInterval = .seconds(minutes * 60)
        }
        if let value = environment["FERRY_IP_HASH_KEY"], !value.isEmpty {
            guard value.utf8.count >= 16 else { throw ConfigurationError("FERRY_IP_HASH_KEY must be at least 16 characters") }
            ipHashKey = value
        }
        if let value = environment["FERRY_METRICS_ALLOW"], !value.isEmpty {
            do { metricsAllowed = try IPNetwork.parseList(value) } catch { throw ConfigurationError("FERRY_METRICS_ALLOW: \(error)") }
        }
        if let value = environment["FERRY_LINK_CACHE_CAPACITY"], !value.isEmpty {
            guard let capacity = Int(value), (1...100_000_000).contains(capacity) else {
                throw ConfigurationError("FERRY_LINK_CACHE_CAPACITY must be a number of links from 1 to 100000000")
            }
            linkCacheCapacity = capacity
        }
        if let value = environment["FERRY_CLICK_BUFFER_LIMIT"], !value.isEmpty {
            guard let limit = Int(value), (1...100_000_000).contains(limit) else {
                throw ConfigurationError("FERRY_CLICK_BUFFER_LIMIT must be a number of clicks from 1 to 100000000")
            }
            clickBufferLimit = limit
        }
        if let value = environment["FERRY_CLICK_JOURNAL"], !value.isEmpty {
            clickJournal = value.lowercased() == "off" ? .off : .directory(value)
        }
        if let value = environment["FERRY_CLICK_JOURNAL_MAX_MB"], !value.isEmpty {
            guard let megabytes = Int64(value), (16...16_777_216).contains(megabytes) else {
                throw ConfigurationError("FERRY_CLICK_JOURNAL_MAX_MB must be a number of megabytes from 16 to 16777216")
            }
            clickJournalMaxBytes = megabytes << 20
        }
        if let value = environment["FERRY_CLICK_WRITER_PRIORITY"], !value.isEmpty {
            guard let priority = ClickWriterPriority(value) else {
                throw ConfigurationError("FERRY_CLICK_WRITER_PRIORITY must be idle or a nice value from 0 to 19")
            }
            clickWriterPriority = priority
        }
        if let value = environment["FERRY_WEBHOOK_ALLOW_PRIVATE"], !value.isEmpty {
            switch value.lowercased() {
            case "1", "true", "yes", "on": webhookAllowPrivateDestinations = true
            case "0", "false", "no", "off": webhookAllowPrivateDestinations = false
            default: throw ConfigurationError("FERRY_WEBHOOK_ALLOW_PRIVATE must be 1 or 0")
            }
        }
        if let value = environment["FERRY_RATE_LIMITS"], !value.isEmpty {
            rateLimits = try RateLimitSettings(parsing: value)
        }
        if let value = environment["FERRY_READ_TIMEOUT"], !value.isEmpty {
            guard let seconds = Int(value), (1...3600).contains(seconds) else {
                throw ConfigurationError("FERRY_READ_TIMEOUT must be a number of seconds from 1 to 3600")
            }
            readTimeout = .seconds(seconds)
        }
        if let value = environment["FERRY_DOMAIN_SELF_SERVICE"], !value.isEmpty {
            guard let choice = DomainSelfService(rawValue: value.lowercased()) else {
                throw ConfigurationError("FERRY_DOMAIN_SELF_SERVICE must be verified or off")
            }
            domainSelfService = choice
        }
        if let value = environment["FERRY_DNS_SERVER"], !value.isEmpty {
            _ = try DNSTextLookup.server(named: value)
            dnsServer = value
        }
        if let value = environment["FERRY_EDGE_FAST_PATH"], !value.isEmpty {
            switch value.lowercased() {
            case "on": edgeFastPath = true
            case "off": edgeFastPath = false
            default: throw ConfigurationError("FERRY_EDGE_FAST_PATH must be on or off, not '\(value)'")
            }
        }
        if let value = environment["FERRY_LOG_LEVEL"], !value.isEmpty {
            guard let level = Logger.Level(rawValue: value.lowercased()) else { throw ConfigurationError("FERRY_LOG_LEVEL must be trace, debug, info, notice, warning, error or critical") }
            logLevel = level
        }
        if let value = environment["FERRY_LOG_FORMAT"], !value.isEmpty {
            guard let format = LogFormat(rawValue: value.lowercased()) else { throw ConfigurationError("FERRY_LOG_FORMAT must be text or json, not '\(value)'") }
            logFormat = format
        }
    }
}
#endif
