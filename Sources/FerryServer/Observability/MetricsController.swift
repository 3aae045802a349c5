#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /metrics`: the server's metrics in Prometheus's text format, for the operator's scraper. Answered only to
/// loopback and to the networks in `FERRY_METRICS_ALLOW`; everyone else gets a 404, as if there were no such page.
/// The client is judged by its address as the trusted proxies report it, not by the socket's peer: behind a proxy on
/// this machine every request comes from loopback.
///
/// Events are counted as they happen (`ServerMetrics`); what the server's parts keep under their own locks (the
/// click recorder's queue, the cache's lookups, the rate limiter's refusals) and what is a state (the webhook queue,
/// the database, the process) is read here, at each scrape.
struct MetricsController: Sendable {
    let metrics: ServerMetrics
    let cache: LinkCache
    let recorder: ClickRecorder
    let edge: EdgeCounters
    let limiter: RateLimiter
    let store: any FerryDatabase
    let allowed: [IPNetwork]
    let addresses: ClientAddressResolver
    let started: ContinuousClock.Instant
    let now: @Sendable () -> Date

    func register(on router: Router<FerryRequestContext>) {
        router.get("/metrics") { request, context in
            let client = addresses.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[values: EdgeController.forwardedFor])
            guard Self.mayRead(client, allowed: allowed) else {
                throw APIError(.notFound, message: "no such page")
            }
            await collect()
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        MethodGuard.register(on: router, [("/metrics", ["GET"])])
    }

    /// Whether a client may read the metrics: loopback, or an address in one of the allowed networks.
    static func mayRead(_ client: IPAddress?, allowed: [IPNetwork]) -> Bool {
        guard let address = client?.unmapped else { return false }
        return address.isLoopback || allowed.contains { $0.contains(address) }
    }

    /// Brings the counts kept elsewhere and the states into the metrics.
    func collect() async {
        let clicks = recorder.statistics
        metrics.clicksRecorded.carry(to: clicks.recorded)
        metrics.clicksDropped.carry(to: clicks.dropped)
        metrics.gauge("ferry_clicks_pending", Double(clicks.pending))
        if let journal = recorder.journalStatistics {
            metrics.gauge("ferry_click_journal_bytes", Double(journal.bytes))
            metrics.gauge("ferry_click_journal_backlog_bytes", Double(journal.backlogBytes))
            metrics.gauge("ferry_click_journal_full", journal.full ? 1 : 0)
            metrics.journalDamaged.carry(to: journal.damaged)
        }
        metrics.fastAnswers.carry(to: edge.fastAnswers.load(ordering: .relaxed))
        let cache = cache.statistics
        metrics.cacheHits.carry(to: cache.hits)
        metrics.cacheMisses.carry(to: cache.misses)
        metrics.gauge("ferry_link_cache_links", Double(cache.links))
        for (rule, count) in limiter.limitedTotals { metrics.rateLimited[rule]?.carry(to: count) }
        let system = store.metricsSystemName
        metrics.gauge("ferry_db_up", labels: [("system", system)], store.isAway ? 0 : 1)
        if !store.isAway, let queue = try? await store.webhookQueue() {
            metrics.gauge("ferry_webhook_queue_depth", Double(queue.waiting))
            metrics.gauge("ferry_webhook_queue_oldest_age_seconds", queue.oldest.map { max(0, now().timeIntervalSince($0)) } ?? 0)
        }
        metrics.gauge("process_uptime_seconds", Double((ContinuousClock.now - started).components.seconds))
        if let process = ProcessFigures.read() {
            metrics.gauge("process_resident_memory_bytes", process.residentBytes)
            metrics.gauge("process_virtual_memory_bytes", process.virtualBytes)
            metrics.gauge("process_start_time_seconds", process.startTime)
            metrics.carryProcessorSeconds(process.cpuSeconds)
            if let open = process.openFiles { metrics.gauge("process_open_fds", open) }
            if let max = process.maxFiles { metrics.gauge("process_max_fds", max) }
        }
    }
}
#endif
