#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Metrics", .takesTurns)
struct MetricsTests {
    @Test func aScraperOnLoopbackReadsClickAndCacheCountersInPrometheusText() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "counted", destination: "https://example.com/"), app: fixture.app, environment: .live)
        try await fixture.application().testLive { client in
            for _ in 0..<3 {
                #expect(try await client.execute(uri: "/counted", method: .get, headers: headers(userAgent: UA.desktop)).status == .found)
            }
            #expect(try await client.execute(uri: "/missing", method: .get, headers: headers(userAgent: UA.desktop)).status == .notFound)
            func metrics() async throws -> [String: Double] {
                let response = try await client.execute(uri: "/metrics", method: .get, headers: [:])
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                var values: [String: Double] = [:]
                for line in String(buffer: response.body).split(separator: "\n") where !line.hasPrefix("#") {
                    let parts = line.split(separator: " ")
                    values[String(parts[0])] = Double(parts[1])
                }
                return values
            }
            var values = try await metrics()
            for _ in 0..<100 where values["ferry_clicks_recorded_total"] != 3 {
                try await Task.sleep(for: .milliseconds(20))
                values = try await metrics()
            }
            #expect(values["ferry_clicks_recorded_total"] == 3)
            #expect(values["ferry_clicks_dropped_total"] == 0)
            #expect(values["ferry_clicks_pending"] == 0)
            // The first click looked the link up, the two others found it in memory; the unknown slug missed.
            #expect(values["ferry_link_cache_hits_total"] == 2)
            #expect(values["ferry_link_cache_misses_total"] == 2)
            #expect(values["ferry_link_cache_links"] == 2, "the link and the knowledge that the other slug does not exist")
            #expect((values["process_resident_memory_bytes"] ?? 0) > 1_000_000)
        }
    }

    /// One scrape: each series (name with its labels, as written) and its value.
    static func scrape(_ client: some TestClientProtocol) async throws -> (text: String, values: [String: Double]) {
        let response = try await client.execute(uri: "/metrics", method: .get, headers: [:])
        #expect(response.status == .ok)
        let text = String(buffer: response.body)
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            values[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        return (text, values)
    }

    /// The labels each family may carry, and the values each label may take: nothing a request chooses.
    static let allowedLabels: [String: Set<String>] = [
        "group": Set(RouteGroup.allCases.map(\.label)), "code": ["1xx", "2xx", "3xx", "4xx", "5xx"],
        "kind": Set(EdgeAnswerKind.allCases.map(\.label)), "outcome": ["matched", "not_matched", "repeated"],
        "tier": ["deterministic", "probabilistic", "none"], "result": Set(ServerMetrics.deliveryResults),
        "rule": Set(RateLimitRule.allCases.map(\.rawValue)), "system": ["sqlite", "postgresql"], "operation": ["read", "write"],
    ]

    @Test func afterRealTrafficEveryFamilyIsThereAndCountsWhatHappened() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "spring-sale", destination: "https://example.com/sale", iosURL: "example://sale"),
                                                      app: fixture.app, environment: .live)
        let receiver = try await WebhookTestReceiver.start(.answer(200))
        try await fixture.store.createWebhook(Webhook(id: "wh_metrics", appID: fixture.app.id, environment: .live, url: "http://127.0.0.1:\(receiver.port)/hook",
                                                      secret: "whsec_metrics", events: [.linkClicked], createdAt: Date()))
        var configuration = try RateLimitTests.configuration("unknown-slugs=1/min")
        configuration.webhookPollInterval = .milliseconds(50)
        configuration.webhookAllowPrivateDestinations = true
        try await fixture.application(configuration).testLive { client in
            let desktop = headers(userAgent: UA.desktop, extra: [(.forwardedFor, "203.0.113.7")])
            for _ in 0..<3 { #expect(try await client.execute(uri: "/spring-sale", method: .get, headers: desktop).status == .found) }
            #expect(try await client.execute(uri: "/spring-sale", method: .get, headers: headers(userAgent: UA.slackBot)).status == .ok)
            let clickID = try await clickOnIPhone(client, slug: "spring-sale", address: "203.0.113.8")
            let stranger = headers(userAgent: UA.desktop, extra: [(.forwardedFor, "198.51.100.77")])
            #expect(try await client.execute(uri: "/no-such-1", method: .get, headers: stranger).status == .notFound)
            #expect(try await client.execute(uri: "/no-such-2", method: .get, headers: stranger).status == .tooManyRequests)
            #expect(try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret)).status == .ok)
            #expect(try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: "fs_live_" + String(repeating: "x", count: 32))).status == .unauthorized)
            _ = try await client.execute(uri: "/api/v1/app/dynamic_link/spring-sale", method: .get, headers: headers())
            _ = try await client.execute(uri: "/dashboard", method: .get, headers: headers())
            #expect(try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: headers()).status == .ok)
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            func match(_ install: String, from address: String, token: String?) async throws {
                let response = try await client.execute(
                    uri: "/v1/attribution/match", method: .post, headers: headers(key: fixture.publishable, json: true, extra: [(.forwardedFor, address)]),
                    body: jsonBody(MatchRequest(installID: install, signals: iPhoneSignals, clickToken: token)))
                #expect(response.status == .ok)
            }
            try await match("IDFV-TOKEN", from: "192.0.2.50", token: "ferry:\(clickID)")
            try await match("IDFV-TOKEN", from: "192.0.2.50", token: "ferry:\(clickID)")
            try await match("IDFV-NOBODY", from: "192.0.2.99", token: nil)

            // Every click stored and every delivery it made attempted, then one scrape.
            var scrape = try await Self.scrape(client)
            for _ in 0..<250 {
                let waiting = try await fixture.store.webhookQueue().waiting
                if scrape.values["ferry_clicks_pending"] == 0, waiting == 0, !receiver.requests.isEmpty { break }
                try await Task.sleep(for: .milliseconds(20))
                scrape = try await Self.scrape(client)
            }
            scrape = try await Self.scrape(client)
            let (text, values) = scrape
            func value(_ series: String) -> Double { values[series] ?? -1 }

            // Every family is there with its help (the journal's gauges only with a journal: this server has none).
            for (name, _) in ServerMetrics.help where !name.hasPrefix("ferry_click_journal_") || name.hasSuffix("_total") {
                #expect(text.contains("\n# TYPE \(name) ") || text.hasPrefix("# TYPE \(name) ") || text.contains("# HELP \(name) "), "\(name) missing")
                #expect(text.contains("# HELP \(name) "), "\(name) has no help")
            }
            // The edge: three redirects, a preview, an interstitial, a 404, a 429, by kind and by status.
            #expect(value(#"ferry_edge_answers_total{kind="redirect"}"#) == 3)
            #expect(value(#"ferry_edge_answers_total{kind="preview"}"#) == 1)
            #expect(value(#"ferry_edge_answers_total{kind="interstitial"}"#) == 1)
            #expect(value(#"ferry_edge_answers_total{kind="not_found"}"#) == 1)
            #expect(value(#"ferry_edge_answers_total{kind="rate_limited"}"#) == 1)
            #expect(value(#"ferry_edge_answers_total{kind="gone"}"#) == 0)
            #expect(value(#"ferry_http_requests_total{group="edge",code="3xx"}"#) == 3)
            #expect(value(#"ferry_http_requests_total{group="edge",code="4xx"}"#) == 2)
            #expect(value(#"ferry_rate_limited_total{rule="unknown-slugs"}"#) == 1)
            // The API: the list, the refused key and three matches; each timed.
            #expect(value(#"ferry_http_requests_total{group="api",code="2xx"}"#) == 4)
            #expect(value(#"ferry_http_requests_total{group="api",code="4xx"}"#) == 1)
            #expect(value(#"ferry_http_request_duration_seconds_count{group="api"}"#) == 5)
            #expect(value(#"ferry_http_requests_total{group="association",code="2xx"}"#) == 1)
            #expect(["2xx", "3xx", "4xx"].map { value(#"ferry_http_requests_total{group="compat",code="\#($0)"}"#) }.reduce(0, +) == 1)
            #expect(["2xx", "3xx"].map { value(#"ferry_http_requests_total{group="dashboard",code="\#($0)"}"#) }.reduce(0, +) == 1)
            let edgeAnswered = ["2xx", "3xx", "4xx"].map { value(#"ferry_http_requests_total{group="edge",code="\#($0)"}"#) }.reduce(0, +)
            #expect(value(#"ferry_http_request_duration_seconds_count{group="edge"}"#) == edgeAnswered, "the fast path's answers are timed too")
            // Attribution: the token's match, the same install again, an install nobody clicked for.
            #expect(value(#"ferry_attribution_matches_total{outcome="matched",tier="deterministic"}"#) == 1)
            #expect(value(#"ferry_attribution_matches_total{outcome="repeated",tier="deterministic"}"#) == 1)
            #expect(value(#"ferry_attribution_matches_total{outcome="not_matched",tier="none"}"#) == 1)
            #expect(value("ferry_attribution_match_duration_seconds_count") == 3)
            // Clicks: all stored, none waiting, each batch's lag measured.
            let stored = try await fixture.store.clickCount(linkID: link.id)
            #expect(value("ferry_clicks_recorded_total") == Double(stored))
            #expect(value("ferry_clicks_pending") == 0 && value("ferry_clicks_dropped_total") == 0)
            #expect(value("ferry_click_write_lag_seconds_count") >= 1 && value("ferry_click_batch_write_duration_seconds_count") >= 1)
            // Webhooks: every attempt the receiver saw, delivered, the queue empty.
            #expect(value(#"ferry_webhook_deliveries_total{result="delivered"}"#) == Double(receiver.requests.count))
            #expect(value("ferry_webhook_queue_age_seconds_count") == Double(receiver.requests.count))
            #expect(value("ferry_webhook_queue_depth") == 0 && value("ferry_webhook_queue_oldest_age_seconds") == 0)
            // The database and the process.
            #expect(value(#"ferry_db_operation_duration_seconds_count{system="sqlite",operation="read"}"#) > 0)
            #expect(value(#"ferry_db_operation_duration_seconds_count{system="sqlite",operation="write"}"#) > 0)
            #expect(value(#"ferry_db_connections_max{system="sqlite"}"#) == 8)
            #expect((0...8).contains(value(#"ferry_db_operations_in_flight{system="sqlite"}"#)))
            #expect(value(#"ferry_db_up{system="sqlite"}"#) == 1)
            #expect(value("process_resident_memory_bytes") > 1_000_000 && value("process_cpu_seconds_total") > 0 && value("process_open_fds") > 0)
            #expect(abs(value("process_start_time_seconds") - Date().timeIntervalSince1970) < 3600)

            // Bounded labels: every label is one of the known names with one of its known values; no slug, key or
            // address anywhere.
            for series in values.keys {
                guard let open = series.firstIndex(of: "{") else { continue }
                for pair in series[series.index(after: open)..<series.index(before: series.endIndex)].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    let label = parts[0], shown = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    if label == "le" {
                        #expect(shown == "+Inf" || Double(shown) != nil, "\(series)")
                    } else {
                        #expect(Self.allowedLabels[label]?.contains(shown) == true, "\(series): \(label)=\(shown)")
                    }
                }
            }
            for secret in ["spring-sale", "no-such", fixture.secret, fixture.publishable, "203.0.113.", "198.51.100.", "192.0.2.", "IDFV-", "wh_metrics"] {
                #expect(!text.contains(secret), "\(secret) in the metrics")
            }
        }
        await receiver.stop()
    }

    @Test(.enabled(if: MultiNodeTests.postgresURL != nil, "needs FERRY_TEST_POSTGRES_URL"))
    func onPostgreSQLTheStoreMeasuresItsOperationsPoolAndQueue() async throws {
        let store = try await PostgresStore(url: try MultiNodeTests.schemaURL())
        let admin = FerryAdmin(store: store)
        let app = try await admin.createApp(.init(name: "Measured", domains: ["go.example.com"]))
        let secret = try await admin.createKey(appID: app.id, kind: .secret, environment: .live).key
        try await store.createWebhook(Webhook(id: "wh_pg", appID: app.id, environment: .live, url: "https://hooks.example.com/in",
                                              secret: "whsec_pg", events: [.linkClicked], createdAt: Date()))
        let queued = Date().addingTimeInterval(-120)
        try await store.enqueueDeliveries([WebhookDelivery(id: "dlv_pg_1", webhookID: "wh_pg", appID: app.id, event: .linkClicked, payload: "{}",
                                                           nextAttemptAt: Date().addingTimeInterval(3600), createdAt: queued)])
        var configuration = Fixture.configuration
        configuration.webhookPollInterval = .seconds(3600)
        try await buildApplication(configuration, store: store).testLive { client in
            for _ in 0..<3 { #expect(try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: secret)).status == .ok) }
            let created = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: secret, json: true),
                                                   body: jsonBody(#"{"slug": "measured", "destination": "https://example.com/"}"#))
            #expect(created.status == .created)
            let values = try await Self.scrape(client).values
            #expect((values[#"ferry_db_operation_duration_seconds_count{system="postgresql",operation="read"}"#] ?? 0) >= 3)
            #expect((values[#"ferry_db_operation_duration_seconds_count{system="postgresql",operation="write"}"#] ?? 0) >= 1)
            #expect(values[#"ferry_db_operation_errors_total{system="postgresql",operation="read"}"#] == 0)
            #expect(values[#"ferry_db_connections_max{system="postgresql"}"#] == 10)
            #expect(values[#"ferry_db_up{system="postgresql"}"#] == 1)
            #expect(values["ferry_webhook_queue_depth"] == 1, "a delivery waiting for its retry is in the queue")
            #expect((values["ferry_webhook_queue_oldest_age_seconds"] ?? 0) >= 119)
            #expect(values.keys.allSatisfy { !$0.contains(#"system="sqlite""#) })
        }
        try await store.close()
    }

    @Test func eachPathBelongsToItsRouteGroup() {
        let expected: [(String, RouteGroup)] = [
            ("/spring", .edge), ("/", .edge), ("/.ferry/signals", .edge), ("/v1/links", .api), ("/v1/attribution/match", .api), ("/v1", .api),
            ("/v1/shortLinks", .compat), ("/api/v1/app/dynamic_link/x", .compat), ("/api/v1/referral-links", .compat),
            ("/dashboard", .dashboard), ("/dashboard/links", .dashboard), ("/.well-known/apple-app-site-association", .association),
            ("/.well-known/assetlinks.json", .association), ("/apple-app-site-association", .association), ("/metrics", .system),
            ("/healthz", .system), ("/readyz", .system), ("/openapi.yaml", .system), ("/v1x", .edge), ("/api", .edge),
        ]
        for (path, group) in expected { #expect(RouteGroup.of(path: path) == group, "\(path)") }
    }

    @Test func aClientBehindAProxyOnThisMachineIsJudgedByTheAddressTheProxyReports() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        var configuration = Fixture.configuration
        configuration.metricsAllowed = try IPNetwork.parseList("10.1.0.0/16")
        try await fixture.application(configuration).testLive { client in
            // The proxy is on loopback (trusted by default), so every request reaches Ferry from 127.0.0.1.
            for outsider in ["203.0.113.9", "10.2.0.1", "198.51.100.4, 127.0.0.1"] {
                let response = try await client.execute(uri: "/metrics", method: .get, headers: headers(extra: [(.forwardedFor, outsider)]))
                #expect(response.status == .notFound, "\(outsider) read the metrics through the proxy")
                #expect(!String(buffer: response.body).contains("ferry_"))
            }
            for scraper in ["10.1.2.3", "127.0.0.1"] {
                let response = try await client.execute(uri: "/metrics", method: .get, headers: headers(extra: [(.forwardedFor, scraper)]))
                #expect(response.status == .ok, "\(scraper) behind the proxy")
            }
        }
    }

    @Test func onlyLoopbackAndAllowedNetworksMayRead() throws {
        let allowed = try IPNetwork.parseList("10.1.0.0/16, 2001:db8::/32")
        #expect(MetricsController.mayRead(IPAddress("127.0.0.1"), allowed: []))
        #expect(MetricsController.mayRead(IPAddress("::1"), allowed: []))
        #expect(MetricsController.mayRead(IPAddress("::ffff:127.0.0.1"), allowed: []))
        #expect(MetricsController.mayRead(IPAddress("10.1.2.3"), allowed: allowed))
        #expect(MetricsController.mayRead(IPAddress("2001:db8::7"), allowed: allowed))
        #expect(!MetricsController.mayRead(IPAddress("10.2.0.1"), allowed: allowed))
        #expect(!MetricsController.mayRead(IPAddress("203.0.113.9"), allowed: []))
        #expect(!MetricsController.mayRead(nil, allowed: allowed), "a client without an address is not a scraper")
        #expect(!MetricsController.mayRead(IPAddress("not an address"), allowed: allowed))
    }

    @Test func theEnvironmentSetsWhoMayReadAndTheBuffers() throws {
        var configuration = FerryConfiguration()
        try configuration.apply(environment: ["FERRY_METRICS_ALLOW": "10.0.0.0/8", "FERRY_LINK_CACHE_CAPACITY": "5000", "FERRY_CLICK_BUFFER_LIMIT": "20000"])
        #expect(configuration.metricsAllowed.count == 1 && configuration.linkCacheCapacity == 5000 && configuration.clickBufferLimit == 20000)
        #expect(configuration.clickWriterPriority == .nice(19), "the writer runs at the lowest nice value unless told otherwise")
        try configuration.apply(environment: ["FERRY_CLICK_WRITER_PRIORITY": "4"])
        #expect(configuration.clickWriterPriority == .nice(4))
        try configuration.apply(environment: ["FERRY_CLICK_WRITER_PRIORITY": "IDLE"])
        #expect(configuration.clickWriterPriority == .idle)
        for (name, value) in [("FERRY_METRICS_ALLOW", "10.0.0.0/99"), ("FERRY_LINK_CACHE_CAPACITY", "0"), ("FERRY_LINK_CACHE_CAPACITY", "lots"),
                              ("FERRY_CLICK_BUFFER_LIMIT", "-1"), ("FERRY_CLICK_WRITER_PRIORITY", "20"),
                              ("FERRY_CLICK_WRITER_PRIORITY", "-5"), ("FERRY_CLICK_WRITER_PRIORITY", "lowest")] {
            var other = FerryConfiguration()
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { try other.apply(environment: [name: value]) }
        }
    }
}
#endif
