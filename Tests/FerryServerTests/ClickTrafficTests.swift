#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Bots, prefetches and email scanners are answered like anyone, recorded with their kind, and left out of the
/// people's figures and of attribution.
@Suite("Who made a click")
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
}

#endif
