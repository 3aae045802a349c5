#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Re-installs: the same install id from another installation is answered afresh, certain of a click made in a
/// browser that led the install to the app before, and that answer labels the learner's observation; the first
/// installation's answer stays its own.
@Suite("Re-installs", .takesTurns)
struct ReinstallTests {
    static let hasher = AddressHasher(key: "reinstall-tests")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// The attribution service over the fixture's store, on a clock the test sets.
    static func attributor(_ fixture: Fixture, clock: TestClock) -> Attributor {
        let logger = Logger(label: "ferry-test")
        let recorder = ClickRecorder(store: fixture.store, flushInterval: .seconds(3600), batchSize: 1, bufferLimit: 10_000, logger: logger)
        return Attributor(store: fixture.store, recorder: recorder, matcher: AttributionMatcher(), hasher: hasher, now: clock.now, logger: logger,
                          outbox: WebhookOutbox(store: fixture.store, now: clock.now, logger: logger))
    }

    /// A person's click on an iPhone from `address`, `minutes` after the start; its page reports from `browser`.
    static func click(_ id: String, link: Link, address: String, minutes: Double, browser: String?, attributor: Attributor, clock: TestClock,
                      fixture: Fixture) async throws {
        let ip = try #require(IPAddress(address))
        let at = start.addingTimeInterval(minutes * 60)
        try await fixture.store.recordClicks([Click(
            id: id, linkID: link.id, appID: fixture.app.id, environment: .live, createdAt: at, ipHash: hasher.hash(ip), networkHash: hasher.hashNetwork(ip),
            userAgent: UA.iPhoneSafari, platform: .iOS, referer: nil, query: nil, acceptLanguage: "en-US,en;q=0.9", osVersion: "18.6", appleDevice: "iphone")])
        clock.set(at.addingTimeInterval(3))
        try await attributor.describe(clickID: id, app: fixture.app, signals: iPhoneSignals, browser: browser)
    }

    static func match(_ installID: String, _ installationID: String?, token: String? = nil, address: String, minutes: Double, signals: DeviceSignals,
                      attributor: Attributor, clock: TestClock, app: App) async throws -> AttributionRecord? {
        clock.set(start.addingTimeInterval(minutes * 60))
        let request = MatchRequest(installID: installID, installationID: installationID, signals: signals, clickToken: token)
        _ = try await attributor.match(request, app: app, environment: .live, address: IPAddress(address))
        return try await attributor.store.attribution(appID: app.id, environment: .live, installID: installID, installationID: installationID)
    }

    @Test func aReinstallIsCertainOfTheClickFromTheBrowserThatLedItBefore() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let app = try await fixture.admin.updateApp(id: fixture.app.id) { $0.attribution.model = .learned }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: app, environment: .live)
        let clock = TestClock(Self.start)
        let attributor = Self.attributor(fixture, clock: clock)
        let (day, hour) = (24.0 * 60, 60.0)
        func click(_ id: String, _ address: String, at minutes: Double, browser: String?) async throws {
            try await Self.click(id, link: link, address: address, minutes: minutes, browser: browser, attributor: attributor, clock: clock, fixture: fixture)
        }
        func match(_ installID: String, _ installationID: String?, token: String? = nil, from address: String, at minutes: Double,
                   signals: DeviceSignals = iPhoneSignals) async throws -> AttributionRecord? {
            try await Self.match(installID, installationID, token: token, address: address, minutes: minutes, signals: signals, attributor: attributor,
                                 clock: clock, app: app)
        }
        let browser = "fb_" + String(repeating: "a1B2", count: 5) + "c3"

        // The first install, 20 minutes after a copy-to-open click at home.
        try await click("clk_" + String(repeating: "A", count: 22), "203.0.113.10", at: 0, browser: browser)
        let first = try #require(try await match("IDFV-1", "inst-1", token: "ferry:clk_" + String(repeating: "A", count: 22), from: "203.0.113.10", at: 20))
        #expect(first.matchType == .deterministic && first.installationID == "inst-1")
        // Asked again by the same installation, or by an older FerryKit naming none: the same answer.
        #expect(try await match("IDFV-1", "inst-1", from: "192.0.2.1", at: 25) == first)
        #expect(try await match("IDFV-1", nil, from: "192.0.2.1", at: 26) == first)

        // Three days later the app is gone; the same browser clicks from the phone's carrier address, and another
        // person's browser clicks the same link from that address an hour later.
        try await click("clk_" + String(repeating: "B", count: 22), "198.51.100.20", at: 3 * day, browser: browser)
        try await click("clk_" + String(repeating: "C", count: 22), "198.51.100.20", at: 3 * day + hour, browser: "fb_" + String(repeating: "Z", count: 22))
        // The re-install opens two hours after its click, on Wi-Fi elsewhere: no address or network in common.
        let reinstall = try #require(try await match("IDFV-1", "inst-2", from: "192.0.2.77", at: 3 * day + 2 * hour))
        #expect(reinstall.clickID == "clk_" + String(repeating: "B", count: 22))
        #expect(reinstall.matchType == .deterministic && reinstall.confidence == 1 && reinstall.installationID == "inst-2")
        #expect(try await match("IDFV-1", "inst-2", from: "192.0.2.77", at: 3 * day + 2 * hour + 5) == reinstall)
        // The first installation's answer is still its own.
        #expect(try await fixture.store.attribution(appID: app.id, environment: .live, installID: "IDFV-1", installationID: "inst-1") == first)

        // The learner is told which click the re-install came from, beside what the matcher would have been offered.
        let observations = try await fixture.store.observations(appID: app.id, environment: .live, since: .distantPast, limit: 10)
        #expect(observations.map(\.observation.label.kind) == [.click, .click])
        if case .click(let labelled) = observations.first?.observation.label {
            #expect(labelled.clickID.hasPrefix("c") && labelled.screenWidth == 393)
        } else {
            Issue.record("the re-install's observation is not labelled by its click")
        }

        // Another device (whose screen and time zone no click shares, so that only its browser can find its clicks): its
        // browser's only click after its first answer is older than the window when it comes back, and one made before
        // that answer (while it was being installed) was that installation's to take.
        let berlin = AttributionLearningTests.stranger
        let other = "fb_" + String(repeating: "Q", count: 22)
        try await click("clk_" + String(repeating: "D", count: 22), "203.0.113.50", at: 10, browser: other)
        try await click("clk_" + String(repeating: "E", count: 22), "203.0.113.51", at: 14, browser: other)
        let second = try #require(try await match("IDFV-2", "inst-1", token: "ferry:clk_" + String(repeating: "D", count: 22), from: "203.0.113.50", at: 16))
        #expect(second.matchType == .deterministic)
        let early = try #require(try await match("IDFV-2", "inst-2", from: "192.0.2.90", at: 10 * hour, signals: berlin))
        #expect(early.clickID == nil && early.installationID == "inst-2")
        try await click("clk_" + String(repeating: "F", count: 22), "198.51.100.60", at: 2 * day, browser: other)
        let late = try #require(try await match("IDFV-2", "inst-3", from: "192.0.2.91", at: 3 * day + hour, signals: berlin))
        #expect(late.clickID == nil)
        // A device the server never answered is a first install, whatever its installation.
        #expect(try await match("IDFV-3", "inst-9", from: "192.0.2.92", at: 3 * day + hour, signals: berlin)?.clickID == nil)
    }

    /// Over HTTP: the page's browser id reaches the store only as a keyed hash and only when well-formed, and a
    /// re-install is matched by it; an installation id that breaks the rules is refused by name.
    @Test func overHTTPTheBrowsersIDIsKeptHashedAndAMalformedOneIgnored() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        let browser = "fb_" + String(repeating: "k7", count: 11)
        try await fixture.application().testLive { client in
            func match(_ body: String, address: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/attribution/match", method: .post,
                                         headers: headers(key: fixture.publishable, json: true, extra: [(.forwardedFor, address)]), body: jsonBody(body))
            }
            let tapped = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10", browser: browser)
            let malformed = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.11", browser: "fb_<script>")
            for id in [tapped, malformed] { #expect(try await fixture.eventually { try await fixture.store.click(id: id) != nil }) }
            let signals = #"{"platform": "ios", "osVersion": "18.6", "model": "iPhone17,3", "screenWidth": 393, "screenHeight": 852, "screenScale": 3, "timeZone": "America/New_York", "languages": ["en-US"]}"#
            let first = try await match(#"{"installID": "IDFV-9", "installationID": "inst-1", "clickToken": "ferry:\#(tapped)", "signals": \#(signals)}"#,
                                        address: "203.0.113.10")
            #expect(first.status == .ok)
            #expect(try first.decode(MatchResponse.self).matchType == .deterministic)

            let again = try await clickOnIPhone(client, slug: "promo", address: "198.51.100.20", browser: browser)
            #expect(try await fixture.eventually { try await fixture.store.click(id: again) != nil })
            let reinstall = try await match(#"{"installID": "IDFV-9", "installationID": "inst-2", "signals": \#(signals)}"#, address: "192.0.2.77")
            let answer = try reinstall.decode(MatchResponse.self)
            #expect(answer.matched && answer.matchType == .deterministic && answer.confidence == 1)
            #expect(try await fixture.store.attribution(appID: fixture.app.id, environment: .live, installID: "IDFV-9")?.clickID == again)

            let refused = try await match(#"{"installID": "IDFV-9", "installationID": "\#(String(repeating: "x", count: 129))", "signals": {}}"#,
                                          address: "192.0.2.78")
            #expect(refused.status == .badRequest && refused.text.contains("installationID"))
            let blank = try await match(#"{"installID": "IDFV-9", "installationID": "has space", "signals": {}}"#, address: "192.0.2.78")
            #expect(blank.status == .badRequest && blank.text.contains("installationID"))
        }
        let database = try DatabaseQueue(path: fixture.path)
        let hashes = try await database.read { db in try String?.fetchAll(db, sql: "SELECT browser_hash FROM click_signals ORDER BY received_at") }
        try database.close()
        #expect(hashes.count == 3 && hashes[1] == nil)
        #expect(hashes[0] != nil && hashes[0] == hashes[2] && hashes[0] != browser && !(hashes[0] ?? "").contains(browser))
    }
}
#endif
