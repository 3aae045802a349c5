#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import CoreMetrics
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Prometheus
import Synchronization

/// The kinds of route whose requests are counted and timed apart (the `group` label).
package enum RouteGroup: Int, CaseIterable, Sendable {
    /// Clicks on links and the link domain's own pages and scripts.
    case edge
    /// Ferry's REST API, `/v1/…`.
    case api
    /// The compatible routes: Firebase Dynamic Links' REST API and the LimeLink- and LinkTrace-style `/api/…`.
    case compat
    /// `/dashboard…`.
    case dashboard
    /// The Apple and Android association files.
    case association
    /// `/healthz`, `/readyz`, `/metrics`, `/openapi.yaml`.
    case system

    var label: String {
        switch self {
        case .edge: "edge"
        case .api: "api"
        case .compat: "compat"
        case .dashboard: "dashboard"
        case .association: "association"
        case .system: "system"
        }
    }

    /// The group a path belongs to (by its first segment; nothing of the path becomes a label).
    static func of(path: String) -> RouteGroup {
        if path.hasPrefix("/v1/") || path == "/v1" {
            return path.hasPrefix(FirebaseRESTController.shortLinks) ? .compat : .api
        }
        if path.hasPrefix("/api/") { return .compat }
        if path.hasPrefix("/dashboard") { return .dashboard }
        if path.hasPrefix("/.well-known/") || path == "/apple-app-site-association" { return .association }
        switch path {
        case "/metrics", "/healthz", "/readyz", "/openapi.yaml": return .system
        default: return .edge
        }
    }
}

/// What the edge answered a click with (the `kind` label of `ferry_edge_answers_total`).
enum EdgeAnswerKind: Int, CaseIterable, Sendable {
    case redirect, preview, interstitial, notFound, gone, rateLimited, unavailable, otherPage

    var label: String {
        switch self {
        case .redirect: "redirect"
        case .preview: "preview"
        case .interstitial: "interstitial"
        case .notFound: "not_found"
        case .gone: "gone"
        case .rateLimited: "rate_limited"
        case .unavailable: "unavailable"
        case .otherPage: "other_page"
        }
    }

    /// A status page's kind, by its status.
    static func page(status: Int) -> EdgeAnswerKind {
        switch status {
        case 404: .notFound
        case 410: .gone
        case 429: .rateLimited
        case 503: .unavailable
        default: .otherPage
        }
    }
}

/// A count kept by a part of the server under its own lock (the click recorder's, the cache's), carried into a
/// swift-metrics counter at each scrape by what it grew since the last one.
final class CarriedCount: Sendable {
    let counter: CoreMetrics.Counter
    private let carried = Mutex<Int>(0)

    init(_ label: String, _ dimensions: [(String, String)] = [], factory: any MetricsFactory) {
        counter = CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
        counter.increment(by: 0)
    }

    func carry(to total: Int) {
        let growth = carried.withLock { carried in
            defer { carried = max(carried, total) }
            return total - carried
        }
        if growth > 0 { counter.increment(by: growth) }
    }
}

/// The server's metrics: made through swift-metrics on a Prometheus registry of the server's own (not the process's
/// global one, so that each server of a test process counts alone), and answered on `/metrics` in Prometheus's text
/// format with a `# HELP` line for each family.
///
/// Labels are bounded: route groups, answer kinds, outcomes, rule names. Never a slug, a key, an address or an id.
package final class ServerMetrics: Sendable {
    package let registry: PrometheusCollectorRegistry
    package let factory: PrometheusMetricsFactory

    private let requests: [[CoreMetrics.Counter]]
    private let requestDurations: [CoreMetrics.Timer]
    private let edgeAnswers: [CoreMetrics.Counter]
    private let matches: [String: CoreMetrics.Counter]
    private let matchConfidence: Recorder
    private let matchDuration: CoreMetrics.Timer
    private let deliveries: [String: CoreMetrics.Counter]
    private let deliveryDuration: CoreMetrics.Timer
    private let deliveryQueueAge: CoreMetrics.Timer
    private let clickWriteLag: CoreMetrics.Timer
    private let clickBatchDuration: CoreMetrics.Timer
    private let clickBatchFailures: CoreMetrics.Counter
    let clicksRecorded: CarriedCount
    let clicksDropped: CarriedCount
    let journalDamaged: CarriedCount
    let fastAnswers: CarriedCount
    let cacheHits: CarriedCount
    let cacheMisses: CarriedCount
    let rateLimited: [RateLimitRule: CarriedCount]
    let databaseUnavailable: CoreMetrics.Counter
    let cpuSeconds: FloatingPointCounter
    private let cpuCarried = Mutex<Double>(0)

    /// The outcomes and tiers of `ferry_attribution_matches_total`.
    static let matchLabels: [(outcome: String, tier: String)] = [
        ("matched", "deterministic"), ("matched", "probabilistic"), ("not_matched", "none"), ("repeated", "deterministic"),
        ("repeated", "probabilistic"), ("repeated", "none"),
    ]
    /// The results of `ferry_webhook_deliveries_total`.
    static let deliveryResults = ["delivered", "retrying", "failed"]

    package init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        let fast: [Duration] = [.microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5),
                                .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                                .seconds(1), .seconds(2.5), .seconds(5), .seconds(10)]
        let waits: [Duration] = [.milliseconds(100), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
                                 .seconds(300), .seconds(900), .seconds(3600), .seconds(6 * 3600), .seconds(24 * 3600)]
        factory.durationHistogramBuckets = [
            "ferry_http_request_duration_seconds": fast,
            "ferry_db_operation_duration_seconds": fast,
            "ferry_attribution_match_duration_seconds": fast,
            "ferry_click_batch_write_duration_seconds": fast,
            "ferry_webhook_delivery_duration_seconds": [.milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                                                        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
                                                        .seconds(30)],
            "ferry_click_write_lag_seconds": waits,
            "ferry_webhook_queue_age_seconds": waits,
        ]
        factory.valueHistogramBuckets = ["ferry_attribution_match_confidence": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1]]
        self.factory = factory

        requests = RouteGroup.allCases.map { group in
            ["1xx", "2xx", "3xx", "4xx", "5xx"].map { code in
                let counter = CoreMetrics.Counter(label: "ferry_http_requests_total", dimensions: [("group", group.label), ("code", code)], factory: factory)
                counter.increment(by: 0)
                return counter
            }
        }
        requestDurations = RouteGroup.allCases.map {
            CoreMetrics.Timer(label: "ferry_http_request_duration_seconds", dimensions: [("group", $0.label)], factory: factory)
        }
        edgeAnswers = EdgeAnswerKind.allCases.map {
            let counter = CoreMetrics.Counter(label: "ferry_edge_answers_total", dimensions: [("kind", $0.label)], factory: factory)
            counter.increment(by: 0)
            return counter
        }
        var matches: [String: CoreMetrics.Counter] = [:]
        for (outcome, tier) in Self.matchLabels {
            let counter = CoreMetrics.Counter(label: "ferry_attribution_matches_total", dimensions: [("outcome", outcome), ("tier", tier)], factory: factory)
            counter.increment(by: 0)
            matches["\(outcome)/\(tier)"] = counter
        }
        self.matches = matches
        matchConfidence = Recorder(label: "ferry_attribution_match_confidence", factory: factory)
        matchDuration = CoreMetrics.Timer(label: "ferry_attribution_match_duration_seconds", factory: factory)
        var deliveries: [String: CoreMetrics.Counter] = [:]
        for result in Self.deliveryResults {
            let counter = CoreMetrics.Counter(label: "ferry_webhook_deliveries_total", dimensions: [("result", result)], factory: factory)
            counter.increment(by: 0)
            deliveries[result] = counter
        }
        self.deliveries = deliveries
        deliveryDuration = CoreMetrics.Timer(label: "ferry_webhook_delivery_duration_seconds", factory: factory)
        deliveryQueueAge = CoreMetrics.Timer(label: "ferry_webhook_queue_age_seconds", factory: factory)
        clickWriteLag = CoreMetrics.Timer(label: "ferry_click_write_lag_seconds", factory: factory)
        clickBatchDuration = CoreMetrics.Timer(label: "ferry_click_batch_write_duration_seconds", factory: factory)
        clickBatchFailures = CoreMetrics.Counter(label: "ferry_click_batch_failures_total", factory: factory)
        clickBatchFailures.increment(by: 0)
        clicksRecorded = CarriedCount("ferry_clicks_recorded_total", factory: factory)
        clicksDropped = CarriedCount("ferry_clicks_dropped_total", factory: factory)
        journalDamaged = CarriedCount("ferry_click_journal_damaged_records_total", factory: factory)
        fastAnswers = CarriedCount("ferry_edge_fast_answers_total", factory: factory)
        cacheHits = CarriedCount("ferry_link_cache_hits_total", factory: factory)
        cacheMisses = CarriedCount("ferry_link_cache_misses_total", factory: factory)
        rateLimited = Dictionary(uniqueKeysWithValues: RateLimitRule.allCases.map {
            ($0, CarriedCount("ferry_rate_limited_total", [("rule", $0.rawValue)], factory: factory))
        })
        databaseUnavailable = CoreMetrics.Counter(label: "ferry_db_unavailable_answers_total", factory: factory)
        databaseUnavailable.increment(by: 0)
        cpuSeconds = FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory)
    }

    // MARK: Events

    /// A request answered by the router or by the edge's fast path.
    func requestAnswered(_ group: RouteGroup, status: Int, nanoseconds: Int64) {
        let index = min(max(status / 100, 1), 5) - 1
        requests[group.rawValue][index].increment()
        requestDurations[group.rawValue].recordNanoseconds(nanoseconds)
    }

    func edgeAnswered(_ kind: EdgeAnswerKind) {
        edgeAnswers[kind.rawValue].increment()
    }

    /// An attribution answer: `repeated` when it is one stored before, given again.
    func matched(_ record: AttributionRecord, repeated: Bool, nanoseconds: Int64) {
        let (outcome, tier) = Self.matchLabels(record, repeated: repeated)
        matches["\(outcome)/\(tier)"]?.increment()
        if !repeated, record.matchType == .probabilistic, let confidence = record.confidence { matchConfidence.record(confidence) }
        matchDuration.recordNanoseconds(nanoseconds)
    }

    /// The outcome and tier of an answer: `matched`, `not_matched` or `repeated`; `deterministic`, `probabilistic`
    /// or `none`.
    static func matchLabels(_ record: AttributionRecord, repeated: Bool) -> (outcome: String, tier: String) {
        let tier = record.clickID == nil ? "none" : record.matchType?.rawValue ?? "none"
        return (repeated ? "repeated" : record.clickID == nil ? "not_matched" : "matched", tier)
    }

    /// A webhook delivery attempt: `delivered`, `retrying` or `failed` (given up); its age since the event was queued.
    func delivered(result: String, age: TimeInterval, nanoseconds: Int64) {
        deliveries[result]?.increment()
        deliveryDuration.recordNanoseconds(nanoseconds)
        deliveryQueueAge.recordNanoseconds(Int64(max(0, age) * 1e9))
    }

    /// A batch of clicks stored: how long its oldest click waited, and how long the write took.
    func clicksWritten(oldest: Date?, nanoseconds: Int64) {
        if let oldest { clickWriteLag.recordNanoseconds(Int64(max(0, Date().timeIntervalSince(oldest)) * 1e9)) }
        clickBatchDuration.recordNanoseconds(nanoseconds)
    }

    func clickBatchFailed() { clickBatchFailures.increment() }

    /// A gauge set to `value` (made on first use, then found in the registry).
    func gauge(_ label: String, labels dimensions: [(String, String)] = [], _ value: Double) {
        Gauge(label: label, dimensions: dimensions, factory: factory).record(value)
    }

    /// Processor time carried into `process_cpu_seconds_total`.
    func carryProcessorSeconds(_ total: Double) {
        let growth = cpuCarried.withLock { carried in
            defer { carried = max(carried, total) }
            return total - carried
        }
        if growth > 0 { cpuSeconds.increment(by: growth) }
    }

    // MARK: Exposition

    /// The registry's text, families in the order of their names, each with its `# HELP` line before its `# TYPE`
    /// line.
    func exposition() -> String {
        var families: [(name: Substring, lines: [Substring])] = []
        for line in registry.emitToString().split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                families.append((line.dropFirst(7).prefix { $0 != " " }, [line]))
            } else if !families.isEmpty {
                families[families.count - 1].lines.append(line)
            }
        }
        var out = ""
        for family in families.sorted(by: { $0.name < $1.name }) {
            if let help = Self.help[String(family.name)] { out += "# HELP \(family.name) \(help)\n" }
            for line in family.lines {
                out += line
                out += "\n"
            }
        }
        return out
    }

    /// What each family measures (docs/operations.md says what to do about it).
    static let help: [String: String] = [
        "ferry_http_requests_total": "Requests answered, by route group and status class (the edge's fast path included).",
        "ferry_http_request_duration_seconds": "Time from a request's arrival to its answer, by route group.",
        "ferry_edge_answers_total": "Clicks and link-domain pages answered, by kind of answer.",
        "ferry_edge_fast_answers_total": "Clicks answered from memory on their connection's event loop, before the framework.",
        "ferry_link_cache_hits_total": "Link lookups answered from the cache.",
        "ferry_link_cache_misses_total": "Link lookups the cache could not answer.",
        "ferry_link_cache_links": "Links (and known-missing slugs) held by the cache.",
        "ferry_clicks_recorded_total": "Clicks written to the database.",
        "ferry_clicks_dropped_total": "Clicks answered but not kept: the click journal was full, or, without one, the click buffer.",
        "ferry_clicks_pending": "Clicks answered and not yet written to the database (the click recorder's queue).",
        "ferry_click_write_lag_seconds": "How long the oldest click of each batch waited between its answer and its write.",
        "ferry_click_batch_write_duration_seconds": "Time to write one batch of clicks.",
        "ferry_click_batch_failures_total": "Batches of clicks the database refused (they are tried again).",
        "ferry_click_journal_bytes": "Bytes of the click journal on disk.",
        "ferry_click_journal_backlog_bytes": "Bytes of clicks in the journal not yet written to the database.",
        "ferry_click_journal_full": "1 while the click journal refuses clicks (its limit or its disk is reached): they are dropped.",
        "ferry_click_journal_damaged_records_total": "Damaged click journal records skipped.",
        "ferry_attribution_matches_total": "Installs attributed, by outcome (matched, not_matched, repeated: a stored answer given again) and tier.",
        "ferry_attribution_match_confidence": "Confidence of the probabilistic matches made.",
        "ferry_attribution_match_duration_seconds": "Time to attribute one install.",
        "ferry_webhook_deliveries_total": "Webhook delivery attempts, by result (delivered, retrying after a failure, failed for good).",
        "ferry_webhook_delivery_duration_seconds": "Time of one webhook delivery attempt.",
        "ferry_webhook_queue_age_seconds": "Age of each webhook event when an attempt to deliver it was made.",
        "ferry_webhook_queue_depth": "Webhook deliveries waiting for an attempt (due now or retrying later).",
        "ferry_webhook_queue_oldest_age_seconds": "Age of the oldest webhook delivery still waiting (0 when none).",
        "ferry_rate_limited_total": "Requests answered 429 because their client address or API key went over a limit, by rule.",
        "ferry_db_operation_duration_seconds": "Time of one database operation (a read, or a write or transaction), by database.",
        "ferry_db_operation_errors_total": "Database operations that failed, by database.",
        "ferry_db_operations_in_flight": "Database operations under way or waiting for a connection.",
        "ferry_db_connections_max": "Connections the database pool may open (SQLite: readers and the writer).",
        "ferry_db_up": "1 while the database answers, 0 while it is away.",
        "ferry_db_unavailable_answers_total": "Requests answered 503 database_unavailable.",
        "process_resident_memory_bytes": "Resident memory of this process.",
        "process_virtual_memory_bytes": "Virtual memory of this process.",
        "process_cpu_seconds_total": "Processor time of this process, user and system.",
        "process_open_fds": "Open file descriptors.",
        "process_max_fds": "The limit of open file descriptors.",
        "process_start_time_seconds": "When this process started, in seconds since 1970.",
        "process_uptime_seconds": "Seconds since the server was built.",
    ]
}

/// What `/proc` says of this process (Linux); nil elsewhere.
struct ProcessFigures {
    var residentBytes: Double
    var virtualBytes: Double
    var cpuSeconds: Double
    var startTime: Double
    var openFiles: Double?
    var maxFiles: Double?

    static func read() -> ProcessFigures? {
        #if os(Linux)
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let boot = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        let memory = statm.split(separator: " ")
        // The command name (field 2) is in parentheses and may hold spaces: the fields are counted after its end.
        guard memory.count > 1, let virtualPages = Double(memory[0]), let residentPages = Double(memory[1]),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so field n is at n - 3.
        guard fields.count > 19, let user = Double(fields[11]), let system = Double(fields[12]), let started = Double(fields[19]),
              let bootLine = boot.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let bootTime = Double(bootLine.dropFirst(6).trimmingCharacters(in: .whitespaces)) else { return nil }
        var figures = ProcessFigures(residentBytes: residentPages * page, virtualBytes: virtualPages * page, cpuSeconds: (user + system) / ticks,
                                     startTime: bootTime + started / ticks)
        figures.openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { Double($0.count) }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { figures.maxFiles = Double(limit.rlim_cur) }
        return figures
        #else
        return nil
        #endif
    }
}
#endif
