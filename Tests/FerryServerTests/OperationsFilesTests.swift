#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
@testable import FerryServer
import FerryTestSupport
import Foundation
import Testing

/// The Grafana dashboard, the alert rules and docs/operations.md against what `/metrics` exposes: nothing they
/// query is missing, every family is explained, and every alert has its section.
@Suite("Operations files", .takesTurns)
struct OperationsFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The families a text names (a histogram's `_bucket`, `_count` and `_sum` series name their family).
    static func families(in text: String) -> Set<String> {
        var names = Set<String>()
        for match in text.matches(of: /\b(?:ferry|process)_[a-z0-9_]+/) {
            var name = String(match.output)
            for suffix in ["_bucket", "_count", "_sum"] where name.hasSuffix(suffix) && ServerMetrics.help[name] == nil {
                name.removeLast(suffix.count)
            }
            names.insert(name)
        }
        return names
    }

    @Test func theDashboardIsGrafanaJSONAndQueriesOnlyWhatTheServerExposes() throws {
        let text = try Self.read("deploy/grafana/ferry-dashboard.json")
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let queries = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(queries.count >= 25)
        let named = Self.families(in: queries.joined(separator: "\n"))
        #expect(named.subtracting(ServerMetrics.help.keys).isEmpty, "unknown: \(named.subtracting(ServerMetrics.help.keys).sorted())")
        // Every family an operator acts on has a panel.
        for family in ["ferry_http_requests_total", "ferry_http_request_duration_seconds", "ferry_edge_answers_total", "ferry_clicks_pending",
                       "ferry_click_write_lag_seconds", "ferry_attribution_matches_total", "ferry_webhook_deliveries_total",
                       "ferry_webhook_queue_depth", "ferry_db_up", "ferry_db_operation_duration_seconds", "ferry_rate_limited_total",
                       "process_resident_memory_bytes"] {
            #expect(named.contains(family), "\(family) has no panel")
        }
    }

    @Test func theAlertRulesUseOnlyExposedFamiliesAndEachHasItsSectionInTheDocs() throws {
        let rules = try Self.read("deploy/prometheus/ferry-alerts.yml")
        let named = Self.families(in: rules)
        #expect(named.subtracting(ServerMetrics.help.keys).isEmpty, "unknown: \(named.subtracting(ServerMetrics.help.keys).sorted())")
        let operations = try Self.read("docs/operations.md")
        let alerts = rules.matches(of: /- alert: ([A-Za-z0-9]+)/).map { String($0.output.1) }
        #expect(alerts.count >= 12)
        let headings = Set(operations.matches(of: /\n### ([A-Za-z0-9]+)\n/).map { String($0.output.1).lowercased() })
        for alert in alerts {
            #expect(operations.contains(alert), "docs/operations.md does not mention \(alert)")
        }
        let anchors = rules.matches(of: /runbook: "docs\/operations\.md#([a-z0-9]+)"/).map { String($0.output.1) }
        #expect(anchors.count == alerts.count, "each alert points at its section")
        for anchor in anchors {
            #expect(headings.contains(anchor), "docs/operations.md has no section #\(anchor)")
        }
        // The required subjects each have an alert.
        for subject in ["ferry_http_requests_total{code=\"5xx\"}", "ferry_click_write_lag_seconds", "ferry_clicks_pending", "ferry_webhook_deliveries_total",
                        "ferry_db_up"] {
            #expect(rules.contains(subject), "no alert on \(subject)")
        }
    }

    @Test func everyFamilyIsExplainedInTheOperationsGuide() throws {
        let operations = try Self.read("docs/operations.md")
        for family in ServerMetrics.help.keys.sorted() {
            #expect(operations.contains("`\(family)`"), "docs/operations.md does not explain \(family)")
        }
    }
}
#endif
