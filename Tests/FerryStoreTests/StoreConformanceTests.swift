#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The stores Ferry ships: SQLite always, PostgreSQL when `FERRY_TEST_POSTGRES_URL` names a server (CI always does).
enum StoreBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static var available: [StoreBackend] {
        ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"].map { $0.isEmpty ? [.sqlite] : [.sqlite, .postgres] } ?? [.sqlite]
    }

    var testDescription: String { rawValue }

    /// A fresh, empty store for one test: an in-memory SQLite database, or a PostgreSQL schema of its own.
    func withStore(_ body: (any FerryDatabase) async throws -> Void) async throws {
        let store: any FerryDatabase
        switch self {
        case .sqlite:
            store = try SQLiteStore()
        case .postgres:
            let base = try #require(ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"])
            let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            store = try await PostgresStore(url: base + (base.contains("?") ? "&" : "?") + "search_path=" + schema)
        }
        do {
            try await body(store)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }
}

func click(_ id: String, address: String?, network: String?, seconds: Double) -> Click {
    Click(id: id, linkID: "lnk_1", appID: "app_1", environment: .live, createdAt: epoch.addingTimeInterval(seconds), ipHash: address, networkHash: network,
          userAgent: "UA", platform: .iOS, referer: nil, query: nil, acceptLanguage: "fr-FR,fr;q=0.9,en;q=0.8", osVersion: "18.1", appleDevice: "iphone")
}

/// What every store must do, written once and run against each backend.
@Suite("Store conformance", .takesTurns)
struct StoreConformanceTests {
    @Test(arguments: StoreBackend.available) func appsRoundTripWithDomainsInOrder(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            let app = makeApp(domains: ["go.example.com", "links.example.com"])
            try await store.createApp(app)
            #expect(try await store.app(id: "app_1") == app)
            #expect(try await store.app(forDomain: "links.example.com") == app)
            #expect(try await store.app(forDomain: "other.example.com") == nil)
            #expect(try await store.listApps() == [app])
        }
    }

    @Test(arguments: StoreBackend.available) func aDomainBelongsToOneApp(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            await #expect(throws: StoreConflict.self) {
                try await store.createApp(makeApp(id: "app_2", domains: ["go.example.com"]))
            }
            // The refused app left nothing behind.
            #expect(try await store.app(id: "app_2") == nil)
            #expect(try await store.listApps().count == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func updatingAnAppReplacesItsDomains(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            var app = makeApp()
            try await store.createApp(app)
            app.domains = ["new.example.com"]
            app.name = "Renamed"
            #expect(try await store.updateApp(app))
            #expect(try await store.app(forDomain: "go.example.com") == nil)
            #expect(try await store.app(forDomain: "new.example.com")?.name == "Renamed")
            #expect(try await store.updateApp(makeApp(id: "app_missing", domains: ["x.example.com"])) == false)
        }
    }

    @Test(arguments: StoreBackend.available) func keysAreFoundByHashAndRevokedOnce(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            let key = APIKeyRecord(id: "key_1", appID: "app_1", kind: .secret, environment: .test, hash: "abc123", hint: "fs_test_AbCd…", createdAt: epoch)
            try await store.createKey(key)
            #expect(try await store.key(hash: "abc123") == key)
            #expect(try await store.key(hash: "abc124") == nil)
            #expect(try await store.revokeKey(id: "key_1", at: epoch.addingTimeInterval(5)))
            #expect(try await store.revokeKey(id: "key_1", at: epoch.addingTimeInterval(6)) == false)
            #expect(try await store.key(hash: "abc123")?.revokedAt == epoch.addingTimeInterval(5))
            #expect(try await store.keys(appID: "app_1").count == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func aKeysScopesRoundTripAndNoScopesStaysFullAccess(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            let limited = APIKeyRecord(id: "key_s", appID: "app_1", kind: .secret, environment: .live, hash: "scoped", hint: "fs_live_AbCd…",
                                       createdAt: epoch, scopes: [.webhooksWrite, .linksRead, .auditRead])
            let full = APIKeyRecord(id: "key_f", appID: "app_1", kind: .secret, environment: .live, hash: "full", hint: "fs_live_EfGh…", createdAt: epoch)
            try await store.createKey(limited)
            try await store.createKey(full)
            #expect(try await store.key(hash: "scoped") == limited)
            #expect(try await store.key(hash: "full")?.scopes == nil)
            let listed = try await store.keys(appID: "app_1")
            #expect(listed.first { $0.id == "key_s" }?.scopes == [.webhooksWrite, .linksRead, .auditRead])
            #expect(listed.count == 2 && listed.first { $0.id == "key_f" }?.scopes == nil)
        }
    }

    @Test func aScopeNameThisBuildDoesNotKnowLeavesTheKeyLimited() {
        #expect(APIKeyRecord.scopes(stored: "links:read billing:write") == [.linksRead])
        #expect(APIKeyRecord.scopes(stored: "billing:write") == [], "a key of unknown scopes only may do nothing")
        #expect(APIKeyRecord(id: "k", appID: "a", kind: .secret, environment: .live, hash: "h", hint: "", createdAt: epoch,
                             scopes: [.statsRead, .linksWrite]).storedScopes == "links:write stats:read")
    }

    @Test(arguments: StoreBackend.available) func linksRoundTripEveryField(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            let link = makeLink(id: "lnk_1", slug: "spring")
            try await store.createLink(link)
            #expect(try await store.link(id: "lnk_1", appID: "app_1") == link)
            #expect(try await store.link(domain: "go.example.com", slug: "spring") == link)
            #expect(try await store.link(id: "lnk_1", appID: "app_other") == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func routingLongLinksAndAllowlistsRoundTrip(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            var app = makeApp()
            app.allowedURLPatterns = [#"^https://example\.com/.*$"#, "^https://shop\\.example\\.com/[a-z]+$"]
            try await store.createApp(app)
            #expect(try await store.app(id: "app_1")?.allowedURLPatterns == app.allowedURLPatterns)
            app.allowedURLPatterns = []
            #expect(try await store.updateApp(app))
            #expect(try await store.app(forDomain: "go.example.com")?.allowedURLPatterns == [])

            var routed = makeLink(id: "lnk_1", slug: "routed")
            routed.routing = LinkRouting(
                iosFallbackURL: "https://example.com/ios", ipadFallbackURL: "https://example.com/ipad", ipadBundleID: "com.example.ipad",
                appStoreID: "987654321", iosMinimumVersion: "2.4.1", androidFallbackURL: "https://example.com/android",
                androidMinimumVersionCode: 412, otherPlatformFallbackURL: "https://example.com/desktop", skipPreviewPage: true,
                appStoreAnalytics: AppStoreAnalytics(affiliateToken: "a1", campaignToken: "spring", mediaType: "8", providerToken: "123")
            )
            var long = makeLink(id: "lnk_2", slug: "_fdl_abc")
            long.longLink = "link=https%3A%2F%2Fexample.com%2Fa&apn=com.example.app"
            try await store.createLink(routed)
            try await store.createLink(long)
            #expect(try await store.link(domain: "go.example.com", slug: "routed") == routed)
            #expect(try await store.ipadBundleIDs(appID: "app_1", limit: 10) == ["com.example.ipad"])
            #expect(try await store.ipadBundleIDs(appID: "app_other", limit: 10) == [])
            #expect(try await store.link(id: "lnk_2", appID: "app_1") == long)
            #expect(try await store.link(id: "lnk_2", appID: "app_1")?.shortURL == "https://go.example.com/?link=https%3A%2F%2Fexample.com%2Fa&apn=com.example.app")
            // A link whose routing is cleared follows its app again; a long link stays one.
            routed.routing = LinkRouting()
            long.disabled = true
            #expect(try await store.updateLink(routed))
            #expect(try await store.updateLink(long))
            #expect(try await store.link(id: "lnk_1", appID: "app_1")?.routing == LinkRouting())
            #expect(try await store.link(id: "lnk_2", appID: "app_1") == long)
        }
    }

    @Test(arguments: StoreBackend.available) func aTakenSlugIsAConflictAndChangesNothing(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "spring"))
            let error = await #expect(throws: StoreConflict.self) {
                try await store.createLink(makeLink(id: "lnk_2", slug: "spring"))
            }
            #expect(error?.field == "slug")
            #expect(try await store.link(domain: "go.example.com", slug: "spring")?.id == "lnk_1")
            #expect(try await store.link(id: "lnk_2", appID: "app_1") == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func theSchemaRefusesWhatTheRulesRefuse(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            // Upper-case slugs and links of unknown apps never reach the table, even if a caller skipped validation.
            await #expect(throws: (any Error).self) { try await store.createLink(makeLink(id: "lnk_u", slug: "UPPER")) }
            await #expect(throws: (any Error).self) { try await store.createLink(makeLink(id: "lnk_x", appID: "app_none", slug: "orphan")) }
        }
    }

    @Test(arguments: StoreBackend.available) func updateAndDeleteAreScopedToTheApp(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createApp(makeApp(id: "app_2", domains: ["other.example.com"]))
            var link = makeLink(id: "lnk_1", slug: "spring")
            try await store.createLink(link)
            link.destination = "https://example.com/changed"
            link.disabled = true
            link.params = [:]
            link.expiresAt = nil
            #expect(try await store.updateLink(link))
            #expect(try await store.link(id: "lnk_1", appID: "app_1") == link)
            #expect(try await store.deleteLink(id: "lnk_1", appID: "app_2") == false)
            #expect(try await store.deleteLink(id: "lnk_1", appID: "app_1"))
            #expect(try await store.link(domain: "go.example.com", slug: "spring") == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func listingPagesNewestFirstWithinOneEnvironment(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            for index in 0..<25 {
                try await store.createLink(makeLink(id: "lnk_\(index)", slug: "s\(index)", seconds: Double(index)))
            }
            try await store.createLink(makeLink(id: "lnk_test", slug: "t", environment: .test))
            var seen: [String] = []
            var cursor: Int64?
            repeat {
                let page = try await store.listLinks(appID: "app_1", environment: .live, limit: 10, after: cursor)
                seen += page.links.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == (0..<25).reversed().map { "lnk_\($0)" })
            let test = try await store.listLinks(appID: "app_1", environment: .test, limit: 10, after: nil)
            #expect(test.links.map(\.id) == ["lnk_test"])
            #expect(test.nextCursor == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func clicksAreWrittenInBatchesAndReadBack(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            let clicks = (0..<500).map { index in
                Click(
                    id: "clk_\(index)", linkID: index.isMultiple(of: 2) ? "lnk_a" : "lnk_b", appID: "app_1", environment: .live,
                    createdAt: epoch, ipHash: "h\(index)", networkHash: "n", userAgent: "UA", platform: .iOS, referer: nil,
                    query: "utm_source=x", acceptLanguage: "en-US"
                )
            }
            try await store.recordClicks(clicks)
            // Writing the same batch again (a retry after a timeout) does not double count.
            try await store.recordClicks(clicks)
            #expect(try await store.clickCount(linkID: "lnk_a") == 250)
            #expect(try await store.click(id: "clk_7") == clicks[7])
        }
    }

    @Test(arguments: StoreBackend.available) func theChangeCounterMovesForAppsAndTheLogNamesEachChangedLink(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            let start = try await store.changeEpoch()
            try await store.createApp(makeApp())
            let afterApp = try await store.changeEpoch()
            #expect(afterApp > start)
            let mark = try await store.linkChanges(since: nil)
            #expect(mark.places == [])

            // A link's change names that link, and leaves the counter (which empties whole caches) where it was.
            try await store.createLink(makeLink(id: "lnk_1", slug: "a"))
            try await store.createLink(makeLink(id: "lnk_2", slug: "b"))
            #expect(try await store.changeEpoch() == afterApp)
            let created = try await store.linkChanges(since: mark.mark)
            #expect(Set(created.places ?? []) == [.init(domain: "go.example.com", slug: "a"), .init(domain: "go.example.com", slug: "b")])

            // An update names its link; a deletion names the place it freed.
            var updated = try #require(try await store.link(id: "lnk_1", appID: "app_1"))
            updated.destination = "https://example.com/elsewhere"
            #expect(try await store.updateLink(updated))
            #expect(try await store.deleteLink(id: "lnk_2", appID: "app_1"))
            let later = try await store.linkChanges(since: created.mark)
            let places = Set(later.places ?? [])
            #expect(places == [.init(domain: "go.example.com", slug: "a"), .init(domain: "go.example.com", slug: "b")])

            // Clicks are not changes to links.
            let quiet = try await store.linkChanges(since: later.mark)
            try await store.recordClicks([Click(id: "clk", linkID: "lnk_1", appID: "app_1", environment: .live, createdAt: epoch, ipHash: nil, networkHash: nil, userAgent: nil, platform: .desktop, referer: nil, query: nil, acceptLanguage: nil)])
            #expect(try await store.changeEpoch() == afterApp)
            let afterClick = try await store.linkChanges(since: quiet.mark)
            #expect(Set(afterClick.places ?? []).isSubset(of: places), "a click named no new link")

            // Once the log is pruned past a mark, that mark gets no list: its holder must forget everything. (On
            // PostgreSQL, entries of transactions still open anywhere in the cluster wait for them to end: in a full
            // test run another test's transaction may stay open for seconds, so the wait is long.)
            var pruned = 0
            for _ in 0..<600 where pruned == 0 {
                pruned = try await store.pruneLinkChanges(before: Date().addingTimeInterval(3600))
                if pruned == 0 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(pruned > 0)
            #expect(try await store.linkChanges(since: mark.mark).places == nil)
            let fresh = try await store.linkChanges(since: nil)
            try await store.createLink(makeLink(id: "lnk_3", slug: "c"))
            #expect(try await store.linkChanges(since: fresh.mark).places?.contains(.init(domain: "go.example.com", slug: "c")) == true)
        }
    }

    @Test(arguments: StoreBackend.available) func settingsAreSetOnce(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            #expect(try await store.setting("ip_hash_key") == nil)
            #expect(try await store.insertSettingIfAbsent("ip_hash_key", value: "first") == "first")
            #expect(try await store.insertSettingIfAbsent("ip_hash_key", value: "second") == "first")
        }
    }

    @Test(arguments: StoreBackend.available) func candidatesComeByAddressNetworkAndFingerprintAndConsumedOnesLeave(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "a"))
            try await store.recordClicks([
                click("clk_address", address: "A", network: "N", seconds: 0),
                click("clk_network", address: "B", network: "N", seconds: 10),
                click("clk_print", address: "C", network: "M", seconds: 20),
                click("clk_other", address: "D", network: "O", seconds: 30),
                click("clk_old", address: "A", network: "N", seconds: -200_000),
            ])
            try await store.recordClickSignals(ClickSignalsRecord(clickID: "clk_print", appID: "app_1",
                signals: DeviceSignals(screenWidth: 393, screenHeight: 852, screenScale: 3, timeZone: "Europe/Paris", languages: ["fr-FR"]), receivedAt: epoch.addingTimeInterval(21)))
            let install = InstallEvidence(addressHash: "A", networkHash: "N",
                signals: DeviceSignals(screenWidth: 852, screenHeight: 393, screenScale: 3, timeZone: "Europe/Paris"), at: epoch.addingTimeInterval(600))
            let query = CandidateQuery(appID: "app_1", environment: .live, install: install, window: 86400)
            let set = try await store.candidates(query, platform: .iOS)
            #expect(Set(set.clicks.map(\.clickID)) == ["clk_address", "clk_network", "clk_print"])
            #expect(set.clicksInWindow == 4)
            #expect(set.sameAddressClicks == 1)
            #expect(set.sameNetworkClicks == 2)
            let print = try #require(set.clicks.first { $0.clickID == "clk_print" })
            #expect(print.screenWidth == 393 && print.timeZone == "Europe/Paris" && print.languages == ["fr-FR"])
            // Every field of the evidence, each in its place.
            #expect(print.linkID == "lnk_1" && print.createdAt == epoch.addingTimeInterval(20) && print.addressHash == "C" && print.networkHash == "M")
            #expect(print.osVersion == "18.1" && print.appleDevice == "iphone" && print.screenHeight == 852 && print.screenScale == 3)
            #expect(print.timeZoneOffsetSeconds == nil)
            // Without a page report, languages come from Accept-Language in order of preference.
            #expect(set.clicks.first { $0.clickID == "clk_address" }?.languages == ["fr-FR", "fr", "en"])
            #expect(try await store.candidates(query, platform: .android).clicks.isEmpty)

            // A desktop browser's or a bot's click never led to an install: not a candidate, not in any count, even
            // from the install's own address and for an install that does not say its platform.
            var desktop = click("clk_desktop", address: "A", network: "N", seconds: 40)
            desktop.platform = .desktop
            var bot = click("clk_bot", address: "A", network: "N", seconds: 50)
            bot.platform = .bot
            try await store.recordClicks([desktop, bot])
            for platform in [ClientPlatform.iOS, nil] {
                let withOthers = try await store.candidates(query, platform: platform)
                #expect(Set(withOthers.clicks.map(\.clickID)) == ["clk_address", "clk_network", "clk_print"])
                #expect(withOthers.clicksInWindow == 4 && withOthers.sameAddressClicks == 1 && withOthers.sameNetworkClicks == 2)
            }

            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: "clk_address", linkID: "lnk_1",
                                                                matchType: .probabilistic, confidence: 0.9, createdAt: epoch))
            #expect(try await !store.candidates(query, platform: .iOS).clicks.contains { $0.clickID == "clk_address" })
            #expect(try await store.unconsumedClick(id: "clk_address", appID: "app_1", environment: .live, since: epoch) == nil)
            #expect(try await store.unconsumedClick(id: "clk_network", appID: "app_1", environment: .live, since: epoch)?.linkID == "lnk_1")
            #expect(try await store.unconsumedClick(id: "clk_network", appID: "app_2", environment: .live, since: epoch) == nil)

            // One click, one install; one install, one answer.
            let taken = await #expect(throws: StoreConflict.self) {
                try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i2", clickID: "clk_address", linkID: "lnk_1",
                                                                    matchType: .probabilistic, confidence: 0.9, createdAt: epoch))
            }
            #expect(taken?.field == "clickID")
            let again = await #expect(throws: StoreConflict.self) {
                try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: nil, linkID: nil,
                                                                    matchType: nil, confidence: nil, createdAt: epoch))
            }
            #expect(again?.field == "installID")
        }
    }

    @Test(arguments: StoreBackend.available) func purgingForgetsSignalsAndHashesPastTheWindow(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.recordClicks([click("clk_old", address: "A", network: "N", seconds: 0), click("clk_new", address: "B", network: "N", seconds: 90_000)])
            for (id, seconds) in [("clk_old", 0.0), ("clk_new", 90_000)] {
                try await store.recordClickSignals(ClickSignalsRecord(clickID: id, appID: "app_1", signals: DeviceSignals(screenWidth: 1), receivedAt: epoch.addingTimeInterval(seconds)))
            }
            let touched = try await store.purgeAttributionSignals(now: epoch.addingTimeInterval(100_000))
            #expect(touched == 2)
            #expect(try await store.click(id: "clk_old")?.ipHash == nil)
            #expect(try await store.click(id: "clk_old")?.userAgent == nil)
            #expect(try await store.click(id: "clk_new")?.ipHash == "B")

            // A signed-in person's token outlives the hashes by a day: a user bound to an install a day after it was
            // answered may still find the click the install came from.
            var signedIn = click("clk_user", address: "C", network: "N", seconds: 0)
            signedIn.userToken = "fu_" + String(repeating: "ab", count: 16)
            try await store.recordClicks([signedIn])
            #expect(try await store.purgeAttributionSignals(now: epoch.addingTimeInterval(86_400 + 86_399)) == 1)
            #expect(try await store.click(id: "clk_user")?.ipHash == nil)
            #expect(try await store.click(id: "clk_user")?.userToken == signedIn.userToken)
            #expect(try await store.purgeAttributionSignals(now: epoch.addingTimeInterval(2 * 86_400 + 1)) == 1)
            #expect(try await store.click(id: "clk_user")?.userToken == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func theFirstBindingOfAUserWinsAndEventsAreCounted(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: "clk_1", linkID: "lnk_1",
                                                                matchType: .deterministic, confidence: 1, createdAt: epoch))
            #expect(try await store.userBinding(appID: "app_1", environment: .live, userID: "u1") == nil)
            let first = try await store.bindUser(appID: "app_1", environment: .live, userID: "u1", installID: "i1", authority: .server, now: epoch)
            #expect(first.attribution.clickID == "clk_1" && first.installID == "i1" && first.authority == .server)
            for authority in [UserBinding.Authority.server, .device] {
                let second = try await store.bindUser(appID: "app_1", environment: .live, userID: "u1", installID: "i2", authority: authority,
                                                      now: epoch.addingTimeInterval(5))
                #expect(second == first)
            }
            #expect(try await store.userBinding(appID: "app_1", environment: .live, userID: "u1") == first)
            // Another environment is another user.
            let test = try await store.bindUser(appID: "app_1", environment: .test, userID: "u1", installID: "organic", authority: .server, now: epoch)
            #expect(test.attribution.clickID == nil && test.installID == "organic")

            let events = (0..<3).map { EventRecord(appID: "app_1", environment: .live, name: "open", installID: "i1", linkID: nil,
                                                   properties: ["k": "v \($0)"], occurredAt: epoch, receivedAt: epoch) }
            try await store.recordEvents(events)
            try await store.recordEvents([])
            #expect(try await store.eventCount(appID: "app_1", name: "open") == 3)
            #expect(try await store.eventCount(appID: "app_1", name: "install") == 0)
        }
    }

    @Test(arguments: StoreBackend.available) func aBackendsBindingReplacesOneAPublishableKeyMade(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "victim", clickID: "clk_1", linkID: "lnk_1",
                                                                matchType: .deterministic, confidence: 1, createdAt: epoch))
            // Whoever holds the app sends the user id first, from an install of its own.
            let squatted = try await store.bindUser(appID: "app_1", environment: .live, userID: "u1", installID: "squatter", authority: .device, now: epoch)
            #expect(squatted.installID == "squatter" && squatted.authority == .device && !squatted.attribution.matched)
            // Another install with the publishable key does not take it over…
            let again = try await store.bindUser(appID: "app_1", environment: .live, userID: "u1", installID: "victim", authority: .device,
                                                 now: epoch.addingTimeInterval(60))
            #expect(again == squatted)
            // …the backend does, once, for good.
            let settled = try await store.bindUser(appID: "app_1", environment: .live, userID: "u1", installID: "victim", authority: .server,
                                                   now: epoch.addingTimeInterval(600))
            #expect(settled.installID == "victim" && settled.authority == .server && settled.attribution.clickID == "clk_1")
            for (install, authority) in [("squatter", UserBinding.Authority.device), ("squatter", .server)] {
                let later = try await store.bindUser(appID: "app_1", environment: .live, userID: "u1", installID: install, authority: authority,
                                                     now: epoch.addingTimeInterval(3600))
                #expect(later == settled)
            }
            #expect(try await store.userBinding(appID: "app_1", environment: .live, userID: "u1") == settled)
        }
    }

    @Test(arguments: StoreBackend.available) func aHostBelongsToOneAppWithItsParentsAndSubdomains(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp(domains: ["go.example.com", "localhost:8080"]))
            // Subdomains and parents of another app's domain, the same host on any port, or a port-less host over a port.
            for taken in ["go.example.com", "x.go.example.com", "a.b.go.example.com", "example.com", "go.example.com:8443", "localhost", "localhost:8080"] {
                var error: StoreConflict?
                do { try await store.createApp(makeApp(id: "app_2", domains: ["free.example.org", taken])) } catch let conflict as StoreConflict { error = conflict }
                #expect(error?.field == "domain", "\(taken) was given to a second app")
                #expect(try await store.app(id: "app_2") == nil, "nothing of the refused app is stored")
            }
            // Neighbours are not parents: another name ending the same way, another port, another address.
            try await store.createApp(makeApp(id: "app_2", domains: ["ogo.example.com", "localhost:8081", "127.0.0.1"]))
            var app2 = try #require(try await store.app(id: "app_2"))
            // Changing an app is held to the same rule, and a refused change keeps what was stored.
            app2.domains = ["ogo.example.com", "links.go.example.com"]
            var refused: StoreConflict?
            do { _ = try await store.updateApp(app2) } catch let conflict as StoreConflict { refused = conflict }
            #expect(refused?.message.contains("go.example.com") == true)
            #expect(try await store.app(id: "app_2")?.domains == ["ogo.example.com", "localhost:8081", "127.0.0.1"])
            // An app's own domains may nest.
            var app1 = try #require(try await store.app(id: "app_1"))
            app1.domains += ["deep.go.example.com", "links.go.example.com"]
            #expect(try await store.updateApp(app1))
            let owners = try await store.domainOwners()
            #expect(owners.filter { $0.appID == "app_1" }.map(\.domain).sorted() == ["deep.go.example.com", "go.example.com", "links.go.example.com", "localhost:8080"])
        }
    }

    @Test(arguments: StoreBackend.available) func domainClaimsAreKeptPerAppUntilDropped(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createApp(makeApp(id: "app_2", domains: ["other.example.org"]))
            let claim = DomainClaim(appID: "app_1", domain: "new.example.net", token: "token-1", createdAt: epoch)
            #expect(try await store.createDomainClaim(claim) == claim)
            // Asking again keeps the first token; another app may wait for the same domain with a token of its own.
            #expect(try await store.createDomainClaim(DomainClaim(appID: "app_1", domain: "new.example.net", token: "token-2", createdAt: epoch)) == claim)
            let rival = DomainClaim(appID: "app_2", domain: "new.example.net", token: "token-3", createdAt: epoch)
            #expect(try await store.createDomainClaim(rival) == rival)
            #expect(try await store.domainClaims(appID: "app_1") == [claim])
            #expect(try await store.deleteDomainClaim(appID: "app_1", domain: "new.example.net"))
            #expect(try await !store.deleteDomainClaim(appID: "app_1", domain: "new.example.net"))
            #expect(try await store.domainClaims(appID: "app_1").isEmpty)
            #expect(try await store.domainClaims(appID: "app_2") == [rival])
        }
    }

    @Test(arguments: StoreBackend.available) func sessionsAreFoundByHashUntilEndedOrExpired(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            let live = DashboardSessionRecord(hash: "h1", keyHash: "k1", createdAt: epoch, expiresAt: epoch.addingTimeInterval(3600))
            let old = DashboardSessionRecord(hash: "h2", keyHash: "k1", createdAt: epoch.addingTimeInterval(-7200), expiresAt: epoch.addingTimeInterval(-3600))
            try await store.createSession(live)
            try await store.createSession(old)
            #expect(try await store.session(hash: "h1") == live)
            #expect(try await store.purgeSessions(expiredBefore: epoch) == 1)
            #expect(try await store.session(hash: "h2") == nil)
            #expect(try await store.deleteSession(hash: "h1"))
            #expect(try await store.session(hash: "h1") == nil)
            #expect(try await !store.deleteSession(hash: "h1"))
        }
    }

    @Test(arguments: StoreBackend.available) func clicksPastTheRetentionGoAndTheRestStay(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            let day = 86400.0
            // The storage of each day is readied around it, as the janitor does, before its clicks arrive.
            for offset in [-10.0, -5, -1, 0] { try await store.prepareClickStorage(now: epoch.addingTimeInterval(offset * day)) }
            let clicks = [-10.0, -10, -5, -1, 0].enumerated().map { index, offset in
                Click(id: "clk_\(index)", linkID: "lnk_1", appID: "app_1", environment: .live, createdAt: epoch.addingTimeInterval(offset * day + 60),
                      ipHash: nil, networkHash: nil, userAgent: nil, platform: .iOS, referer: nil, query: nil, acceptLanguage: nil)
            }
            try await store.recordClicks(clicks)
            try await store.recordClicks(clicks)  // a retried batch still counts once
            #expect(try await store.clickCount(linkID: "lnk_1") == 5)

            let gone = try await store.expireClicks(before: epoch.addingTimeInterval(-3 * day))
            #expect(gone == 3)
            #expect(try await store.clickCount(linkID: "lnk_1") == 2)
            #expect(try await store.click(id: "clk_0") == nil)
            #expect(try await store.click(id: "clk_3") == clicks[3])
            #expect(try await store.expireClicks(before: epoch.addingTimeInterval(-3 * day)) == 0)
            if let postgres = store as? PostgresStore {
                // Whole days went as partitions, not row by row.
                let partitions = try await postgres.clickPartitions()
                let tenDaysAgo = (epoch.timeIntervalSince1970 / day).rounded(.down) * day - 10 * day
                #expect(!partitions.contains(PostgresStore.partitionName(dayStart: tenDaysAgo)))
                #expect(partitions.contains(PostgresStore.partitionName(dayStart: tenDaysAgo + 9 * day)))
            }
            // A click on a day nobody readied still lands (in the default partition) and still expires.
            try await store.recordClicks([Click(id: "clk_late", linkID: "lnk_1", appID: "app_1", environment: .live, createdAt: epoch.addingTimeInterval(-100 * day),
                                                ipHash: nil, networkHash: nil, userAgent: nil, platform: .iOS, referer: nil, query: nil, acceptLanguage: nil)])
            #expect(try await store.expireClicks(before: epoch.addingTimeInterval(-50 * day)) == 1)
        }
    }
}
#endif
