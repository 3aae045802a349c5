#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /metrics`: the node's counters in Prometheus's text format, for the operator's scraper. Answered only to
/// loopback and to the networks in `FERRY_METRICS_ALLOW`; everyone else gets a 404, as if there were no such page.
/// The client is judged by its address as the trusted proxies report it, not by the socket's peer: behind a proxy on
/// this machine every request comes from loopback.
struct MetricsController: Sendable {
    let cache: LinkCache
    let recorder: ClickRecorder
    let edge: EdgeCounters
    let limiter: RateLimiter
    let allowed: [IPNetwork]
    let addresses: ClientAddressResolver
    let started: ContinuousClock.Instant

    func register(on router: Router<FerryRequestContext>) {
        router.get("/metrics") { request, context in
            let client = addresses.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[values: EdgeController.forwardedFor])
            guard Self.mayRead(client, allowed: allowed) else {
                throw APIError(.notFound, message: "no such page")
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text())))
        }
        MethodGuard.register(on: router, [("/metrics", ["GET"])])
    }

    /// Whether a client may read the metrics: loopback, or an address in one of the allowed networks.
    static func mayRead(_ client: IPAddress?, allowed: [IPNetwork]) -> Bool {
        guard let address = client?.unmapped else { return false }
        return address.isLoopback || allowed.contains { $0.contains(address) }
    }

    /// The exposition text.
    func text() -> String {
        let clicks = recorder.statistics
        let cache = cache.statistics
        let uptime = ContinuousClock.now - started
        var lines: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ value: some CustomStringConvertible) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            lines.append("\(name) \(value)")
        }
        metric("ferry_clicks_recorded_total", "counter", "Clicks written to the database.", clicks.recorded)
        metric("ferry_clicks_dropped_total", "counter", "Clicks answered but not kept: the click journal was full, or, without one, the click buffer.",
               clicks.dropped)
        metric("ferry_clicks_pending", "gauge", "Clicks held in memory, waiting to be written.", clicks.pending)
        if let journal = recorder.journalStatistics {
            metric("ferry_click_journal_bytes", "gauge", "Bytes of the click journal on disk.", journal.bytes)
            metric("ferry_click_journal_backlog_bytes", "gauge", "Bytes of clicks in the journal not yet written to the database.", journal.backlogBytes)
            metric("ferry_click_journal_full", "gauge", "1 while the click journal refuses clicks (its limit or its disk is reached): they are dropped.",
                   journal.full ? 1 : 0)
            metric("ferry_click_journal_damaged_records_total", "counter", "Damaged click journal records skipped.", journal.damaged)
        }
        metric("ferry_edge_fast_answers_total", "counter", "Clicks answered from memory on their connection's event loop, before the framework.",
               edge.fastAnswers.load(ordering: .relaxed))
        metric("ferry_link_cache_hits_total", "counter", "Link lookups answered from the cache.", cache.hits)
        metric("ferry_link_cache_misses_total", "counter", "Link lookups the cache could not answer.", cache.misses)
        metric("ferry_link_cache_links", "gauge", "Links (and known-missing slugs) held by the cache.", cache.links)
        lines.append("# HELP ferry_rate_limited_total Requests answered 429 because their client address or API key went over a limit.")
        lines.append("# TYPE ferry_rate_limited_total counter")
        for (rule, count) in limiter.limitedTotals { lines.append("ferry_rate_limited_total{rule=\"\(rule.rawValue)\"} \(count)") }
        metric("process_uptime_seconds", "gauge", "Seconds since the server was built.", uptime.components.seconds)
        if let resident = Self.residentMemoryBytes() {
            metric("process_resident_memory_bytes", "gauge", "Resident memory of this process.", resident)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Resident memory from `/proc/self/statm` (Linux); nil elsewhere.
    static func residentMemoryBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
#endif
