#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Apps that learn their attribution model: what the server records of the installs it answers (anonymised, labelled
/// by the click of a deterministic match), how a refit becomes the model the next answer uses, and that apps on the
/// fixed model pay nothing and answer as before.
@Suite("Attribution models learnt per app", .takesTurns)
struct AttributionLearningTests {
    static func match(_ client: some TestClientProtocol, key: String, installID: String, address: String, signals: DeviceSignals = iPhoneSignals,
                      token: String? = nil, referrer: String? = nil) async throws -> MatchResponse {
        let response = try await client.execute(
            uri: "/v1/attribution/match", method: .post, headers: headers(key: key, json: true, extra: [(.forwardedFor, address)]),
            body: jsonBody(MatchRequest(installID: installID, signals: signals, clickToken: token, referrer: referrer)))
        #expect(response.status == .ok, "\(response.text)")
        return try response.decode(MatchResponse.self)
    }

    static func learning(_ fixture: Fixture) async throws -> App {
        try await fixture.admin.updateApp(id: fixture.app.id) { $0.attribution.model = .learned }
    }

    static func observations(_ fixture: Fixture) async throws -> [AttributionObservationRecord] {
        try await fixture.store.observations(appID: fixture.app.id, environment: .live, since: .distantPast, limit: 100)
    }

    /// A phone that never clicked, elsewhere.
    static let stranger = DeviceSignals(platform: "ios", osVersion: "17.5", model: "iPhone14,2", screenWidth: 390, screenHeight: 844, screenScale: 3,
                                        timeZone: "Europe/Berlin", timeZoneOffsetSeconds: 3600, languages: ["de-DE"])

    @Test func aLearningAppRecordsAnonymisedObservationsOfWhatItAnswers() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await Self.learning(fixture)
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        try await fixture.application().testLive { client in
            // Two clicks from one home address; the install carries the first one's token.
            let tapped = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10")
            let other = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10", report: nil)
            for id in [tapped, other] { #expect(try await fixture.eventually { try await fixture.store.click(id: id) != nil }) }
            let deterministic = try await Self.match(client, key: fixture.publishable, installID: "IDFV-token", address: "203.0.113.10", token: "ferry:\(tapped)")
            #expect(deterministic.matchType == .deterministic)

            let labelled = try #require(try await Self.observations(fixture).first)
            guard case .click(let click) = labelled.observation.label else {
                Issue.record("the deterministic match was not labelled by its click")
                return
            }
            // The candidates the matcher would have had without the token: both clicks of the address, the tapped one
            // among them (its token); the install's address is a0, and the clicks', the same, too.
            let candidates = labelled.observation.candidates
            #expect(candidates.clicks.count == 2 && candidates.sameAddressClicks == 2)
            #expect(candidates.clicks.contains(click) && click.clickID.hasPrefix("c"))
            #expect(labelled.observation.install.addressHash == "a0" && candidates.clicks.allSatisfy { $0.addressHash == "a0" && $0.networkHash == "n0" })
            #expect(click.screenWidth == 393 && click.timeZone == "America/New_York")
            #expect(labelled.observation.window == fixture.app.attribution.window)

            // A probabilistic match from another home, and a decline.
            let near = try await clickOnIPhone(client, slug: "promo", address: "198.51.100.7")
            #expect(try await fixture.eventually { try await fixture.store.click(id: near) != nil })
            let probable = try await Self.match(client, key: fixture.publishable, installID: "IDFV-near", address: "198.51.100.7")
            #expect(probable.matchType == .probabilistic)
            let declined = try await Self.match(client, key: fixture.publishable, installID: "IDFV-organic", address: "192.0.2.50", signals: Self.stranger)
            #expect(!declined.matched)
            // Answers given again record nothing more.
            #expect(try await Self.match(client, key: fixture.publishable, installID: "IDFV-near", address: "198.51.100.7") == probable)
            #expect(try await Self.match(client, key: fixture.publishable, installID: "IDFV-token", address: "192.0.2.1") == deterministic)

            let recorded = try await Self.observations(fixture)
            #expect(recorded.map(\.observation.label.kind) == [.unlabelled, .unlabelled, .click])
            #expect(recorded[1].observation.candidates.clicks.contains { $0.addressHash == "a0" } && recorded[1].observation.install.addressHash == "a0")
            #expect(recorded[0].observation.candidates.clicks.allSatisfy { $0.addressHash != "a0" })
        }

        // No hash or click id of the clicks table, nor any install id, is in what was stored.
        let database = try DatabaseQueue(path: fixture.path)
        let (bodies, secrets) = try await database.read { db in
            let bodies = try String.fetchAll(db, sql: "SELECT body FROM attribution_observations")
            let secrets = try Row.fetchAll(db, sql: "SELECT id, ip_hash, network_hash FROM clicks").flatMap { row in
                [row["id"] as String?, row["ip_hash"] as String?, row["network_hash"] as String?].compactMap { $0 }
            }
            return (bodies, secrets)
        }
        try database.close()
        #expect(bodies.count == 3 && secrets.count == 9)
        for secret in secrets + ["IDFV-token", "IDFV-near", "IDFV-organic"] {
            #expect(!bodies.contains { $0.contains(secret) }, "\(secret) was stored")
        }
    }

    /// An Android install whose Play Store referrer names no click of the app came from the Play Store itself: a
    /// learning app answers it not matched, even beside a click from its address, and labels it organic.
    @Test func aPlayReferrerWithoutAClickIsAnOrganicLabel() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "droid", destination: "https://example.com/d"), app: fixture.app, environment: .live)
        let android = DeviceSignals(platform: "android", osVersion: "14", languages: ["en-US"])
        let organic = "utm_source=google-play&utm_medium=organic"
        try await fixture.application().testLive { client in
            for address in ["203.0.113.20", "203.0.113.21"] {
                let click = try await client.execute(uri: "/droid", method: .get, headers: headers(userAgent: UA.android, extra: [(.forwardedFor, address)]))
                #expect(click.status == .found)
            }
            let link = try #require(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 1, after: nil).links.first)
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == 2 })
            // On the fixed model nothing is recorded.
            _ = try await Self.match(client, key: fixture.publishable, installID: "fixed", address: "203.0.113.20", signals: android, referrer: organic)
            #expect(try await Self.observations(fixture).isEmpty)

            _ = try await Self.learning(fixture)
            let learnt = try await Self.match(client, key: fixture.publishable, installID: "learnt", address: "203.0.113.21", signals: android, referrer: organic)
            #expect(!learnt.matched)
            let recorded = try await Self.observations(fixture)
            #expect(recorded.map(\.observation.label.kind) == [.organic])
            // Its candidates: the clicks of its address and of its network (the other address of the /24).
            #expect(recorded.first?.observation.candidates.clicks.count == 2)
            #expect(recorded.first?.observation.candidates.sameAddressClicks == 1)
            // Asked again, the same answer.
            #expect(try await Self.match(client, key: fixture.publishable, installID: "again", address: "203.0.113.21", signals: android,
                                         referrer: organic) == learnt)
        }
    }

    static func userToken(_ client: some TestClientProtocol, userID: String, key: String) async throws -> TestResponse {
        try await client.execute(uri: "/v1/attribution/user-tokens", method: .post, headers: headers(key: key, json: true),
                                 body: jsonBody(UserClickTokenRequest(userID: userID)))
    }

    /// Only the app's backend gets a user id's click token: the same each time, another for another user id, app or
    /// environment, and a clear refusal for anything else.
    @Test func aUserIDsClickTokenIsTheBackendsToAsk() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let first = try await Self.userToken(client, userID: "ada@example.com", key: fixture.secret)
            #expect(first.status == .ok, "\(first.text)")
            let answer = try first.decode(UserClickTokenResponse.self)
            #expect(answer.userID == "ada@example.com" && answer.parameter == "ferry_user" && UserClickToken.isWellFormed(answer.token))
            #expect(try await Self.userToken(client, userID: "ada@example.com", key: fixture.secret).decode(UserClickTokenResponse.self) == answer)
            var others: Set<String> = [answer.token]
            for (user, key) in [("grace@example.com", fixture.secret), ("ada@example.com", fixture.testSecret), ("ada@example.com", fixture.otherSecret)] {
                others.insert(try await Self.userToken(client, userID: user, key: key).decode(UserClickTokenResponse.self).token)
            }
            #expect(others.count == 4)

            let publishable = try await Self.userToken(client, userID: "ada@example.com", key: fixture.publishable)
            #expect(publishable.status == .forbidden && publishable.text.contains("secret"))
            for (userID, problem) in [("", "userID"), (String(repeating: "u", count: 300), "userID"), ("ada\u{7}", "userID")] {
                let refused = try await Self.userToken(client, userID: userID, key: fixture.secret)
                #expect(refused.status == .badRequest && refused.text.contains(problem), "\(refused.text)")
            }
            let missing = try await client.execute(uri: "/v1/attribution/user-tokens", method: .post, headers: headers(key: fixture.secret, json: true),
                                                   body: jsonBody("{}"))
            #expect(missing.status == .badRequest && missing.text.contains("userID"))
        }
    }

    /// A person signed in on the app's website taps a link carrying their token; the probabilistic tier answers the
    /// install it led to; when the app binds the same user id to that install, the install's observation becomes a
    /// labelled example of that click. Nothing else labels one: a token the server never made, the person's click on
    /// another platform (even a later one), or a binding of an install whose observation was labelled already.
    @Test func aSignedInPersonsClickLabelsTheInstallTheirUserIsBoundTo() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await Self.learning(fixture)
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        try await fixture.application().testLive { client in
            let ada = try await Self.userToken(client, userID: "ada", key: fixture.secret).decode(UserClickTokenResponse.self).token
            let grace = try await Self.userToken(client, userID: "grace", key: fixture.secret).decode(UserClickTokenResponse.self).token
            let forged = "fu_" + String(repeating: "0", count: 32)
            // Ada at home, Grace elsewhere, and a visitor with a token nobody was given.
            let adaClick = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.40", path: "/promo?utm_source=site&ferry_user=\(ada)")
            let graceClick = try await clickOnIPhone(client, slug: "promo", address: "198.51.100.40", path: "/promo?ferry_user=\(grace)")
            let forgedClick = try await clickOnIPhone(client, slug: "promo", address: "192.0.2.40", path: "/promo?ferry_user=\(forged)")
            // Then Ada's token on an Android phone of her network: sent on without the token.
            let android = try await client.execute(uri: "/promo?ferry_user=\(ada)&utm_source=site", method: .get,
                                                   headers: headers(userAgent: UA.android, extra: [(.forwardedFor, "203.0.113.41")]))
            #expect(android.status == .found)
            let location = try #require(android.headers[.location])
            #expect(!location.contains(ada) && !location.contains("ferry_user") && location.contains("utm_source"))
            for id in [adaClick, graceClick, forgedClick] { #expect(try await fixture.eventually { try await fixture.store.click(id: id) != nil }) }
            let link = try #require(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 1, after: nil).links.first)
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == 4 })
            // The token has its own column; the query a deep link carries on is the rest.
            let stored = try #require(try await fixture.store.click(id: adaClick))
            #expect(stored.userToken == ada && stored.query == "utm_source=site")
            #expect(try await fixture.store.click(id: graceClick)?.query == nil)

            for (install, address) in [("IDFV-ada", "203.0.113.40"), ("IDFV-grace", "198.51.100.40"), ("IDFV-forged", "192.0.2.40")] {
                #expect(try await Self.match(client, key: fixture.publishable, installID: install, address: address).matchType == .probabilistic)
            }
            #expect(try await Self.observations(fixture).map(\.observation.label.kind) == [.unlabelled, .unlabelled, .unlabelled])

            func bind(_ installID: String, _ userID: String, key: String) async throws {
                let response = try await client.execute(uri: "/v1/attribution/user", method: .post, headers: headers(key: key, json: true),
                                                        body: jsonBody(AttributeUserRequest(installID: installID, userID: userID)))
                #expect(response.status == .ok, "\(response.text)")
            }
            // Ada signs in in the app: her install is labelled by her iPhone click, as it was offered to it (her
            // address), not by the later Android one.
            try await bind("IDFV-ada", "ada", key: fixture.publishable)
            var recorded = try await Self.observations(fixture)
            #expect(recorded.map(\.observation.label.kind) == [.unlabelled, .unlabelled, .click])
            guard case .userClick(let labelClick) = recorded[2].observation.label else {
                Issue.record("the install was not labelled by its user's click: \(recorded[2].observation.label)")
                return
            }
            #expect(recorded[2].observation.candidates.clicks.contains(labelClick))
            #expect(labelClick.addressHash == "a0" && labelClick.screenWidth == 393)
            // Whoever binds the forged token's install, no user's token is the forged one.
            try await bind("IDFV-forged", "mallory", key: fixture.publishable)
            // Grace's backend binds her: her install is labelled too. Binding again changes nothing.
            try await bind("IDFV-grace", "grace", key: fixture.secret)
            try await bind("IDFV-grace", "grace", key: fixture.secret)
            try await bind("IDFV-ada", "ada", key: fixture.publishable)
            recorded = try await Self.observations(fixture)
            #expect(recorded.map(\.observation.label.kind) == [.unlabelled, .click, .click])

            // Ada's new phone: her user id stays bound to her first install, but signing in labels the new one with
            // her newest click.
            let again = try await clickOnIPhone(client, slug: "promo", address: "192.0.2.99", path: "/promo?ferry_user=\(ada)")
            #expect(try await fixture.eventually { try await fixture.store.click(id: again) != nil })
            #expect(try await Self.match(client, key: fixture.publishable, installID: "IDFV-ada-2", address: "192.0.2.99").matched)
            let response = try await client.execute(uri: "/v1/attribution/user", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                    body: jsonBody(AttributeUserRequest(installID: "IDFV-ada-2", userID: "ada")))
            #expect(try response.decode(AttributeUserResponse.self).boundToThisInstall == false)
            recorded = try await Self.observations(fixture)
            #expect(recorded.map(\.observation.label.kind) == [.click, .unlabelled, .click, .click])
            if case .userClick(let newest) = recorded[0].observation.label {
                #expect(newest.addressHash == "a0" && recorded[0].observation.candidates.clicks.contains(newest))
            } else {
                Issue.record("the new phone's install was not labelled: \(recorded[0].observation.label)")
            }
        }

        // What is labelled keeps no raw form; what is still pending keeps its own until its day has passed.
        let database = try DatabaseQueue(path: fixture.path)
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT label_kind, install_key, pending FROM attribution_observations ORDER BY id")
        }
        try database.close()
        #expect(rows.map { $0["label_kind"] as String } == ["click", "click", "unlabelled", "click"])
        for row in rows {
            let pending = (row["pending"] as String?) != nil, keyed = (row["install_key"] as String?) != nil
            #expect(pending == keyed && pending == ((row["label_kind"] as String) == "unlabelled"))
            if let key = row["install_key"] as String? { #expect(!key.contains("IDFV")) }
        }
    }

    @Test func anAppOnTheFixedModelRecordsNothing() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        #expect(fixture.app.attribution.model == .fixed)
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        try await fixture.application().testLive { client in
            let tapped = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10")
            let near = try await clickOnIPhone(client, slug: "promo", address: "198.51.100.7")
            for id in [tapped, near] { #expect(try await fixture.eventually { try await fixture.store.click(id: id) != nil }) }
            #expect(try await Self.match(client, key: fixture.publishable, installID: "a", address: "203.0.113.10", token: tapped).matchType == .deterministic)
            #expect(try await Self.match(client, key: fixture.publishable, installID: "b", address: "198.51.100.7").matchType == .probabilistic)
            #expect(try await !Self.match(client, key: fixture.publishable, installID: "c", address: "192.0.2.50", signals: Self.stranger).matched)
        }
        #expect(try await Self.observations(fixture).isEmpty)
    }

    /// 150 installs that came from no click (none of them had a candidate): a model fitted on them holds clicks for
    /// rarer than the prior does.
    static func seedOrganicObservations(_ fixture: Fixture, count: Int = 150, at time: Date) async throws {
        for n in 0..<count {
            let install = InstallEvidence(addressHash: "somewhere-\(n)", networkHash: "net-\(n)", signals: iPhoneSignals, at: time.addingTimeInterval(-Double(n) * 60))
            let observation = LearningObservation(install: install, candidates: CandidateSet(clicks: [], clicksInWindow: 3, sameAddressClicks: 0,
                                                                                             sameNetworkClicks: 0),
                                                  window: 86_400, label: .unlabelled).anonymised()
            try await fixture.store.recordObservation(AttributionObservationRecord(appID: fixture.app.id, environment: .live, observedAt: install.at,
                                                                                   observation: observation))
        }
    }

    @Test func aRefitBecomesTheModelOfTheNextAnswerAndStoredAnswersStay() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let app = try await Self.learning(fixture)
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        var configuration = Fixture.configuration
        configuration.attributionRefitInterval = .milliseconds(100)
        try await fixture.application(configuration).testLive { client in
            // Answered with the prior: no model yet (too few observations to fit one).
            let first = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.30")
            #expect(try await fixture.eventually { try await fixture.store.click(id: first) != nil })
            let before = try await Self.match(client, key: fixture.publishable, installID: "IDFV-before", address: "203.0.113.30")
            #expect(before.matchType == .probabilistic)
            #expect(try await fixture.store.activeModel(appID: app.id, environment: .live) == nil)

            // Enough observations: the server's service fits version 1 on its next pass.
            try await Self.seedOrganicObservations(fixture, at: Date())
            #expect(try await fixture.eventually { try await fixture.store.activeModel(appID: app.id, environment: .live) != nil })
            let active = try #require(try await fixture.store.activeModel(appID: app.id, environment: .live))
            // (The service may have fitted it before every observation was stored: from the hundredth on.)
            let summary = active.version.summary
            #expect(active.version.version == 1 && summary.observations >= 100 && summary.unlabelled == summary.observations)
            #expect(active.model.clickedShare < 0.2)

            // The next install is answered with it, exactly as its matcher answers (not as the prior's would): a phone
            // that clicked, installing on the same network from another address (a weaker case than the same address,
            // which every model matches with the highest confidence it states).
            let second = try await clickOnIPhone(client, slug: "promo", address: "198.51.100.31")
            #expect(try await fixture.eventually { try await fixture.store.click(id: second) != nil })
            let hasher = AddressHasher(key: try #require(Fixture.configuration.ipHashKey))
            let address = try #require(IPAddress("198.51.100.77"))
            let probe = InstallEvidence(addressHash: hasher.hash(address), networkHash: hasher.hashNetwork(address), signals: iPhoneSignals, at: Date())
            let candidates = try await fixture.store.candidates(CandidateQuery(appID: app.id, environment: .live, install: probe, window: app.attribution.window),
                                                                platform: .iOS)
            #expect(candidates.clicks.contains { $0.clickID == second })
            let after = try await Self.match(client, key: fixture.publishable, installID: "IDFV-after", address: "198.51.100.77")
            let stored = try #require(try await fixture.store.attribution(appID: app.id, environment: .live, installID: "IDFV-after"))
            var install = probe
            install.at = stored.createdAt
            let learnt = AttributionMatcher(model: active.model, calibration: LearntMatchers.calibration)
                .match(install: install, candidates: candidates, window: app.attribution.window)
            let prior = LearntMatchers.prior.match(install: install, candidates: candidates, window: app.attribution.window)
            #expect(learnt != prior)
            switch learnt {
            case .matched(let clickID, _, let confidence):
                #expect(after.matched && after.confidence == confidence && stored.clickID == clickID)
            case .declined:
                #expect(!after.matched)
            }

            // The answer stored before the refit is given again as it was.
            #expect(try await Self.match(client, key: fixture.publishable, installID: "IDFV-before", address: "192.0.2.9", signals: Self.stranger) == before)
        }
    }

    @Test func theServiceRefitsOnlyLearningAppsWithEnoughObservationsAndOldModels() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let clock = TestClock(start)
        let app = try await Self.learning(fixture)
        let refitter = AttributionRefitter(store: fixture.store, now: clock.now, logger: Logger(label: "ferry-test"))
        // 99 observations: below the minimum, nothing is fitted.
        try await Self.seedOrganicObservations(fixture, count: 99, at: start)
        var outcomes = await refitter.refitDueModels()
        #expect(outcomes.map(\.appID) == [app.id, app.id] && outcomes.map(\.environment) == [.live, .test])
        #expect(outcomes.map(\.outcome) == [.tooFewObservations(99), .tooFewObservations(0)])
        #expect(try await fixture.store.modelVersions(appID: app.id, environment: .live, limit: 10).isEmpty)

        // The hundredth makes a model; the app on the fixed model is never refitted, whatever it has.
        try await Self.seedOrganicObservations(fixture, count: 1, at: start.addingTimeInterval(1))
        for n in 0..<120 {
            let install = InstallEvidence(addressHash: "x\(n)", networkHash: nil, signals: iPhoneSignals, at: start)
            try await fixture.store.recordObservation(AttributionObservationRecord(
                appID: fixture.otherApp.id, environment: .live, observedAt: start,
                observation: LearningObservation(install: install, candidates: CandidateSet(clicks: [], clicksInWindow: 0, sameAddressClicks: 0, sameNetworkClicks: 0),
                                                 window: 86_400, label: .unlabelled)))
        }
        outcomes = await refitter.refitDueModels()
        guard case .refitted(let one) = outcomes.first?.outcome else {
            Issue.record("no refit: \(outcomes)")
            return
        }
        #expect(one.version == 1 && one.createdAt == start && one.summary.observations == 100)
        #expect(try await fixture.store.activeModel(appID: fixture.otherApp.id, environment: .live) == nil)

        // A model younger than six hours is not refitted; an older one is, from where it was.
        clock.set(start.addingTimeInterval(6 * 3600 - 1))
        #expect(await refitter.refitDueModels().first?.outcome == .notDue)
        clock.set(start.addingTimeInterval(6 * 3600 + 1))
        guard case .refitted(let two) = await refitter.refitDueModels().first?.outcome else {
            Issue.record("no second refit")
            return
        }
        #expect(two.version == 2)
        #expect(try await fixture.store.modelVersions(appID: app.id, environment: .live, limit: 10).map(\.status) == [.active, .superseded])
        // Observations older than 28 days are left out of a refit.
        clock.set(start.addingTimeInterval(29 * 86400))
        #expect(await refitter.refitDueModels().first?.outcome == .tooFewObservations(0))
    }

    /// A young app's model is refitted as soon as it is an hour old and its observations have doubled, not only every
    /// six hours; a model fitted on thousands waits its six hours.
    @Test func aYoungModelIsRefittedOnceItsObservationsHaveDoubled() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let clock = TestClock(start)
        let app = try await Self.learning(fixture)
        let refitter = AttributionRefitter(store: fixture.store, now: clock.now, logger: Logger(label: "ferry-test"))
        try await Self.seedOrganicObservations(fixture, count: 120, at: start)
        guard case .refitted(let one) = await refitter.refitDueModels().first?.outcome, one.summary.observations == 120 else {
            Issue.record("no first model")
            return
        }
        // Thirty minutes later the installs have doubled: still too young.
        try await Self.seedOrganicObservations(fixture, count: 130, at: start.addingTimeInterval(30 * 60))
        clock.set(start.addingTimeInterval(30 * 60))
        #expect(await refitter.refitDueModels().first?.outcome == .notDue)
        // An hour and five minutes after the first fit: refitted, on all 250.
        clock.set(start.addingTimeInterval(65 * 60))
        guard case .refitted(let two) = await refitter.refitDueModels().first?.outcome else {
            Issue.record("the young model was not refitted")
            return
        }
        #expect(two.version == 2 && two.summary.observations == 250)
        // Two hours later 60 more, not double: it waits for its six hours.
        try await Self.seedOrganicObservations(fixture, count: 60, at: start.addingTimeInterval(3 * 3600))
        clock.set(start.addingTimeInterval(3 * 3600 + 5 * 60))
        #expect(await refitter.refitDueModels().first?.outcome == .notDue)
        clock.set(start.addingTimeInterval(65 * 60 + 6 * 3600 + 1))
        guard case .refitted(let three) = await refitter.refitDueModels().first?.outcome else {
            Issue.record("no refit after six hours")
            return
        }
        #expect(three.version == 3 && three.summary.observations == 310)
        #expect(try await fixture.store.modelVersions(appID: app.id, environment: .live, limit: 10).count == 3)
    }

    @Test func theJanitorPurgesObservationsPastTheirRetention() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await Self.seedOrganicObservations(fixture, count: 1, at: Date().addingTimeInterval(-2 * 86400))
        try await Self.seedOrganicObservations(fixture, count: 1, at: Date())
        let janitor = AttributionJanitor(store: fixture.store, interval: .seconds(3600), observationRetention: .seconds(86400),
                                         logger: Logger(label: "ferry-test"))
        let running = Task { try await janitor.run() }
        #expect(try await fixture.eventually { try await Self.observations(fixture).count == 1 })
        running.cancel()
        #expect(try await Self.observations(fixture).map(\.observedAt.timeIntervalSinceNow).allSatisfy { $0 > -3600 })
    }

    @Test func retentionAndRefitIntervalAreSettings() throws {
        var configuration = FerryConfiguration()
        #expect(configuration.attributionObservationRetention == .seconds(28 * 86400) && configuration.attributionRefitInterval == .seconds(900))
        try configuration.apply(environment: ["FERRY_ATTRIBUTION_OBSERVATION_RETENTION_DAYS": "7", "FERRY_ATTRIBUTION_REFIT_MINUTES": "60"])
        #expect(configuration.attributionObservationRetention == .seconds(7 * 86400) && configuration.attributionRefitInterval == .seconds(3600))
        for value in ["0", "366", "-1", "seven", "1e3"] {
            #expect(throws: ConfigurationError.self, "\(value)") {
                try configuration.apply(environment: ["FERRY_ATTRIBUTION_OBSERVATION_RETENTION_DAYS": value])
            }
        }
        for value in ["0", "1441", "15m"] {
            #expect(throws: ConfigurationError.self, "\(value)") { try configuration.apply(environment: ["FERRY_ATTRIBUTION_REFIT_MINUTES": value]) }
        }
        #expect(configuration.attributionObservationRetention == .seconds(7 * 86400))
    }

    @Test func learntMatchersAreReadAgainAfterAMinute() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
        let matchers = LearntMatchers(store: fixture.store, now: clock.now, logger: Logger(label: "ferry-test"))
        #expect(await matchers.matcher(appID: fixture.app.id, environment: .live).version == nil)
        var model = AttributionLearner.defaultPrior
        model.clickedShare = 0.3
        _ = try await fixture.store.insertModel(appID: fixture.app.id, environment: .live, model: model,
                                                summary: AttributionModelSummary(model: model, observations: [], window: 86_400), createdAt: clock.now())
        // Within the minute, what was read; after it, the new model; a node's own refit is seen at once.
        clock.set(clock.now().addingTimeInterval(59))
        #expect(await matchers.matcher(appID: fixture.app.id, environment: .live).version == nil)
        clock.set(clock.now().addingTimeInterval(2))
        let read = await matchers.matcher(appID: fixture.app.id, environment: .live)
        #expect(read.version == 1 && read.matcher.model == model && read.matcher.calibration == LearntMatchers.calibration)
        _ = try await fixture.store.insertModel(appID: fixture.app.id, environment: .live, model: AttributionLearner.defaultPrior,
                                                summary: AttributionModelSummary(model: model, observations: [], window: 86_400), createdAt: clock.now())
        #expect(await matchers.matcher(appID: fixture.app.id, environment: .live).version == 1)
        matchers.forget(appID: fixture.app.id, environment: .live)
        #expect(await matchers.matcher(appID: fixture.app.id, environment: .live).version == 2)
        // Each environment has its own.
        #expect(await matchers.matcher(appID: fixture.app.id, environment: .test).version == nil)
    }

    @Test func theDashboardSwitchesTheModel() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let page = try await client.execute(uri: "/dashboard/settings", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")])).text
            #expect(page.contains(#"<option value="fixed" selected>"#))
            let settings = "csrf=\(csrf)&name=Example&attributionWindow=24&teamID=ABCDE12345&bundleIDs=com.example.app"
            let saved = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: settings + "&attributionModel=learned")
            #expect(saved.status == .ok && saved.text.contains(#"<option value="learned" selected>"#))
            #expect(try await fixture.store.app(id: fixture.app.id)?.attribution.model == .learned)
            // A form without the field keeps the model; a made-up one is refused and changes nothing.
            #expect(try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: settings).status == .ok)
            #expect(try await fixture.store.app(id: fixture.app.id)?.attribution.model == .learned)
            let refused = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie,
                                                        body: settings + "&attributionModel=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
            #expect(refused.status == .badRequest && refused.text.contains("fixed or learned") && !refused.text.contains("<script>alert"))
            #expect(try await fixture.store.app(id: fixture.app.id)?.attribution.model == .learned)
        }
    }
}
#endif
