#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Bots, prefetches and email scanners are answered like anyone, recorded with their kind, and left out of the
/// people's figures and of attribution.
@Suite("Who made a click", .takesTurns)
struct ClickTrafficTests {
    /// Every click of the fixture's app today, by id.
    static func clicks(_ fixture: Fixture) async throws -> [String: Click] {
        let clicks = try await fixture.store.exportClicks(appID: fixture.app.id, environment: .live, from: Date().addingTimeInterval(-3600),
                                                          to: Date().addingTimeInterval(3600), after: nil, limit: 1000)
        return Dictionary(uniqueKeysWithValues: clicks.map { ($0.id, $0) })
    }

    static func report(_ fixture: Fixture, link: String? = nil) async throws -> StatsReport {
        let range = StatsRange(fromDay: StatsRollup.day(of: Date()), toDay: StatsRollup.day(of: Date()))
        return StatsReport(rows: try await fixture.store.statsRows(appID: fixture.app.id, environment: .live, linkID: link, range: range),
                           range: range, linkID: link)
    }

    /// The speculative requests browsers send, as they send them: Chromium's speculation rules (a prefetch, and a
    /// prerender), the older `<link rel=prefetch>` of Chromium, Firefox's, and Safari's Top Sites preview.
    static let speculative: [(agent: String, field: String, value: String)] = [
        (UA.android, "Sec-Purpose", "prefetch"),
        (UA.android, "Sec-Purpose", "prefetch;prerender"),
        (UA.windowsChrome, "Purpose", "prefetch"),
        (UA.linuxFirefox, "X-Moz", "prefetch"),
        (UA.desktop, "X-Purpose", "preview"),
    ]

    /// Over real sockets, on the fast path (a kept-alive connection to a link in the cache) and on the router's
    /// (`Connection: close`): each prefetch gets the redirect a click gets, and is recorded as a prefetch.
    @Test func prefetchesAreAnsweredAndRecordedAsSuchOnBothPaths() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            for (agent, field, value) in Self.speculative {
                // The same browser's click, then its prefetch on each path.
                let person = try await EdgeFastPathTests.exchange(port: port, [EdgeFastPathTests.get("/home", userAgent: agent, close: true)])
                let extra = "\(field): \(value)\r\n"
                let answers = try await EdgeFastPathTests.exchange(port: port, [
                    EdgeFastPathTests.get("/home", userAgent: agent, extra: extra),
                    EdgeFastPathTests.get("/home", userAgent: agent, close: true, extra: extra),
                ])
                #expect(answers.map(\.status) == [302, 302], "\(field): \(value)")
                #expect(answers.map { EdgeFastPathTests.shape($0) } == person.map { EdgeFastPathTests.shape($0) } + person.map { EdgeFastPathTests.shape($0) },
                        "\(field): \(value)")
            }
            let expected = 3 * Self.speculative.count
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == expected })
            let kinds = try await Self.clicks(fixture).values.map(\.traffic)
            #expect(kinds.filter { $0 == .prefetch }.count == 2 * Self.speculative.count)
            #expect(kinds.filter { $0 == .person }.count == Self.speculative.count)
            let report = try await Self.report(fixture, link: link.id)
            #expect(report.totals.clicks == Self.speculative.count && report.totals.uniqueVisitors == 4, "four browsers")
            #expect(report.filtered == ["prefetch": 2 * Self.speculative.count])
            #expect(report.platforms == ["desktop": 3, "android": 2])
        }
        // A field that says something else is a person's click.
        #expect(!PrefetchHeaders.isSpeculative("prerender"))
        #expect(!PrefetchHeaders.isSpeculative("prefetched"))
        #expect(PrefetchHeaders.isSpeculative(" Prefetch ; prerender"))
    }

    /// A phone's prefetched click is no candidate: an install from its address is organic; a person's click from
    /// there is matched.
    @Test func aPrefetchIsNoCandidateForAnInstall() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo", iosURL: "example://promo"),
                                               app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let prefetch = try await client.execute(uri: "/promo", method: .get, headers: headers(
                userAgent: UA.iPhoneSafari, extra: [(.forwardedFor, "203.0.113.50"), (HTTPField.Name("Sec-Purpose")!, "prefetch")]))
            #expect(prefetch.status == .ok)
            #expect(try await fixture.eventually { try await Self.clicks(fixture).count == 1 })
            let organic = try await AttributionAPITests().match(client, key: fixture.publishable, installID: "IDFV-1", address: "203.0.113.50")
            #expect(try organic.decode(MatchResponse.self).matched == false)

            _ = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.51")
            #expect(try await fixture.eventually { try await Self.clicks(fixture).count == 2 })
            let matched = try await AttributionAPITests().match(client, key: fixture.publishable, installID: "IDFV-2", address: "203.0.113.51")
            #expect(try matched.decode(MatchResponse.self).matched)
        }
    }

    /// A prefetched interstitial that its visitor then sees reports its device: the click was a person's after all,
    /// and moves into the people's figures (and becomes a candidate).
    @Test func aPrefetchedPageThatIsShownMakesItsClickAPersons() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo", iosURL: "example://promo"),
                                                      app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let page = try await client.execute(uri: "/promo", method: .get, headers: headers(
                userAgent: UA.iPhoneSafari, extra: [(.forwardedFor, "203.0.113.60"), (HTTPField.Name("Sec-Purpose")!, "prefetch;prerender")]))
            let text = page.text
            let start = try #require(text.range(of: "data-click=\"")).upperBound
            let clickID = String(text[start...].prefix(26))
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID)?.traffic == .prefetch })
            #expect(try await Self.report(fixture, link: link.id).totals.clicks == 0)

            let beacon = try await client.execute(uri: "/.ferry/signals", method: .post, headers: headers(extra: [(.contentType, "text/plain;charset=UTF-8")]),
                                                  body: jsonBody(#"{"click": "\#(clickID)", "signals": \#(iPhoneBrowserReport)}"#))
            #expect(beacon.status == .noContent)
            #expect(try await fixture.store.click(id: clickID)?.traffic == .person)
            let report = try await Self.report(fixture, link: link.id)
            #expect(report.totals.clicks == 1 && report.totals.uniqueVisitors == 1 && report.totals.filteredClicks == 0)
            let matched = try await AttributionAPITests().match(client, key: fixture.publishable, installID: "IDFV-1", address: "203.0.113.60")
            #expect(try matched.decode(MatchResponse.self).matched)
        }
        // The page's script waits for a prerendered page to be shown before it reports.
        #expect(InterstitialPage.script.contains("document.prerendering") && InterstitialPage.script.contains("prerenderingchange"))
    }

    /// A phone prefetched the redirect to the Play Store and then followed it: the install's referrer names the
    /// prefetched click, which matches and becomes a person's.
    @Test func aFollowedPrefetchWhoseReferrerReachesTheAppIsAPersons() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "droid", destination: "https://example.com/"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let click = try await client.execute(uri: "/droid", method: .get, headers: headers(
                userAgent: UA.android, extra: [(.forwardedFor, "203.0.113.70"), (HTTPField.Name("Sec-Purpose")!, "prefetch")]))
            let location = try #require(click.headers[.location])
            let referrer = QueryString.decode(Substring(try #require(location.components(separatedBy: "referrer=").last)))
            let clickID = try #require(AttributionRules.clickID(fromReferrer: referrer))
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID)?.traffic == .prefetch })
            let response = try await AttributionAPITests().match(client, key: fixture.publishable, installID: "android-1", address: "198.51.100.70",
                                                                 signals: DeviceSignals(platform: "android", osVersion: "14"), referrer: referrer)
            #expect(try response.decode(MatchResponse.self).matchType == .deterministic)
            #expect(try await fixture.store.click(id: clickID)?.traffic == .person)
            #expect(try await Self.report(fixture, link: link.id).totals.clicks == 1)
        }
    }

    /// One address and browser opening three links of the app within seconds is a scanner checking a message, even
    /// when its earlier clicks were already written as a person's; a person opening two links is a person. The
    /// recorder is given clicks made at chosen times (a second and three seconds apart), each batch written before the
    /// next, so that a busy machine's slow requests cannot stretch the burst.
    @Test func aBurstOfLinksFromOneAddressIsAScannersAndItsEarlierClicksFollow() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        var links: [Link] = []
        for slug in ["news", "offer", "unsubscribe"] {
            links.append(try await fixture.admin.createLink(CreateLinkRequest(slug: slug, destination: "https://example.com/\(slug)"), app: fixture.app, environment: .live))
        }
        let recorder = ClickRecorder(store: fixture.store, flushInterval: .seconds(60), batchSize: 100, bufferLimit: 100, logger: Logger(label: "test"),
                                     hasher: AddressHasher(key: "burst-test-key-0123456789"))
        let start = Date()
        func click(_ link: Link, after seconds: Double, from address: String) async {
            var generator = SystemRandomNumberGenerator()
            recorder.record(Click(id: Identifiers.make(prefix: "clk", using: &generator), linkID: link.id, appID: fixture.app.id, environment: .live,
                                  createdAt: start.addingTimeInterval(seconds), ipHash: nil, networkHash: nil, userAgent: UA.windowsChrome,
                                  platform: .desktop, referer: nil, query: nil, acceptLanguage: "en"),
                            origin: ClickOrigin(peer: address, forwardedFor: []))
            await recorder.flush()
        }
        // A scanner: each click is stored before the next is made.
        for (index, link) in links.enumerated() { await click(link, after: [0, 1, 4][index], from: "192.0.2.77") }
        // A person: two links of the message, seconds apart.
        for (index, link) in links.prefix(2).enumerated() { await click(link, after: 2 + Double(index), from: "192.0.2.78") }

        let clicks = try await Self.clicks(fixture).values
        #expect(clicks.count == 5)
        #expect(clicks.filter { $0.traffic == .scanner }.count == 3)
        let app = try await Self.report(fixture)
        #expect(app.totals.clicks == 2, "the person's two")
        #expect(app.totals.uniqueVisitors == 1)
        #expect(app.filtered == ["scanner": 3])
        for link in links {
            #expect(try await Self.report(fixture, link: link.id).filtered == ["scanner": 1])
        }
    }

    /// Clicks from a network a vendor publishes, or the operator names, are a scanner's, as are those of a scanner
    /// that names itself; a bot's stays a bot's.
    @Test func aClickFromAScannersNetworkIsAScanners() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
        var configuration = Fixture.configuration
        try configuration.apply(environment: ["FERRY_SCANNER_NETWORKS": "198.51.100.0/24, 2001:db8:5::/48"])
        try await fixture.application(configuration).test(.router) { client in
            for (agent, address) in [(UA.windowsChrome, "198.51.100.20"), (UA.iPhoneSafari, "2001:db8:5::1"), (UA.slackBot, "198.51.100.21"),
                                     (UA.windowsChrome, "203.0.113.20"), (UA.windowsChrome, "104.47.20.30"), ("Barracuda Sentinel (EE)", "203.0.113.21")] {
                _ = try await client.execute(uri: "/home", method: .get, headers: headers(userAgent: agent, extra: [(.forwardedFor, address)]))
            }
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == 6 })
            let report = try await Self.report(fixture, link: link.id)
            #expect(report.filtered == ["scanner": 4, "bot": 1], "Exchange Online Protection's 104.47.0.0/17 is published")
            #expect(report.totals.clicks == 1)
        }
        // Every published network reads, and the operator can leave them out.
        #expect(MailScannerNetworks.published.count == MailScannerNetworks.table.split(separator: "\n").count)
        var without = Fixture.configuration
        try without.apply(environment: ["FERRY_PUBLISHED_SCANNER_NETWORKS": "off", "FERRY_SCANNER_NETWORKS": "192.0.2.0/24"])
        #expect(without.allScannerNetworks.map(\.description) == ["192.0.2.0/24"])
        #expect(Fixture.configuration.allScannerNetworks.count == MailScannerNetworks.published.count)
        var wrong = FerryConfiguration()
        #expect(throws: ConfigurationError.self) { try wrong.apply(environment: ["FERRY_SCANNER_NETWORKS": "198.51.100.0/33"]) }
        #expect(throws: ConfigurationError.self) { try wrong.apply(environment: ["FERRY_PUBLISHED_SCANNER_NETWORKS": "maybe"]) }
    }
}

/// The burst rule, with clicks minutes and seconds apart.
@Suite("Scanner bursts", .takesTurns)
struct ScannerBurstDetectorTests {
    static func click(_ id: String, link: String, at seconds: Double, address: String = "a", agent: String = "Chrome") -> Click {
        Click(id: id, linkID: link, appID: "app_1", environment: .live, createdAt: Date(timeIntervalSince1970: 1_800_000_000 + seconds),
              ipHash: address, networkHash: nil, userAgent: agent, platform: .desktop, referer: nil, query: nil, acceptLanguage: nil)
    }

    @Test func threeLinksWithinSecondsAreAScannersAndSlowerOnesAPersons() {
        var detector = ScannerBurstDetector()
        // A person reading a newsletter: three links over twenty minutes, the same one twice in a row.
        for (id, link, time) in [("p1", "l1", 0.0), ("p2", "l1", 2), ("p3", "l2", 300), ("p4", "l3", 1200)] {
            #expect(detector.observe(Self.click(id, link: link, at: time)) == .init(isScanner: false, earlier: []))
        }
        // A scanner: the message's links within four seconds; its later clicks within the window are its too.
        #expect(!detector.observe(Self.click("s1", link: "l1", at: 5000, address: "b")).isScanner)
        #expect(!detector.observe(Self.click("s2", link: "l2", at: 5001.5, address: "b")).isScanner)
        #expect(detector.observe(Self.click("s3", link: "l3", at: 5004, address: "b")) == .init(isScanner: true, earlier: ["s1", "s2"]))
        #expect(detector.observe(Self.click("s4", link: "l1", at: 5009, address: "b")) == .init(isScanner: true, earlier: []))
        // The same address with another browser, or another address, is someone else.
        #expect(!detector.observe(Self.click("o1", link: "l4", at: 5010, address: "b", agent: "Safari")).isScanner)
        #expect(!detector.observe(Self.click("o2", link: "l5", at: 5010, address: "c")).isScanner)
        // An hour later the address starts afresh.
        #expect(!detector.observe(Self.click("n1", link: "l1", at: 8600, address: "b")).isScanner)
        #expect(detector.tracked == 1)
        // Clicks without an address, or already known not to be a person's, are not watched.
        var bot = Self.click("b1", link: "l1", at: 8601)
        bot.traffic = .bot
        #expect(!detector.observe(bot).isScanner)
        var anonymous = Self.click("x1", link: "l2", at: 8601)
        anonymous.ipHash = nil
        #expect(!detector.observe(anonymous).isScanner)
    }

    @Test func aFloodIsRememberedOnlyUpToTheBound() {
        var detector = ScannerBurstDetector()
        for index in 0..<(ScannerBurstDetector.maximumTracked + 5000) {
            _ = detector.observe(Self.click("c\(index)", link: "l\(index % 2)", at: Double(index) / 100_000, address: "a\(index)"))
        }
        #expect(detector.tracked <= ScannerBurstDetector.maximumTracked)
    }
}
#endif
