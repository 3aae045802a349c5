#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The audit log as a team meets it: every change made with a key, in the dashboard or on the command line is recorded
/// with who made it, from where and what changed (never a secret), and read back with `GET /v1/audit-log`.
@Suite("Audit log", .takesTurns)
struct AuditLogTests {
    static func log(_ client: some TestClientProtocol, key: String, query: String = "") async throws -> AuditLogResponse {
        let response = try await client.execute(uri: FerryRoutes.auditLog + query, method: .get, headers: headers(key: key))
        #expect(response.status == .ok, "\(response.text)")
        return try response.decode(AuditLogResponse.self)
    }

    @Test func changesMadeWithAKeyAreRecordedWithTheirAddressAndFieldsAndReadBack() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let keyID = try #require(try await fixture.store.keys(appID: fixture.app.id).first { $0.kind == .secret && $0.environment == .live }?.id)
        let from: [(HTTPField.Name, String)] = [(.forwardedFor, "203.0.113.9")]
        try await fixture.application().testLive { client in
            let created = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true, extra: from),
                                                   body: jsonBody(#"{"slug": "promo", "destination": "https://example.com/a", "params": {"screen": "p"}}"#))
            #expect(created.status == .created)
            let link = try created.decode(LinkResponse.self)
            let patched = try await client.execute(uri: FerryRoutes.link(id: link.id), method: .patch, headers: headers(key: fixture.secret, json: true, extra: from),
                                                   body: jsonBody(#"{"campaign": "autumn", "destination": "https://example.com/b"}"#))
            #expect(patched.status == .ok)
            // A change that changes nothing records nothing.
            _ = try await client.execute(uri: FerryRoutes.link(id: link.id), method: .patch, headers: headers(key: fixture.secret, json: true, extra: from),
                                         body: jsonBody(#"{"campaign": "autumn"}"#))
            let hook = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true, extra: from),
                                                body: jsonBody(#"{"url": "https://hooks.example.com/ferry", "events": ["link.clicked"]}"#))
            #expect(hook.status == .created, "\(hook.text)")
            let webhook = try hook.decode(WebhookResponse.self)
            let secret = try #require(webhook.secret)
            #expect(try await client.execute(uri: "/v1/webhooks/\(webhook.id)", method: .delete, headers: headers(key: fixture.secret, extra: from)).status == .noContent)
            #expect(try await client.execute(uri: FerryRoutes.link(id: link.id), method: .delete, headers: headers(key: fixture.secret, extra: from)).status == .noContent)

            let log = try await Self.log(client, key: fixture.secret)
            #expect(log.data.map { "\($0.action) \($0.object.type)" } == [
                "deleted link", "deleted webhook", "created webhook", "updated link", "created link",
            ])
            for event in log.data {
                #expect(event.actor == .init(kind: "key", id: keyID, label: String(fixture.secret.prefix(12)) + "…", address: "203.0.113.9"))
                #expect(event.environment == .live)
            }
            #expect(log.data[4].object.id == link.id)
            #expect(log.data[4].changes["destination"] == .init(before: nil, after: "https://example.com/a"))
            #expect(log.data[4].changes["params"] == .init(before: nil, after: #"{"screen":"p"}"#))
            #expect(log.data[3].changes == ["campaign": .init(before: nil, after: "autumn"),
                                            "destination": .init(before: "https://example.com/a", after: "https://example.com/b")])
            #expect(log.data[2].changes["url"]?.after == "https://hooks.example.com/ferry")
            #expect(log.data[0].changes["slug"] == .init(before: "promo", after: nil), "a deletion keeps what was deleted")
            let text = try await client.execute(uri: FerryRoutes.auditLog, method: .get, headers: headers(key: fixture.secret)).text
            #expect(!text.contains(secret) && !text.contains("whsec_"), "a webhook's secret is never in the log")
            #expect(!text.contains(fixture.secret), "nor a key")

            // Filters and pages.
            let ofLink = try await Self.log(client, key: fixture.secret, query: "?objectType=link&objectID=\(link.id)")
            #expect(ofLink.data.map(\.action) == ["deleted", "updated", "created"])
            let first = try await Self.log(client, key: fixture.secret, query: "?limit=2")
            #expect(first.data.count == 2 && first.nextCursor != nil)
            let second = try await Self.log(client, key: fixture.secret, query: "?limit=2&cursor=\(first.nextCursor ?? "")")
            let third = try await Self.log(client, key: fixture.secret, query: "?limit=2&cursor=\(second.nextCursor ?? "")")
            #expect((first.data + second.data + third.data).map(\.id) == log.data.map(\.id))
            #expect(third.nextCursor == nil)
            #expect(try await Self.log(client, key: fixture.secret, query: "?actor=key_other").data.isEmpty)
            #expect(try await Self.log(client, key: fixture.secret, query: "?since=2999-01-01T00:00:00Z").data.isEmpty)

            // CSV: one line per field changed, formulas neutralised.
            let csv = try await client.execute(uri: FerryRoutes.auditLog + "?format=csv", method: .get, headers: headers(key: fixture.secret))
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            let rows = try CSV.parse(csv.text)
            #expect(rows.first == AuditEvent.csvColumns)
            #expect(rows.contains { $0.count == 13 && $0[7] == "updated" && $0[10] == "campaign" && $0[11] == "" && $0[12] == "autumn" })
            #expect(rows.dropFirst().allSatisfy { $0[6] == "203.0.113.9" && $0[4] == keyID })

            // Other keys: the test environment sees no live link, another app nothing, a key without audit:read is refused.
            #expect(try await Self.log(client, key: fixture.testSecret).data.isEmpty)
            #expect(try await Self.log(client, key: fixture.otherSecret).data.isEmpty)
            let reader = try await fixture.admin.createKey(appID: fixture.app.id, kind: .secret, environment: .live, scopes: [.auditRead]).key
            #expect(try await Self.log(client, key: reader).data.count == 5)
            let linksOnly = try await fixture.admin.createKey(appID: fixture.app.id, kind: .secret, environment: .live, scopes: [.linksWrite]).key
            let refused = try await client.execute(uri: FerryRoutes.auditLog, method: .get, headers: headers(key: linksOnly))
            #expect(refused.status == .forbidden && refused.text.contains("audit:read"))
            #expect(try await client.execute(uri: FerryRoutes.auditLog, method: .get, headers: headers(key: fixture.publishable)).status == .forbidden)
        }
    }

    @Test func badFiltersAreRefusedNamingTheField() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            for (query, field) in [
                ("limit=0", "limit"), ("limit=201", "limit"), ("limit=ten", "limit"), ("cursor=-1", "cursor"), ("cursor=", "cursor"),
                ("cursor=99999999999999999999", "cursor"), ("objectType=LINK", "objectType"), ("objectType=", "objectType"),
                ("objectType=user", "objectType"), ("objectID=" + String(repeating: "a", count: 261), "objectID"), ("actor=", "actor"),
                ("since=yesterday", "since"), ("until=2026-13-01T00:00:00Z", "until"), ("format=xml", "format"),
            ] {
                let response = try await client.execute(uri: FerryRoutes.auditLog + "?" + query, method: .get, headers: headers(key: fixture.secret))
                #expect(response.status == .badRequest, "\(query): \(response.status)")
                #expect(try response.decode(ErrorResponse.self).error.field == field, "\(query): \(response.text)")
            }
        }
    }

    @Test func linksMadeInTheAppAreLeftOutAndAppWideChangesAreSeenByBothEnvironments() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.updateApp(id: fixture.app.id, by: .commandLine(environment: ["USER": "ops"])) { $0.clientLinks = true }
        try await fixture.application().test(.router) { client in
            let shared = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                  body: jsonBody(#"{"destination": "https://example.com/shared"}"#))
            #expect(shared.status == .created, "\(shared.text)")
            for key in [fixture.secret, fixture.testSecret] {
                let log = try await Self.log(client, key: key)
                #expect(log.data.count == 1, "the share link made in the app is not a team's change")
                let event = try #require(log.data.first)
                #expect(event.actor == .init(kind: "cli", id: "ops", label: nil, address: nil))
                #expect((event.action, event.object.type, event.object.id, event.environment) == ("updated", "app", fixture.app.id, nil))
                #expect(event.changes == ["clientLinks": .init(before: "false", after: "true")])
            }
        }
    }

    @Test func theDashboardRecordsItsChangesAsTheSignedInKey() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let made = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie,
                                                     body: "csrf=\(csrf)&slug=from-the-dashboard&destination=https%3A%2F%2Fexample.com%2Fd")
            #expect(made.status == .seeOther, "\(made.text.prefix(300))")
            let log = try await Self.log(client, key: fixture.secret)
            let event = try #require(log.data.first)
            #expect((event.action, event.object.type, event.actor.kind) == ("created", "link", "key"))
            #expect(event.actor.label == String(fixture.secret.prefix(12)) + "…")
            #expect(event.changes["slug"]?.after == "from-the-dashboard")
        }
    }

    @Test func eventsOlderThanTheRetentionArePurged() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        // Whole seconds: the stores keep times as seconds since 1970 in a double.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let old = AuditEvent(appID: fixture.app.id, environment: nil, at: now.addingTimeInterval(-40 * 86400), actor: .system, action: "updated",
                             objectType: "app", objectID: fixture.app.id, changes: [:])
        _ = try await fixture.store.recordAuditEvent(old)
        var recent = old
        recent.at = now.addingTimeInterval(-20 * 86400)
        _ = try await fixture.store.recordAuditEvent(recent)
        let janitor = AttributionJanitor(store: fixture.store, interval: .seconds(3600), auditRetention: .seconds(30 * 86400),
                                         logger: Logger(label: "test"))
        let task = Task { try await janitor.run() }
        #expect(try await fixture.eventually { try await fixture.store.auditEvents(AuditQuery()).count == 1 })
        task.cancel()
        #expect(try await fixture.store.auditEvents(AuditQuery()).first?.at == recent.at)
    }
}
#endif
