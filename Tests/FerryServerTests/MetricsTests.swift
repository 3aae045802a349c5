#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
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
