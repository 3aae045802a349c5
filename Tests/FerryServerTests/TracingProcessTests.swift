#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import NIOHTTP1
import Testing

/// `ferry serve` as operators run it, with an OTLP/HTTP endpoint and a JSON log: a receiver written for the test
/// takes the exported spans (OTLP's JSON encoding) and the webhook deliveries, and the test reads the log the
/// process writes. The tracer is the process's own (it is bootstrapped once per process), so the server runs apart.
@Suite("Traces and logs of a running server", .serialized, .takesTurns)
struct TracingProcessTests {
    /// One exported span.
    struct Span: Equatable {
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var name: String
        var kind: Int
        var attributes: [String: String]
    }

    /// The spans in the bodies the receiver took at `/v1/traces`.
    static func spans(in receiver: WebhookTestReceiver) -> [Span] {
        receiver.requests.filter { $0.head.uri == "/v1/traces" }.flatMap { request -> [Span] in
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any] else { return [] }
            var spans: [Span] = []
            for resource in object["resourceSpans"] as? [[String: Any]] ?? [] {
                for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                    for span in scope["spans"] as? [[String: Any]] ?? [] {
                        var attributes: [String: String] = [:]
                        for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any] else { continue }
                            attributes[key] = (value["stringValue"] as? String) ?? (value["intValue"]).map { "\($0)" } ?? ""
                        }
                        spans.append(Span(traceID: hex(span["traceId"]), spanID: hex(span["spanId"]), parentSpanID: hex(span["parentSpanId"]),
                                          name: span["name"] as? String ?? "", kind: span["kind"] as? Int ?? 0, attributes: attributes))
                    }
                }
            }
            return spans
        }
    }

    /// An id as lowercase hex, whether the exporter wrote it as hex (OTLP's JSON rule) or as base64 (Protobuf's).
    static func hex(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if text.count == 32 || text.count == 16, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let bytes = Data(base64Encoded: text) else { return text }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The log's lines, each a JSON object.
    static func logLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func spansReachAnOTLPReceiverWithTheirParentsAndWebhooksCarryTheTraceOn() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("traced.sqlite").path
        let collector = try await WebhookTestReceiver.start(.answer(204))
        collector.answer(204, body: "")
        let hooks = try await WebhookTestReceiver.start(.answer(200))
        // The app, its keys, a link and a webhook, stored before the server starts (a JSON log shows no keys).
        let store = try SQLiteStore(path: path)
        let admin = FerryAdmin(store: store)
        let app = try await admin.createApp(.init(name: "Traced", domains: ["go.traced.test"]))
        let secret = try await admin.createKey(appID: app.id, kind: .secret, environment: .live).key
        let publishable = try await admin.createKey(appID: app.id, kind: .publishable, environment: .live).key
        _ = try await admin.createLink(CreateLinkRequest(slug: "traced", destination: "https://example.com/traced"), app: app, environment: .live)
        try await store.createWebhook(Webhook(id: "wh_traced", appID: app.id, environment: .live, url: "http://127.0.0.1:\(hooks.port)/hook",
                                              secret: "whsec_traced", events: [.linkClicked], createdAt: Date()))
        try await store.close()

        let port = try RawHTTPClient.freePort()
        let server = try FerryProcess.Server(database: "sqlite:" + path, port: port, directory: directory, environment: [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_BSP_SCHEDULE_DELAY": "100", "FERRY_LOG_FORMAT": "json", "FERRY_LOG_LEVEL": "debug",
            "FERRY_WEBHOOK_ALLOW_PRIVATE": "true",
        ])
        defer { server.kill() }
        for _ in 0..<400 where !server.log.contains(#""message":"Ferry is running""#) {
            #expect(server.process.isRunning, "\(server.log)")
            try await Task.sleep(for: .milliseconds(50))
        }

        // A caller's trace: the API request is its child, the store's operations the request's.
        let caller = (trace: "4bf92f3577b34da6a3ce929d0e0e4736", span: "00f067aa0ba902b7")
        let listed = try await onItsOwnThread {
            try RawHTTPClient.request(port: port, path: "/v1/links", host: "go.traced.test", headers: [
                ("Authorization", "Bearer \(secret)"), ("traceparent", "00-\(caller.trace)-\(caller.span)-01"), ("X-Forwarded-For", "203.0.113.77"),
            ])
        }
        #expect(listed.status == 200)
        // An install that matches nothing (a match span under its request's), and a click whose webhook is delivered.
        let body = String(decoding: try JSONEncoder().encode(MatchRequest(installID: "IDFV-TRACED", signals: iPhoneSignals)), as: UTF8.self)
        let matched = try await onItsOwnThread {
            try RawHTTPClient.request(port: port, method: "POST", path: "/v1/attribution/match", host: "go.traced.test", headers: [
                ("Authorization", "Bearer \(publishable)"), ("Content-Type", "application/json"), ("X-Forwarded-For", "203.0.113.78"),
            ], body: body)
        }
        #expect(matched.status == 200, "\(matched.body)")
        let click = try await onItsOwnThread {
            try RawHTTPClient.request(port: port, path: "/traced", host: "go.traced.test", headers: [("User-Agent", UA.desktop)])
        }
        #expect(click.status == 302)

        var spans: [Span] = []
        for _ in 0..<400 {
            spans = Self.spans(in: collector)
            if spans.contains(where: { $0.name == "webhook delivery" }), spans.contains(where: { $0.name.hasPrefix("POST /v1/attribution/match") }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // The API request's span is the caller's child, named by its route, and the store's reads are its children.
        let request = try #require(spans.first { $0.traceID == caller.trace && $0.parentSpanID == caller.span }, "\(spans.map(\.name))")
        #expect(request.name == "GET /v1/links")
        #expect(request.kind == 2, "a server span")
        #expect(request.attributes["http.response.status_code"] == "200" && request.attributes["http.route"] == "/v1/links")
        let reads = spans.filter { $0.parentSpanID == request.spanID }
        #expect(!reads.isEmpty && reads.allSatisfy { $0.traceID == caller.trace && $0.name.hasPrefix("db ") && $0.kind == 3 })
        #expect(reads.allSatisfy { $0.attributes["db.system"] == "sqlite" })
        // The background work that polls the database starts no traces of its own.
        #expect(spans.filter { $0.name.hasPrefix("db ") }.allSatisfy { !$0.parentSpanID.isEmpty })
        // The match: a span of its own under the request's, with its outcome.
        let matchRequest = try #require(spans.first { $0.name == "POST /v1/attribution/match" })
        #expect(matchRequest.parentSpanID.isEmpty, "a request without a traceparent starts a trace")
        let match = try #require(spans.first { $0.name == "attribution match" })
        #expect(match.parentSpanID == matchRequest.spanID && match.traceID == matchRequest.traceID)
        #expect(match.attributes["ferry.attribution.outcome"] == "not_matched" && match.attributes["ferry.attribution.tier"] == "none")
        // The delivery: a client span, and the receiver got its trace context.
        let delivery = try #require(spans.first { $0.name == "webhook delivery" })
        #expect(delivery.kind == 3 && delivery.attributes["http.response.status_code"] == "200")
        let received = try #require(hooks.requests.first)
        let traceparent = try #require(received.head.headers.first(name: "traceparent"))
        #expect(traceparent == "00-\(delivery.traceID)-\(delivery.spanID)-01")
        // No span holds a key, the client's address or the link's slug.
        let everything = collector.requests.map(\.body).joined()
        for secretText in [secret, publishable, "203.0.113.77", "203.0.113.78", "whsec_traced"] {
            #expect(!everything.contains(secretText), "\(secretText) exported")
        }

        // The log: one JSON object a line, with the request's id and trace, the app once its key is known; no key,
        // no full address.
        server.terminate()
        let process = server.process
        _ = await onItsOwnThreadWaiting { process.wait() }
        let text = server.log
        let lines = Self.logLines(text)
        #expect(lines.count == text.split(separator: "\n").count, "every line is a JSON object: \(text.prefix(2000))")
        #expect(lines.allSatisfy { $0["time"] is String && $0["level"] is String && $0["message"] is String })
        let requestLines = lines.filter { ($0["trace_id"] as? String) == caller.trace }
        #expect(!requestLines.isEmpty && requestLines.allSatisfy { ($0["request_id"] as? String)?.isEmpty == false })
        let matchLines = lines.filter { ($0["trace_id"] as? String) == match.traceID && $0["app_id"] != nil }
        #expect(matchLines.contains { ($0["app_id"] as? String) == app.id }, "a line logged after the key was found names its app")
        for secretText in [secret, publishable, "203.0.113.77", "203.0.113.78"] {
            #expect(!text.contains(secretText), "\(secretText) logged")
        }
        await collector.stop()
        await hooks.stop()
    }
}

/// Waits for something that blocks, on a thread of its own.
func onItsOwnThreadWaiting<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
#endif
