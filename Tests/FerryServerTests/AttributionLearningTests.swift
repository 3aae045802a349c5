#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Apps that learn their attribution model: what the server records of the installs it answers (anonymised, labelled
/// by the click of a deterministic match), how often a node reads an app's model, and that apps on the fixed model pay
/// nothing and answer as before.
@Suite("Attribution models learnt per app")
struct AttributionLearningTests {
    static func match(_ client: some TestClientProtocol, key: String, installID: String, address: String, signals: DeviceSignals = iPhoneSignals,
                      token: String? = nil) async throws -> MatchResponse {
        let response = try await client.execute(
            uri: "/v1/attribution/match", method: .post, headers: headers(key: key, json: true, extra: [(.forwardedFor, address)]),
            body: jsonBody(MatchRequest(installID: installID, signals: signals, clickToken: token)))
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
}
#endif
