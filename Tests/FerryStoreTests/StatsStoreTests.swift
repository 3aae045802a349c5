#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryStore
import GRDB
import Foundation
import Testing

/// The daily roll-up, written once and run against each backend.
@Suite("Statistics roll-up")
struct StatsStoreTests {
    static func visit(_ id: String, link: String = "lnk_1", day: Int = 0, address: String = "ip-a", agent: String = "Safari",
                      platform: ClientPlatform = .iOS, referer: String? = nil, query: String? = nil) -> Click {
        Click(id: id, linkID: link, appID: "app_1", environment: .live, createdAt: epoch.addingTimeInterval(Double(day) * 86400 + 60),
              ipHash: address, networkHash: nil, userAgent: agent, platform: platform, referer: referer, query: query, acceptLanguage: nil)
    }

    @Test(arguments: StoreBackend.available) func clicksInstallsAndEventsAddUpByDayAndValue(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "one"))  // utm: newsletter / email / spring
            try await store.createLink(makeLink(id: "lnk_2", slug: "two"))
            let today = StatsRollup.day(of: epoch)
            try await store.recordClicks([
                Self.visit("c1", referer: "https://www.twitter.com/status/1"),
                Self.visit("c2", referer: "https://www.twitter.com/status/2"),       // same visitor, same day
                Self.visit("c3", address: "ip-b", platform: .android, query: "utm_source=tiktok&utm_campaign=launch"),
                Self.visit("c4", address: "ip-c", agent: "Slackbot", platform: .bot),  // a bot is no visitor
                Self.visit("c5", day: 1, platform: .desktop),                         // the same person the next day
                Self.visit("c6", link: "lnk_2", address: "ip-b", platform: .android),
            ])
            // A batch written again (a retry) adds nothing.
            try await store.recordClicks([Self.visit("c1", referer: "https://www.twitter.com/status/1")])
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: "c1", linkID: "lnk_1",
                                                                matchType: .deterministic, confidence: 1, createdAt: epoch.addingTimeInterval(120)))
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i2", clickID: "c3", linkID: "lnk_1",
                                                                matchType: .probabilistic, confidence: 0.9, createdAt: epoch.addingTimeInterval(130)))
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i3", clickID: nil, linkID: nil,
                                                                matchType: nil, confidence: nil, createdAt: epoch.addingTimeInterval(140)))
            let events = ["link_open", "link_open", "reinstall", "purchase"].map { name in
                EventRecord(appID: "app_1", environment: .live, name: name, installID: "i1", linkID: "lnk_1", properties: [:],
                            occurredAt: epoch.addingTimeInterval(200), receivedAt: epoch.addingTimeInterval(200))
            }
            try await store.recordEvents(events)

            let range = StatsRange(fromDay: today, toDay: today + 1)
            let link = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: "lnk_1", range: range), range: range, linkID: "lnk_1")
            #expect(link.totals == StatsTotals(clicks: 5, uniqueVisitors: 3, installs: 2, deterministicInstalls: 1, probabilisticInstalls: 1,
                                               organicInstalls: 0, opens: 2, reinstalls: 1, customEvents: 1))
            #expect(link.platforms == ["ios": 2, "android": 1, "bot": 1, "desktop": 1])
            #expect(link.referrers == ["twitter.com": 2, "direct": 3])
            #expect(link.utmSources == ["newsletter": 4, "tiktok": 1], "the click's own utm_source wins over the link's")
            #expect(link.utmCampaigns == ["spring": 4, "launch": 1])
            #expect(link.utmMediums == ["email": 5])
            #expect(link.events == ["link_open": 2, "reinstall": 1, "purchase": 1])
            #expect(link.days.map(\.clicks) == [4, 1])
            #expect(link.days.map(\.uniqueVisitors) == [2, 1])
            #expect(link.days.map(\.installs) == [2, 0])

            let app = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: nil, range: range), range: range, linkID: nil)
            #expect(app.totals.clicks == 6)
            #expect(app.totals.uniqueVisitors == 3, "ip-b on two links is one visitor of the app; ip-a twice counts once a day")
            #expect(app.totals.organicInstalls == 1)
            #expect(app.totals.installs == 2)
            #expect(app.platforms["android"] == 2)

            // Other apps, environments and days see nothing of it.
            #expect(try await store.statsRows(appID: "app_2", environment: .live, linkID: nil, range: range).isEmpty)
            #expect(try await store.statsRows(appID: "app_1", environment: .test, linkID: nil, range: range).isEmpty)
            #expect(try await store.statsRows(appID: "app_1", environment: .live, linkID: nil, range: StatsRange(fromDay: today + 2, toDay: today + 9)).isEmpty)

            // Forgetting who visited keeps the counts.
            #expect(try await store.purgeVisitors(beforeDay: today + 1) > 0)
            let after = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: "lnk_1", range: range), range: range, linkID: "lnk_1")
            #expect(after.totals.uniqueVisitors == 3)
        }
    }
}

@Suite("Exports")
struct ExportStoreTests {
    @Test(arguments: StoreBackend.available) func exportsPageThroughARangeInTimeOrderWithinOneAppAndEnvironment(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "one"))
            // 25 clicks, some sharing a second; one the day before and one of the test environment.
            var clicks = (0..<25).map { StatsStoreTests.visit(String(format: "c%02d", $0), day: 0, address: "ip-\($0)") }
            for index in clicks.indices { clicks[index].createdAt = epoch.addingTimeInterval(Double(index / 3)) }
            var early = StatsStoreTests.visit("c-early")
            early.createdAt = epoch.addingTimeInterval(-86400)
            var other = StatsStoreTests.visit("c-test")
            other.environment = .test
            try await store.recordClicks(clicks.shuffled() + [early, other])
            var seen: [String] = []
            var cursor: ExportCursor?
            while true {
                let page = try await store.exportClicks(appID: "app_1", environment: .live, from: epoch, to: epoch.addingTimeInterval(86400), after: cursor, limit: 7)
                seen += page.map(\.id)
                guard page.count == 7, let last = page.last else { break }
                cursor = ExportCursor(time: last.createdAt.timeIntervalSince1970, id: last.id)
            }
            #expect(seen == clicks.map(\.id), "every click once, oldest first, ties by id")
            #expect(try await store.exportClicks(appID: "app_2", environment: .live, from: epoch, to: epoch.addingTimeInterval(86400), after: nil, limit: 100).isEmpty)

            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: "c01", linkID: "lnk_1",
                                                                matchType: .probabilistic, confidence: 0.91, createdAt: epoch.addingTimeInterval(30)))
            let answers = try await store.exportAttributions(appID: "app_1", environment: .live, from: epoch, to: epoch.addingTimeInterval(86400), after: nil, limit: 10)
            #expect(answers.map(\.installID) == ["i1"])
            #expect(try await store.exportAttributions(appID: "app_1", environment: .live, from: epoch, to: epoch.addingTimeInterval(86400),
                                                       after: ExportCursor(time: answers[0].createdAt.timeIntervalSince1970, id: "i1"), limit: 10).isEmpty)
        }
    }
}

@Suite("Webhook outbox")
struct WebhookStoreTests {
    @Test(arguments: StoreBackend.available) func deliveriesAreClaimedOnceLeasedRetriedAndGoWithTheirWebhook(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            let webhook = Webhook(id: "wh_1", appID: "app_1", environment: .live, url: "https://hooks.example.com/a", secret: "whsec_x",
                                  events: [.linkClicked], createdAt: epoch)
            try await store.createWebhook(webhook)
            #expect(try await store.webhooks(appID: "app_1", environment: .live) == [webhook])
            #expect(try await store.webhooks(appID: "app_1", environment: .test).isEmpty)
            try await store.enqueueDeliveries((0..<3).map { index in
                WebhookDelivery(id: "dlv_\(index)", webhookID: "wh_1", appID: "app_1", event: .linkClicked, payload: #"{"n":\#(index)}"#,
                                nextAttemptAt: epoch.addingTimeInterval(Double(index)), createdAt: epoch.addingTimeInterval(Double(index)))
            })
            let now = epoch.addingTimeInterval(10)
            let first = try await store.claimDeliveries(now: now, lease: 60, limit: 2)
            #expect(first.map(\.delivery.id) == ["dlv_0", "dlv_1"])
            #expect(first[0].webhook == webhook)
            #expect(try await store.claimDeliveries(now: now, lease: 60, limit: 10).map(\.delivery.id) == ["dlv_2"])
            #expect(try await store.claimDeliveries(now: now, lease: 60, limit: 10).isEmpty, "claimed ones are leased")
            try await store.recordAttempt(deliveryID: "dlv_0", status: 200, error: nil, deliveredAt: now, nextAttemptAt: nil, failedAt: nil)
            try await store.recordAttempt(deliveryID: "dlv_1", status: 503, error: "answered 503", deliveredAt: nil,
                                          nextAttemptAt: now.addingTimeInterval(5), failedAt: nil)
            #expect(try await store.claimDeliveries(now: now.addingTimeInterval(6), lease: 60, limit: 10).map(\.delivery.id) == ["dlv_1"],
                    "a failed one comes back when due; a delivered one never")
            let listed = try await store.deliveries(webhookID: "wh_1", appID: "app_1", limit: 10)
            #expect(listed.map(\.id) == ["dlv_2", "dlv_1", "dlv_0"])
            #expect(listed.last?.deliveredAt != nil && listed.last?.attempts == 1 && listed.last?.lastStatus == 200)
            #expect(listed[1].lastError == "answered 503")
            #expect(try await store.deliveries(webhookID: "wh_1", appID: "app_2", limit: 10).isEmpty)
            #expect(try await store.deleteWebhook(id: "wh_1", appID: "app_2", environment: .live) == false)
            #expect(try await store.deleteWebhook(id: "wh_1", appID: "app_1", environment: .live))
            #expect(try await store.deliveries(webhookID: "wh_1", appID: "app_1", limit: 10).isEmpty, "its deliveries go with it")
        }
    }

    /// The dispatcher leaves out apps whose receivers already hold their share of its attempts, and gives back what it
    /// took beyond that share.
    @Test(arguments: StoreBackend.available) func claimsLeaveOutBusyAppsAndReleasedDeliveriesAreDueAgain(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            for app in ["app_1", "app_2", "app_3"] {
                try await store.createApp(makeApp(id: app, domains: ["\(app.replacingOccurrences(of: "_", with: "")).example.com"]))
                try await store.createWebhook(Webhook(id: "wh_\(app)", appID: app, environment: .live, url: "https://hooks.example.com/\(app)",
                                                      secret: "whsec_x", events: [.linkClicked], createdAt: epoch))
            }
            // app_1's deliveries are the oldest: a claim that did not leave them out would take them first.
            try await store.enqueueDeliveries((0..<6).map { index in
                let app = index < 4 ? "app_1" : index == 4 ? "app_2" : "app_3"
                return WebhookDelivery(id: "dlv_\(index)", webhookID: "wh_\(app)", appID: app, event: .linkClicked, payload: "{}",
                                       nextAttemptAt: epoch.addingTimeInterval(Double(index)), createdAt: epoch.addingTimeInterval(Double(index)))
            })
            let now = epoch.addingTimeInterval(10)
            #expect(try await store.claimDeliveries(now: now, lease: 60, limit: 10, excludingApps: ["app_1", "app_3"]).map(\.delivery.id) == ["dlv_4"])
            let taken = try await store.claimDeliveries(now: now, lease: 60, limit: 3, excludingApps: [])
            #expect(taken.map(\.delivery.id) == ["dlv_0", "dlv_1", "dlv_2"])
            try await store.recordAttempt(deliveryID: "dlv_0", status: 200, error: nil, deliveredAt: now, nextAttemptAt: nil, failedAt: nil)
            try await store.releaseDeliveries(ids: ["dlv_0", "dlv_2"], dueAt: now)
            #expect(Set(try await store.claimDeliveries(now: now, lease: 60, limit: 10, excludingApps: []).map(\.delivery.id)) == ["dlv_2", "dlv_3", "dlv_5"],
                    "a released delivery is due again, a delivered one is not brought back, a claimed one stays leased")
            let listed = try await store.deliveries(webhookID: "wh_app_1", appID: "app_1", limit: 10)
            #expect(listed.allSatisfy { $0.attempts == ($0.id == "dlv_0" ? 1 : 0) }, "releasing is not an attempt")
        }
    }
}

/// Upgrading a SQLite database carries its visitors of the day over to the new table of them.
@Suite("Statistics roll-up: upgrades")
struct StatsUpgradeTests {
    @Test func visitorsSeenBeforeAnUpgradeAreNotCountedAgainAfterIt() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let seen = StatsStoreTests.visit("c1", address: "ip-a")
        do {
            // The database as the release before the visitor table was: visitors kept as text keys.
            let queue = try DatabaseQueue(path: database.path)
            try SQLiteStore.migrator.migrate(queue, upTo: "v6-click-indexes")
            try await queue.write { db in
                for key in StatsRollup.visitors(clicks: [seen]) {
                    try db.execute(sql: "INSERT INTO stats_visitors (app_id, environment, link_id, day, visitor) VALUES (?, ?, ?, ?, ?)",
                                   arguments: [key.appID, key.environment.rawValue, key.linkID, key.day, key.visitor])
                }
            }
        }
        let store = try SQLiteStore(path: database.path)
        try await store.createApp(makeApp())
        try await store.createLink(makeLink(id: "lnk_1", slug: "one"))
        // The same visitor again (a new click), and a new one: only the new one is a visitor of the day.
        try await store.recordClicks([StatsStoreTests.visit("c2", address: "ip-a"), StatsStoreTests.visit("c3", address: "ip-z")])
        let day = StatsRollup.day(of: epoch)
        let range = StatsRange(fromDay: day, toDay: day)
        for link in ["lnk_1", nil] {
            let report = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: link, range: range), range: range, linkID: link)
            #expect(report.totals.uniqueVisitors == 1, "\(link ?? "app")")
            #expect(report.totals.clicks == 2)
        }
        // The day after next, the day's visitors are purged (two scopes: the link's and the app's).
        #expect(try await store.purgeVisitors(beforeDay: day + 1) == 4)
    }
}

@Suite("Click batches on SQLite")
struct SQLiteClickBatchTests {
    @Test func aBatchGivesWayToAnotherWriteAndIsWrittenWholeOverSeveralTransactions() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try SQLiteStore(path: database.path)
        try await store.createApp(makeApp())
        try await store.createLink(makeLink(id: "lnk_1", slug: "one"))
        let clicks = (0..<1000).map { index in
            StatsStoreTests.visit(String(format: "c%04d", index), address: "ip-\(index % 300)", platform: index % 2 == 0 ? .iOS : .android)
        }

        // Another write waiting: the transaction stops at the first look, after 16 clicks, with their roll-ups.
        let taken = try await store.writer.write { db in
            try SQLiteStore.insertClicks(clicks[...], db: db, givingWay: { true })
        }
        #expect(taken == SQLiteStore.clicksBetweenYields)
        let range = StatsRange(fromDay: StatsRollup.day(of: epoch), toDay: StatsRollup.day(of: epoch))
        var report = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: "lnk_1", range: range), range: range, linkID: "lnk_1")
        #expect(report.totals.clicks == SQLiteStore.clicksBetweenYields && report.totals.uniqueVisitors == SQLiteStore.clicksBetweenYields)

        // The whole batch on the calling thread, in transactions sized by their pace (the first holds 16 clicks):
        // every click once, the roll-ups as if in one.
        try await Task.detached { try store.recordClicksBlocking(clicks) }.value
        #expect(try await store.clickCount(linkID: "lnk_1") == 1000)
        report = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: "lnk_1", range: range), range: range, linkID: "lnk_1")
        #expect(report.totals.clicks == 1000)
        #expect(report.totals.uniqueVisitors == 300)
        #expect(report.platforms == ["ios": 500, "android": 500])
    }
}
#endif
