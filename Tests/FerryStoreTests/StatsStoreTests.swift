#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryStore
import FerryTestSupport
import GRDB
import PostgresNIO
import Foundation
import Testing

/// The daily roll-up, written once and run against each backend.
@Suite("Statistics roll-up", .takesTurns)
struct StatsStoreTests {
    static func visit(_ id: String, link: String = "lnk_1", day: Int = 0, address: String = "ip-a", agent: String = "Safari",
                      platform: ClientPlatform = .iOS, referer: String? = nil, query: String? = nil, traffic: ClickTraffic? = nil) -> Click {
        Click(id: id, linkID: link, appID: "app_1", environment: .live, createdAt: epoch.addingTimeInterval(Double(day) * 86400 + 60),
              ipHash: address, networkHash: nil, userAgent: agent, platform: platform, referer: referer, query: query, acceptLanguage: nil,
              traffic: traffic)
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
                Self.visit("c4", address: "ip-c", agent: "Slackbot", platform: .bot),  // a bot is no visitor, nor a click
                Self.visit("c5", day: 1, platform: .desktop),                         // the same person the next day
                Self.visit("c6", link: "lnk_2", address: "ip-b", platform: .android),
                // A browser's prefetch and an email scanner: answered, counted apart, with their referrer and campaign.
                Self.visit("c7", address: "ip-d", referer: "https://mail.example.com/", query: "utm_source=mail", traffic: .prefetch),
                Self.visit("c8", address: "ip-e", platform: .desktop, traffic: .scanner),
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
            #expect(link.totals == StatsTotals(clicks: 4, uniqueVisitors: 3, installs: 2, deterministicInstalls: 1, probabilisticInstalls: 1,
                                               organicInstalls: 0, opens: 2, reinstalls: 1, customEvents: 1, filteredClicks: 3))
            #expect(link.platforms == ["ios": 2, "android": 1, "desktop": 1])
            #expect(link.filtered == ["bot": 1, "prefetch": 1, "scanner": 1])
            #expect(link.referrers == ["twitter.com": 2, "direct": 2])
            #expect(link.utmSources == ["newsletter": 3, "tiktok": 1], "the click's own utm_source wins over the link's")
            #expect(link.utmCampaigns == ["spring": 3, "launch": 1])
            #expect(link.utmMediums == ["email": 4])
            #expect(link.events == ["link_open": 2, "reinstall": 1, "purchase": 1])
            #expect(link.days.map(\.clicks) == [3, 1])
            #expect(link.days.map(\.filteredClicks) == [3, 0])
            #expect(link.days.map(\.uniqueVisitors) == [2, 1])
            #expect(link.days.map(\.installs) == [2, 0])

            let app = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: nil, range: range), range: range, linkID: nil)
            #expect(app.totals.clicks == 5)
            #expect(app.totals.filteredClicks == 3)
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

    /// Clicks found later to be of another kind move between the people's figures and the filtered ones, with their
    /// referrers, campaigns and visitors; a click of a kind not asked for, or moved already, stays as it is.
    @Test(arguments: StoreBackend.available) func reclassifiedClicksMoveBetweenPeopleAndFiltered(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "one"))  // utm: newsletter / email / spring
            let today = StatsRollup.day(of: epoch)
            let range = StatsRange(fromDay: today, toDay: today)
            func report() async throws -> StatsReport {
                StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: "lnk_1", range: range), range: range, linkID: "lnk_1")
            }
            try await store.recordClicks([
                Self.visit("s1", address: "ip-s", agent: "Chrome", platform: .desktop, referer: "https://outlook.example.com/"),
                Self.visit("s2", address: "ip-s", agent: "Chrome", platform: .desktop),
                Self.visit("p1", address: "ip-p", referer: "https://news.example.com/", traffic: .prefetch),
                Self.visit("b1", address: "ip-b", agent: "Slackbot", platform: .bot),
                Self.visit("k1", address: "ip-k"),
            ])
            let before = try await report()
            #expect(before.totals.clicks == 3 && before.totals.uniqueVisitors == 2 && before.totals.filteredClicks == 2)

            let scanners = try await store.reclassifyClicks(ids: ["s1", "s2", "b1", "nothing"], from: [.person], to: .scanner)
            #expect(Set(scanners.map(\.id)) == ["s1", "s2"], "a bot's click is not a person's, and an unknown id is nothing")
            #expect(scanners.allSatisfy { $0.traffic == .scanner })
            #expect(try await store.click(id: "s1")?.traffic == .scanner)
            #expect(try await store.click(id: "b1")?.traffic == .bot)
            // The page the prefetch fetched was shown: a person after all.
            #expect(try await store.reclassifyClicks(ids: ["p1"], from: [.prefetch], to: .person).map(\.id) == ["p1"])
            #expect(try await store.reclassifyClicks(ids: ["p1", "s1"], from: [.prefetch], to: .person).isEmpty, "moved once")

            let after = try await report()
            #expect(after.totals.clicks == 2, "k1 and p1")
            #expect(after.totals.uniqueVisitors == 2, "ip-s's visitor went, ip-p's came")
            #expect(after.filtered == ["bot": 1, "scanner": 2])
            #expect(after.platforms == ["ios": 2])
            #expect(after.referrers == ["news.example.com": 1, "direct": 1])
            #expect(after.utmSources == ["newsletter": 2])
            #expect(after.days.map(\.clicks) == [2])
            let app = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: nil, range: range), range: range, linkID: nil)
            #expect(app.totals == after.totals)
        }
    }

    /// A SQLite database whose bot clicks were counted among the clicks moves them to the filtered ones on upgrade.
    @Test func upgradingSQLiteTakesBotClicksOutOfThePeoplesFigures() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        do {
            let queue = try DatabaseQueue(path: database.path)
            try SQLiteStore.migrator.migrate(queue, upTo: "v18-user-clicks")
            try await queue.write { db in try Self.countedBeforeKinds { try db.execute(sql: $0) } }
        }
        let store = try SQLiteStore(path: database.path)
        try await Self.expectBotsFiltered(store)
        try await store.close()
    }

    /// The same on PostgreSQL: a schema as it was before (the column dropped, its migration forgotten).
    @Test(.enabled(if: StoreBackend.available.contains(.postgres))) func upgradingPostgreSQLTakesBotClicksOutOfThePeoplesFigures() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"])
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let url = base + (base.contains("?") ? "&" : "?") + "search_path=" + schema
        let before = try await PostgresStore(url: url)
        try await before.execute("ALTER TABLE clicks DROP COLUMN traffic")
        try await before.execute("DELETE FROM ferry_migrations WHERE name = 'v15-click-traffic'")
        try await before.transaction { connection in
            var statements: [String] = []
            try Self.countedBeforeKinds { statements.append($0) }
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresStore.quietLogger) }
        }
        try await before.close()
        let store = try await PostgresStore(url: url)
        try await Self.expectBotsFiltered(store)
        try await store.close()
    }

    /// A link's two people's clicks and a bot's, counted as they were before clicks had a kind: the bot
    /// among the clicks (with defaults implied) and its platform.
    static func countedBeforeKinds(_ execute: (String) throws -> Void) throws {
        let day = StatsRollup.day(of: epoch)
        for (id, platform) in [("c1", "ios"), ("c2", "android"), ("c3", "bot")] {
            try execute("""
                INSERT INTO clicks (id, link_id, app_id, environment, created_at, platform)
                VALUES ('\(id)', 'lnk_1', 'app_1', 'live', \(epoch.timeIntervalSince1970 + 60), '\(platform)')
                """)
        }
        for link in ["lnk_1", "*"] {
            for (metric, dimension, count) in [("clicks", "implied", 3), ("platform", "ios", 1), ("platform", "android", 1), ("platform", "bot", 1),
                                               ("visitors", "", 2)] {
                try execute("""
                    INSERT INTO stats_daily (app_id, environment, link_id, day, metric, dimension, count)
                    VALUES ('app_1', 'live', '\(link)', \(day), '\(metric)', '\(dimension)', \(count))
                    """)
            }
        }
    }

    static func expectBotsFiltered(_ store: any FerryDatabase) async throws {
        #expect(try await store.click(id: "c3")?.traffic == .bot)
        #expect(try await store.click(id: "c1")?.traffic == .person)
        let today = StatsRollup.day(of: epoch)
        let range = StatsRange(fromDay: today, toDay: today)
        for link in ["lnk_1", nil] {
            let report = StatsReport(rows: try await store.statsRows(appID: "app_1", environment: .live, linkID: link, range: range), range: range, linkID: link)
            #expect(report.totals.clicks == 2)
            #expect(report.totals.filteredClicks == 1)
            #expect(report.platforms == ["ios": 1, "android": 1])
            #expect(report.filtered == ["bot": 1])
            #expect(report.referrers == ["direct": 2])
        }
    }
}

@Suite("Exports", .takesTurns)
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

@Suite("Webhook outbox", .takesTurns)
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
@Suite("Statistics roll-up: upgrades", .takesTurns)
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

@Suite("Click batches on SQLite", .takesTurns)
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
