#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The audit log in both stores: events kept as written, read newest first by app, environment, object, actor and
/// time, a page at a time, and forgotten after the retention period.
@Suite("Audit log in the stores", .takesTurns)
struct AuditStoreTests {
    static func event(app: String?, environment: APIEnvironment?, seconds: Double, actor: AuditActor, action: String = "updated",
                      type: String = "link", object: String, changes: [String: AuditChange] = [:]) -> AuditEvent {
        AuditEvent(appID: app, environment: environment, at: epoch.addingTimeInterval(seconds), actor: actor, action: action,
                   objectType: type, objectID: object, changes: changes)
    }

    @Test(arguments: StoreBackend.available) func eventsAreKeptAsWrittenAndReadNewestFirstByEveryFilter(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            let key = AuditActor(kind: .key, id: "key_1", label: "fs_live_AbCd…", address: "203.0.113.7")
            let cli = AuditActor(kind: .commandLine, id: "deploy")
            let changes = ["destination": AuditChange(before: "https://example.com/a", after: "https://example.com/b"),
                           "campaign": AuditChange(before: nil, after: "spring \"quoted\" ✓")]
            var written: [AuditEvent] = []
            written.append(try await store.recordAuditEvent(Self.event(app: "app_1", environment: .live, seconds: 0, actor: key, action: "created",
                                                                       object: "lnk_1", changes: AuditChange.created(["slug": "promo"]))))
            written.append(try await store.recordAuditEvent(Self.event(app: "app_1", environment: .live, seconds: 60, actor: key, object: "lnk_1", changes: changes)))
            written.append(try await store.recordAuditEvent(Self.event(app: "app_1", environment: .test, seconds: 120, actor: key, object: "lnk_2")))
            written.append(try await store.recordAuditEvent(Self.event(app: "app_1", environment: nil, seconds: 180, actor: cli, type: "app", object: "app_1")))
            written.append(try await store.recordAuditEvent(Self.event(app: "app_2", environment: .live, seconds: 240, actor: cli, object: "lnk_9")))
            #expect(written.map(\.id) == written.map(\.id).sorted() && Set(written.map(\.id)).count == 5, "ids increase: \(written.map(\.id))")

            let all = try await store.auditEvents(AuditQuery())
            #expect(all == written.reversed(), "every field as written, newest first")
            func ids(_ query: AuditQuery) async throws -> [String] {
                try await store.auditEvents(query).map { "\($0.objectID)@\(Int($0.at.timeIntervalSince(epoch)))" }
            }
            #expect(try await ids(AuditQuery(appID: "app_1")) == ["app_1@180", "lnk_2@120", "lnk_1@60", "lnk_1@0"])
            #expect(try await ids(AuditQuery(appID: "app_1", environment: .live)) == ["app_1@180", "lnk_1@60", "lnk_1@0"],
                    "an environment's events and those of the whole app")
            #expect(try await ids(AuditQuery(appID: "app_1", objectType: "link", objectID: "lnk_1")) == ["lnk_1@60", "lnk_1@0"])
            #expect(try await ids(AuditQuery(appID: "app_1", actorID: "deploy")) == ["app_1@180"])
            #expect(try await ids(AuditQuery(since: epoch.addingTimeInterval(60), until: epoch.addingTimeInterval(180))) == ["lnk_2@120", "lnk_1@60"])
            // A page at a time: the cursor is the last id of the page before.
            let first = try await store.auditEvents(AuditQuery(appID: "app_1", limit: 3))
            #expect(first.count == 3)
            let second = try await store.auditEvents(AuditQuery(appID: "app_1", before: first.last?.id, limit: 3))
            #expect(second.map(\.objectID) == ["lnk_1"] && second.first?.action == "created")
            #expect(try await store.auditEvents(AuditQuery(appID: "app_1", before: second.last?.id, limit: 3)).isEmpty)
            #expect(try await store.auditEvents(AuditQuery(appID: "app_1'; DROP TABLE audit_log; --")).isEmpty)

            #expect(try await store.purgeAuditEvents(before: epoch.addingTimeInterval(120)) == 2)
            #expect(try await ids(AuditQuery()) == ["lnk_9@240", "app_1@180", "lnk_2@120"])
            let next = try await store.recordAuditEvent(Self.event(app: "app_1", environment: nil, seconds: 300, actor: .system, object: "x"))
            #expect(next.id > written.last!.id, "ids keep increasing after a purge")
        }
    }
}
#endif
