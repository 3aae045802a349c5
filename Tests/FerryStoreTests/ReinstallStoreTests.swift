#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryStore
import FerryTestSupport
import Foundation
import GRDB
import PostgresNIO
import Testing

/// Re-installs in the stores: one answer per installation of an install id, the installation adopted by an answer
/// given before installations were named, and the browsers that led an install to the app (linked at a deterministic
/// match, found again for its re-install, forgotten after `AttributionRules.browserLinkRetention`).
@Suite("Re-installs in the stores", .takesTurns)
struct ReinstallStoreTests {
    static func answer(_ installID: String, _ installationID: String?, click: String?, at seconds: Double) -> AttributionRecord {
        AttributionRecord(appID: "app_1", environment: .live, installID: installID, clickID: click, linkID: click == nil ? nil : "lnk_1",
                          matchType: click == nil ? nil : .deterministic, confidence: click == nil ? nil : 1, createdAt: epoch.addingTimeInterval(seconds),
                          installationID: installationID)
    }

    @Test(arguments: StoreBackend.available) func anInstallIDHasOneAnswerPerInstallation(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            // Answered before installations were named; the first installation that asks adopts it, once.
            try await store.insertAttribution(Self.answer("i1", nil, click: "clk_1", at: 0))
            #expect(try await store.attribution(appID: "app_1", environment: .live, installID: "i1")?.installationID == nil)
            let adopted = try await store.adoptInstallation(appID: "app_1", environment: .live, installID: "i1", installationID: "inst-A")
            #expect(adopted == Self.answer("i1", "inst-A", click: "clk_1", at: 0))
            let again = try await store.adoptInstallation(appID: "app_1", environment: .live, installID: "i1", installationID: "inst-B")
            #expect(again?.installationID == "inst-A")
            #expect(try await store.adoptInstallation(appID: "app_1", environment: .live, installID: "nobody", installationID: "inst-A") == nil)

            // Three days later the app is installed again on the device: an answer of its own, beside the first.
            let reinstall = Self.answer("i1", "inst-B", click: "clk_2", at: 3 * 86_400)
            try await store.insertAttribution(reinstall)
            #expect(try await store.attribution(appID: "app_1", environment: .live, installID: "i1") == reinstall)
            #expect(try await store.attribution(appID: "app_1", environment: .live, installID: "i1", installationID: "inst-B") == reinstall)
            #expect(try await store.attribution(appID: "app_1", environment: .live, installID: "i1", installationID: "inst-A")?.clickID == "clk_1")
            #expect(try await store.attribution(appID: "app_1", environment: .live, installID: "i1", installationID: "inst-C") == reinstall)
            // The same installation twice is refused, and so is a click another installation took.
            await #expect(throws: StoreConflict.self) { try await store.insertAttribution(Self.answer("i1", "inst-B", click: nil, at: 3 * 86_400 + 60)) }
            do {
                try await store.insertAttribution(Self.answer("i2", "inst-X", click: "clk_1", at: 3 * 86_400 + 60))
                Issue.record("a consumed click was taken again")
            } catch let conflict as StoreConflict {
                #expect(conflict.field == "clickID")
            }
            // A user bound to the install gets its newest answer.
            let binding = try await store.bindUser(appID: "app_1", environment: .live, userID: "u1", installID: "i1", authority: .server,
                                                   now: epoch.addingTimeInterval(3 * 86_400 + 120))
            #expect(binding.attribution == reinstall)
        }
    }

    @Test(arguments: StoreBackend.available) func aBrowserThatLedAnInstallFindsItsClicksForTheReinstall(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            let day = 86_400.0
            // The first click, 20 minutes before the install it led to, from a browser the page knew as B1.
            try await store.recordClicks([click("clk_first", address: "A", network: "N", seconds: 0), click("clk_plain", address: "A", network: "N", seconds: 60)])
            try await store.recordClickSignals(ClickSignalsRecord(clickID: "clk_first", appID: "app_1", signals: DeviceSignals(screenWidth: 393),
                                                                  receivedAt: epoch.addingTimeInterval(2), browserHash: "B1"))
            try await store.insertAttribution(Self.answer("i1", "inst-A", click: "clk_first", at: 20 * 60))
            #expect(try await store.linkBrowser(ofClick: "clk_first", appID: "app_1", environment: .live, to: "i1", at: epoch.addingTimeInterval(20 * 60)))
            // A click whose page sent no browser links nothing.
            #expect(try await store.linkBrowser(ofClick: "clk_plain", appID: "app_1", environment: .live, to: "i1", at: epoch.addingTimeInterval(20 * 60)) == false)

            // Ten days later: the same browser clicks twice (from another network), another browser once, after it.
            var clicks: [Click] = []
            let hoursAfterTheFirst: [(String, Double)] = [("clk_b1_early", 235), ("clk_b1_late", 238), ("clk_b2", 239), ("clk_b1_old", 192)]
            for (id, hours) in hoursAfterTheFirst {
                clicks.append(click(id, address: "C", network: "M", seconds: hours * 3600))
            }
            try await store.recordClicks(clicks)
            for (id, browser) in [("clk_b1_early", "B1"), ("clk_b1_late", "B1"), ("clk_b2", "B2"), ("clk_b1_old", "B1")] {
                let at = try #require(clicks.first { $0.id == id }).createdAt.addingTimeInterval(2)
                try await store.recordClickSignals(ClickSignalsRecord(clickID: id, appID: "app_1", signals: DeviceSignals(screenWidth: 393), receivedAt: at,
                                                                      browserHash: browser))
            }
            let reinstalled = epoch.addingTimeInterval(10 * day)
            let window = reinstalled.addingTimeInterval(-day)
            // The newest click of the linked browser inside the window; not another browser's, not one before the window.
            #expect(try await store.linkedBrowserClick(appID: "app_1", environment: .live, installID: "i1", since: window)?.clickID == "clk_b1_late")
            #expect(try await store.linkedBrowserClick(appID: "app_1", environment: .test, installID: "i1", since: window) == nil)
            #expect(try await store.linkedBrowserClick(appID: "app_1", environment: .live, installID: "i2", since: window) == nil)
            // Once it is taken, the one before it.
            try await store.insertAttribution(Self.answer("other", nil, click: "clk_b1_late", at: 10 * day - 3600))
            #expect(try await store.linkedBrowserClick(appID: "app_1", environment: .live, installID: "i1", since: window)?.clickID == "clk_b1_early")
            #expect(try await store.linkedBrowserClick(appID: "app_1", environment: .live, installID: "i1",
                                                       since: epoch.addingTimeInterval(10 * day - 3 * 3600)) == nil)

            // Linked again (another deterministic match), the link is renewed; ninety days after its last renewal it is
            // forgotten.
            #expect(try await store.linkBrowser(ofClick: "clk_b1_early", appID: "app_1", environment: .live, to: "i1", at: reinstalled))
            _ = try await store.purgeAttributionSignals(now: reinstalled.addingTimeInterval(AttributionRules.browserLinkRetention - 60))
            try await store.recordClicks([click("clk_later", address: "D", network: "L", seconds: 100 * day)])
            try await store.recordClickSignals(ClickSignalsRecord(clickID: "clk_later", appID: "app_1", signals: DeviceSignals(screenWidth: 393),
                                                                  receivedAt: epoch.addingTimeInterval(100 * day + 2), browserHash: "B1"))
            let later = epoch.addingTimeInterval(100 * day - 3600)
            #expect(try await store.linkedBrowserClick(appID: "app_1", environment: .live, installID: "i1", since: later)?.clickID == "clk_later")
            #expect(try await store.purgeAttributionSignals(now: reinstalled.addingTimeInterval(AttributionRules.browserLinkRetention + 60)) >= 1)
            #expect(try await store.linkedBrowserClick(appID: "app_1", environment: .live, installID: "i1", since: later) == nil)
        }
    }

    /// A SQLite database made before re-installs keeps its answers and bindings, and takes a second answer per install.
    @Test func upgradingSQLiteKeepsAnswersAndTakesReinstalls() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        do {
            let queue = try DatabaseQueue(path: database.path)
            try SQLiteStore.migrator.migrate(queue, upTo: "v19-click-traffic")
            try await queue.write { db in try Self.answeredBefore { try db.execute(sql: $0) } }
        }
        let store = try SQLiteStore(path: database.path)
        try await Self.expectUpgraded(store)
        try await store.close()
    }

    /// The same on PostgreSQL: a schema as it was before (its table, columns and index dropped, the unique constraint
    /// on the install id back, its migration forgotten).
    @Test(.enabled(if: StoreBackend.available.contains(.postgres))) func upgradingPostgreSQLKeepsAnswersAndTakesReinstalls() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"])
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let url = base + (base.contains("?") ? "&" : "?") + "search_path=" + schema
        let before = try await PostgresStore(url: url)
        for statement in [
            "DROP TABLE browser_installs", "DROP INDEX attributions_installation", "ALTER TABLE attributions DROP COLUMN installation_id",
            "ALTER TABLE attributions ADD CONSTRAINT attributions_install UNIQUE (app_id, environment, install_id)",
            "ALTER TABLE click_signals DROP COLUMN browser_hash", "DELETE FROM ferry_migrations WHERE name = 'v16-reinstalls'",
        ] {
            try await before.execute(PostgresQuery(unsafeSQL: statement))
        }
        var statements: [String] = []
        try Self.answeredBefore { statements.append($0) }
        for statement in statements { try await before.execute(PostgresQuery(unsafeSQL: statement)) }
        try await before.close()
        let store = try await PostgresStore(url: url)
        try await Self.expectUpgraded(store)
        try await store.close()
    }

    /// An app, a click and its install's answer, and the user bound to it, as stored before re-installs.
    static func answeredBefore(_ execute: (String) throws -> Void) throws {
        try execute("INSERT INTO apps (id, name, attribution_window, copy_to_open, created_at) VALUES ('app_1', 'Example', 86400, TRUE, 0)")
        try execute("""
            INSERT INTO clicks (id, link_id, app_id, environment, created_at, platform) VALUES ('clk_1', 'lnk_1', 'app_1', 'live', \(epoch.timeIntervalSince1970), 'ios')
            """)
        try execute("""
            INSERT INTO attributions (app_id, environment, install_id, click_id, link_id, match_type, confidence, created_at)
            VALUES ('app_1', 'live', 'i1', 'clk_1', 'lnk_1', 'deterministic', 1, \(epoch.timeIntervalSince1970 + 600))
            """)
        try execute("""
            INSERT INTO user_bindings (app_id, environment, user_id, install_id, attribution_seq, authority, created_at)
            VALUES ('app_1', 'live', 'u1', 'i1', (SELECT seq FROM attributions WHERE install_id = 'i1'), 'server', \(epoch.timeIntervalSince1970 + 900))
            """)
    }

    static func expectUpgraded(_ store: any FerryDatabase) async throws {
        let first = try #require(try await store.attribution(appID: "app_1", environment: .live, installID: "i1"))
        #expect(first == Self.answer("i1", nil, click: "clk_1", at: 600))
        #expect(try await store.userBinding(appID: "app_1", environment: .live, userID: "u1")?.attribution == first)
        #expect(try await store.adoptInstallation(appID: "app_1", environment: .live, installID: "i1", installationID: "inst-A")?.installationID == "inst-A")
        let reinstall = Self.answer("i1", "inst-B", click: nil, at: 5 * 86_400)
        try await store.insertAttribution(reinstall)
        #expect(try await store.attribution(appID: "app_1", environment: .live, installID: "i1") == reinstall)
        await #expect(throws: StoreConflict.self) { try await store.insertAttribution(Self.answer("i1", "inst-A", click: nil, at: 5 * 86_400)) }
        // The binding still names the first answer.
        #expect(try await store.userBinding(appID: "app_1", environment: .live, userID: "u1")?.attribution.clickID == "clk_1")
    }
}
#endif
