#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
@testable import FerryStore
import FerryTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The least confidence of a probabilistic match: asked by the match request (`minConfidence`) or set as the app's
/// default, over real HTTP, on SQLite and on PostgreSQL.
@Suite("Minimum confidence of probabilistic matches", .takesTurns)
struct MinConfidenceTests {
    /// A store with one app (an App Store id, so that iPhones get the interstitial), its keys, and a link.
    struct Setup {
        var store: any FerryDatabase
        var admin: FerryAdmin
        var app: App
        var publishable: String
        var close: @Sendable () async -> Void

        static func make(_ backend: String, minConfidence: Double? = nil) async throws -> Setup {
            let (stores, close) = try await TenantIsolationTests.open(backend, count: 1)
            let admin = FerryAdmin(store: stores[0])
            var spec = FerryAdmin.AppSpec(name: "Example", domains: ["go.example.com"])
            spec.teamID = "ABCDE12345"
            spec.bundleIDs = ["com.example.app"]
            spec.appStoreID = "1234567890"
            spec.attribution.minConfidence = minConfidence
            let app = try await admin.createApp(spec)
            _ = try await admin.createLink(CreateLinkRequest(slug: "shared", destination: "https://example.com/shared", iosURL: "example://shared"),
                                           app: app, environment: .live)
            let publishable = try await admin.createKey(appID: app.id, kind: .publishable, environment: .live).key
            return Setup(store: stores[0], admin: admin, app: app, publishable: publishable, close: close)
        }

        func run(_ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
            do {
                try await buildApplication(Fixture.configuration, store: store).testLive(test)
            } catch {
                await close()
                throw error
            }
            await close()
        }

        func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
            try await TenantIsolationTests.eventually(condition)
        }
    }

    static func match(_ client: some TestClientProtocol, key: String, installID: String, address: String, token: String? = nil,
                      minConfidence: Double? = nil) async throws -> MatchResponse {
        let response = try await client.execute(
            uri: "/v1/attribution/match", method: .post, headers: headers(key: key, json: true, extra: [(.forwardedFor, address)]),
            body: jsonBody(MatchRequest(installID: installID, signals: iPhoneSignals, clickToken: token, minConfidence: minConfidence)))
        #expect(response.status == .ok, "\(response.text)")
        return try response.decode(MatchResponse.self)
    }

    /// Two iPhones of one household, the same model on the same iOS, clicked the shared link from home three hours
    /// before the install: the one that installs (American English, as the install reports) and its twin set to British
    /// English. The install is likelier to be the first click's, but not sure enough for the server's own threshold:
    /// the two clicks weigh about 1.9 to 1, so the first's posterior is about 0.6 (`AttributionMatcherMinimumTests`
    /// computes it). Returns the installing phone's click and its twin's.
    ///
    /// The clicks are made through the edge and the interstitial's report, then moved three hours back in the store
    /// (the server's clock is the wall clock): seconds after a click, the delay weighs steeply (twice the delay, some
    /// forty times the weight), so the seconds a busy test machine takes between the two clicks and the match would
    /// decide the answer; three hours on, they change nothing.
    static func householdClicks(_ client: some TestClientProtocol, _ setup: Setup, address: String) async throws -> (mine: String, twin: String) {
        let mine = try await clickOnIPhone(client, slug: "shared", address: address)
        let twin = try await clickOnIPhone(client, slug: "shared", address: address,
                                           report: iPhoneBrowserReport.replacingOccurrences(of: #"["en-US", "en"]"#, with: #"["en-GB", "en"]"#))
        for click in [mine, twin] { #expect(try await setup.eventually { try await setup.store.click(id: click) != nil }) }
        try await moveBack([mine, twin], by: 3 * 3600, in: setup.store)
        return (mine, twin)
    }

    /// Moves clicks back in time in the store.
    static func moveBack(_ clicks: [String], by seconds: TimeInterval, in store: any FerryDatabase) async throws {
        #expect(clicks.allSatisfy(AttributionRules.isClickID))  // letters, digits and `_`: safe to write into the statement
        let statement = "UPDATE clicks SET created_at = created_at - \(seconds) WHERE id IN (\(clicks.map { "'\($0)'" }.joined(separator: ", ")))"
        switch store {
        case let store as SQLiteStore: try await store.writer.write { try $0.execute(sql: statement) }
        case let store as PostgresStore: try await store.execute("\(unescaped: statement)")
        default: Issue.record("no way to run SQL in \(type(of: store))")
        }
    }

    static let backends = TenantIsolationTests.backends

    @Test(arguments: backends)
    func aMinimumOutOfRangeOrNotANumberIsRefusedByName(backend: String) async throws {
        let setup = try await Setup.make(backend)
        try await setup.run { client in
            for value in ["0.39", "1.01", "-1", "85", "-0", #""0.5""#, #"{"value": 0.5}"#, "true", "[0.5]"] {
                let body = #"{"installID": "bad-\#(UUID())", "signals": {}, "minConfidence": \#(value)}"#
                let response = try await client.execute(uri: "/v1/attribution/match", method: .post, headers: headers(key: setup.publishable, json: true),
                                                        body: jsonBody(body))
                #expect(response.status == .badRequest, "\(value): \(response.text)")
                #expect(response.error?.code == .invalidField && response.error?.field == "minConfidence", "\(value): \(response.text)")
            }
            let message = try await client.execute(uri: "/v1/attribution/match", method: .post, headers: headers(key: setup.publishable, json: true),
                                                   body: jsonBody(#"{"installID": "low", "signals": {}, "minConfidence": 0.39}"#))
            #expect(message.error?.message == "minConfidence must be from 0.4 to 1")
            // A number JSON can write but a Double cannot hold is unreadable JSON, as in any other field.
            let huge = try await client.execute(uri: "/v1/attribution/match", method: .post, headers: headers(key: setup.publishable, json: true),
                                                body: jsonBody(#"{"installID": "huge", "signals": {}, "minConfidence": 1e400}"#))
            #expect(huge.status == .badRequest && huge.error?.code == .invalidJSON, "\(huge.text)")
            // Nothing refused was stored.
            #expect(try await setup.store.attribution(appID: setup.app.id, environment: .live, installID: "low") == nil)
            for value in ["0.4", "1", "1.0", "null"] {
                let body = #"{"installID": "good-\#(value)", "signals": {}, "minConfidence": \#(value)}"#
                let response = try await client.execute(uri: "/v1/attribution/match", method: .post, headers: headers(key: setup.publishable, json: true),
                                                        body: jsonBody(body))
                #expect(response.status == .ok, "\(value): \(response.text)")
            }
        }
    }

    /// The household's install is declined by the server's own threshold and matched when the app asks for 0.5; a stored
    /// "not matched" stays so whatever a later request asks.
    @Test(arguments: backends)
    func aLikelyButUnsureMatchIsGivenWhenTheRequestAsksForLess(backend: String) async throws {
        let setup = try await Setup.make(backend)
        try await setup.run { client in
            let (mine, _) = try await Self.householdClicks(client, setup, address: "203.0.113.60")
            #expect(try await Self.match(client, key: setup.publishable, installID: "default-rule", address: "203.0.113.60") == .notMatched)
            #expect(try await Self.match(client, key: setup.publishable, installID: "default-rule", address: "203.0.113.60", minConfidence: 0.5) == .notMatched,
                    "a stored miss stays a miss")
            let answer = try await Self.match(client, key: setup.publishable, installID: "asks-half", address: "203.0.113.60", minConfidence: 0.5)
            #expect(answer.matched && answer.matchType == .probabilistic && answer.link?.slug == "shared")
            let confidence = try #require(answer.confidence)
            #expect(confidence >= 0.5 && confidence < 0.85, "\(confidence)")
            let stored = try await setup.store.attribution(appID: setup.app.id, environment: .live, installID: "asks-half")
            #expect(stored?.clickID == mine && stored?.confidence == confidence)
        }
    }

    /// A request without `minConfidence` gets the app's default; a request's own value overrides it.
    @Test(arguments: backends)
    func theAppsDefaultAppliesUnlessTheRequestNamesItsOwn(backend: String) async throws {
        let setup = try await Setup.make(backend, minConfidence: 0.5)
        try await setup.run { client in
            _ = try await Self.householdClicks(client, setup, address: "203.0.113.61")
            #expect(try await Self.match(client, key: setup.publishable, installID: "strict", address: "203.0.113.61", minConfidence: 0.9) == .notMatched)
            let answer = try await Self.match(client, key: setup.publishable, installID: "by-default", address: "203.0.113.61")
            #expect(answer.matched && answer.matchType == .probabilistic)
            #expect((answer.confidence ?? 0) >= 0.5 && (answer.confidence ?? 1) < 0.85)
        }
    }

    /// A match is stored once: asking again more strictly hides it without undoing it (the click stays taken), and
    /// asking as the first time did gives the first answer again.
    @Test(arguments: backends)
    func aStricterAskOfAStoredMatchIsNotMatchedAndChangesNothing(backend: String) async throws {
        let setup = try await Setup.make(backend)
        try await setup.run { client in
            let (mine, _) = try await Self.householdClicks(client, setup, address: "203.0.113.62")
            let first = try await Self.match(client, key: setup.publishable, installID: "first", address: "203.0.113.62", minConfidence: 0.5)
            #expect(first.matched)
            let stored = try #require(try await setup.store.attribution(appID: setup.app.id, environment: .live, installID: "first"))
            #expect(stored.clickID == mine)
            #expect(try await Self.match(client, key: setup.publishable, installID: "first", address: "203.0.113.62", minConfidence: 0.9) == .notMatched)
            #expect(try await setup.store.attribution(appID: setup.app.id, environment: .live, installID: "first") == stored, "the stored row is unchanged")
            // The click stays taken: another install like the first does not get it.
            _ = try await Self.match(client, key: setup.publishable, installID: "second", address: "203.0.113.62", minConfidence: 0.5)
            #expect(try await setup.store.attribution(appID: setup.app.id, environment: .live, installID: "second")?.clickID != mine)
            // The first request's threshold, or none (stored answers win), gives the first answer again.
            #expect(try await Self.match(client, key: setup.publishable, installID: "first", address: "203.0.113.62", minConfidence: 0.5) == first)
            #expect(try await Self.match(client, key: setup.publishable, installID: "first", address: "198.51.100.7") == first)
        }
    }

    /// A user bound to an install is told its attribution as the match route would tell it: once the app's default
    /// minimum rises above a stored probabilistic match, neither the binding route nor the LinkTrace-style route gives
    /// it (nothing stored changes), while a deterministic match is still given.
    @Test(arguments: backends)
    func aUsersAttributionFollowsTheAppsMinimum(backend: String) async throws {
        let setup = try await Setup.make(backend)
        let secret = try await setup.admin.createKey(appID: setup.app.id, kind: .secret, environment: .live).key
        try await setup.run { client in
            let (mine, _) = try await Self.householdClicks(client, setup, address: "203.0.113.65")
            let probable = try await Self.match(client, key: setup.publishable, installID: "probable", address: "203.0.113.65", minConfidence: 0.5)
            #expect(probable.matched && probable.matchType == .probabilistic && (probable.confidence ?? 1) < 1)
            let tapped = try await clickOnIPhone(client, slug: "shared", address: "198.51.100.65")
            #expect(try await setup.eventually { try await setup.store.click(id: tapped) != nil })
            let certain = try await Self.match(client, key: setup.publishable, installID: "certain", address: "198.51.100.66", token: "ferry:\(tapped)")
            #expect(certain.matchType == .deterministic)
            func bind(_ installID: String, _ userID: String) async throws -> AttributeUserResponse {
                try await client.execute(uri: "/v1/attribution/user", method: .post, headers: headers(key: secret, json: true),
                                         body: jsonBody(AttributeUserRequest(installID: installID, userID: userID))).decode(AttributeUserResponse.self)
            }
            func linkTrace(_ userID: String) async throws -> String {
                try await client.execute(uri: "/api/v1/attributions", method: .post, headers: headers(key: secret, json: true),
                                         body: jsonBody(#"{"userId": "\#(userID)"}"#)).text
            }
            #expect(try await bind("probable", "user-p").attributed)
            #expect(try await bind("certain", "user-c").attributed)
            #expect(try await linkTrace("user-p").contains(#""attributed":true"#))

            _ = try await setup.admin.updateApp(id: setup.app.id) { $0.attribution.minConfidence = 1 }
            let stored = try await setup.store.attribution(appID: setup.app.id, environment: .live, installID: "probable")
            #expect(stored?.clickID == mine)
            #expect(try await setup.eventually { try await !bind("probable", "user-p").attributed }, "the binding route follows the app's minimum")
            let hidden = try await bind("probable", "user-p")
            #expect(hidden.link == nil && hidden.confidence == nil)
            #expect(try await linkTrace("user-p").contains(#""attributed":false"#))
            let kept = try await bind("certain", "user-c")
            #expect(kept.attributed && kept.matchType == .deterministic)
            #expect(try await linkTrace("user-c").contains(#""attributed":true"#))
            #expect(try await setup.store.attribution(appID: setup.app.id, environment: .live, installID: "probable") == stored, "nothing stored changed")
        }
    }

    /// 1 asks for deterministic matches only: the likeliest probabilistic match is declined (its click left for a token),
    /// a click token still matches, and a stored probabilistic match is hidden while a stored deterministic one is not.
    @Test(arguments: backends)
    func oneAsksForDeterministicMatchesOnly(backend: String) async throws {
        let setup = try await Setup.make(backend)
        try await setup.run { client in
            let clickID = try await clickOnIPhone(client, slug: "shared", address: "203.0.113.63")
            #expect(try await setup.eventually { try await setup.store.click(id: clickID) != nil })
            #expect(try await Self.match(client, key: setup.publishable, installID: "certain-only", address: "203.0.113.63", minConfidence: 1) == .notMatched)
            let token = try await Self.match(client, key: setup.publishable, installID: "with-token", address: "198.51.100.8",
                                             token: "ferry:\(clickID)", minConfidence: 1)
            #expect(token.matched && token.matchType == .deterministic && token.confidence == 1)
            #expect(try await Self.match(client, key: setup.publishable, installID: "with-token", address: "198.51.100.8", minConfidence: 1) == token)

            let other = try await clickOnIPhone(client, slug: "shared", address: "203.0.113.64")
            #expect(try await setup.eventually { try await setup.store.click(id: other) != nil })
            let likely = try await Self.match(client, key: setup.publishable, installID: "likely", address: "203.0.113.64")
            #expect(likely.matched && likely.matchType == .probabilistic && (likely.confidence ?? 0) >= 0.85)
            #expect(try await Self.match(client, key: setup.publishable, installID: "likely", address: "203.0.113.64", minConfidence: 1) == .notMatched)
            #expect(try await Self.match(client, key: setup.publishable, installID: "likely", address: "203.0.113.64") == likely)
        }
    }

    /// The settings form sets the app's default, shows it, refuses what is out of range or not a number without
    /// changing anything, and clears it when emptied.
    @Test func theDashboardSetsAndClearsTheAppsDefault() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let page = try await client.execute(uri: "/dashboard/settings", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(DashboardTests.field("minConfidence", in: page.text) == "")
            let form = "csrf=\(csrf)&name=Example&attributionWindow=24&teamID=ABCDE12345&bundleIDs=com.example.app&appStoreID=1234567890&urlScheme=example"
            let saved = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: form + "&minConfidence=0.65")
            #expect(saved.status == .ok && saved.text.contains("Settings saved."))
            #expect(DashboardTests.field("minConfidence", in: saved.text) == "0.65")
            #expect(try await fixture.store.app(id: fixture.app.id)?.attribution.minConfidence == 0.65)
            for (value, message) in [("0.2", "minConfidence must be from 0.4 to 1"), ("1.5", "minConfidence must be from 0.4 to 1"),
                                     ("high", "must be a number from 0.4 to 1"), ("nan", "minConfidence must be from 0.4 to 1")] {
                let refused = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: form + "&minConfidence=\(value)")
                #expect(refused.status == .badRequest && refused.text.contains(message), "\(value)")
                #expect(DashboardTests.field("minConfidence", in: refused.text) == value, "the form keeps what was typed")
                #expect(try await fixture.store.app(id: fixture.app.id)?.attribution.minConfidence == 0.65, "\(value) changed nothing")
            }
            let cleared = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: form + "&minConfidence=")
            #expect(cleared.status == .ok)
            let app = try #require(try await fixture.store.app(id: fixture.app.id))
            #expect(app.attribution.minConfidence == nil && app.attribution.window == 86400)
        }
    }
}
#endif
