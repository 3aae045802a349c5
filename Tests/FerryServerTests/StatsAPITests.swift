#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Statistics over HTTP", .takesTurns)
struct StatsAPITests {
    @Test func clicksMatchesAndEventsShowInTheLinksAndTheAppsStatistics() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo",
                                                                        utm: UTMParameters(source: "newsletter", medium: "email", campaign: "spring")),
                                                      app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            // Two people on iPhones (one of them installs), one Android phone from a tweet, a desktop; a bot and a
            // browser's prefetch, answered but not counted among them.
            let clickID = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10")
            _ = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.11", report: nil)
            for (agent, address, extra) in [(UA.android, "198.51.100.1", [(HTTPField.Name.referer, "https://t.co/abc")]),
                                            (UA.desktop, "198.51.100.2", []), (UA.slackBot, "198.51.100.3", []),
                                            (UA.iPhoneSafari, "198.51.100.4", [(HTTPField.Name("Sec-Purpose")!, "prefetch")])] {
                let response = try await client.execute(uri: "/promo?utm_source=twitter", method: .get,
                                                        headers: headers(userAgent: agent, extra: [(.forwardedFor, address)] + extra))
                #expect(response.status.code < 400)
            }
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == 6 })
            let match = try await client.execute(
                uri: "/v1/attribution/match", method: .post, headers: headers(key: fixture.publishable, json: true, extra: [(.forwardedFor, "198.51.100.77")]),
                body: jsonBody(MatchRequest(installID: "IDFV-1", signals: iPhoneSignals, clickToken: "ferry:\(clickID)")))
            #expect(try match.decode(MatchResponse.self).matched)
            let events = try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: fixture.publishable, json: true), body: jsonBody("""
                {"events": [{"name": "open", "installID": "IDFV-1", "linkID": "\(link.id)"}, {"name": "signup", "installID": "IDFV-1", "linkID": "\(link.id)"}]}
                """))
            #expect(events.status.code == 202 || events.status == .ok, "\(events.text)")

            let response = try await client.execute(uri: "/v1/links/\(link.id)/stats", method: .get, headers: headers(key: fixture.secret))
            #expect(response.status == .ok)
            let report = try response.decode(StatsReport.self)
            #expect(report.linkID == link.id)
            #expect(report.days.count == 30)
            #expect(report.totals.clicks == 4)
            #expect(report.totals.uniqueVisitors == 4, "the bot and the prefetch are no visitors")
            #expect(report.totals.filteredClicks == 2)
            #expect(report.filtered == ["bot": 1, "prefetch": 1])
            #expect(report.totals.installs == 1 && report.totals.deterministicInstalls == 1)
            #expect(report.totals.opens == 1)
            #expect(report.totals.customEvents == 1)
            #expect(report.platforms == ["ios": 2, "android": 1, "desktop": 1])
            #expect(report.referrers["t.co"] == 1)
            #expect(report.utmSources == ["newsletter": 2, "twitter": 2])
            #expect(report.days.last?.clicks == 4)
            #expect(report.days.last?.filteredClicks == 2)

            let app = try await client.execute(uri: "/v1/stats", method: .get, headers: headers(key: fixture.secret)).decode(StatsReport.self)
            #expect(app.linkID == nil)
            #expect(app.totals.clicks == 4 && app.totals.installs == 1 && app.totals.filteredClicks == 2)
        }
    }

    @Test func statisticsNeedASecretKeyOfTheLinksAppAndEnvironmentAndAValidRange() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let path = "/v1/links/\(link.id)/stats"
            #expect(try await client.execute(uri: path, method: .get, headers: headers()).status == .unauthorized)
            #expect(try await client.execute(uri: path, method: .get, headers: headers(key: fixture.publishable)).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/stats", method: .get, headers: headers(key: fixture.publishable)).status == .forbidden)
            #expect(try await client.execute(uri: path, method: .get, headers: headers(key: fixture.otherSecret)).status == .notFound)
            #expect(try await client.execute(uri: path, method: .get, headers: headers(key: fixture.testSecret)).status == .notFound)
            #expect(try await client.execute(uri: path, method: .post, headers: headers(key: fixture.secret)).status == .methodNotAllowed)
            for (query, field) in [("days=732", "days"), ("days=0", "days"), ("days=week", "days"), ("to=2026-02-30", "to"), ("to=%00", "to"),
                                   // `from` is no longer read; a client still sending it is told rather than given another range.
                                   ("from=2026-11-01&to=2026-11-30", "from"), ("from=2026-11-01", "from")] {
                let response = try await client.execute(uri: "\(path)?\(query)", method: .get, headers: headers(key: fixture.secret))
                #expect(response.status == .badRequest, "\(query)")
                #expect(response.error?.field == field, "\(query)")
            }
            let one = try await client.execute(uri: "\(path)?to=2026-11-01&days=1", method: .get, headers: headers(key: fixture.secret))
            #expect(try one.decode(StatsReport.self).days.map(\.date) == ["2026-11-01"])
            // Every day from 1970 on with every count from 1 to 731 is a range, the longest included.
            for query in ["to=1970-01-01&days=731", "to=9999-12-31&days=731", "days=731", "to=2026-11-30", "from=&to=&days="] {
                let report = try await client.execute(uri: "\(path)?\(query)", method: .get, headers: headers(key: fixture.secret))
                #expect(report.status == .ok, "\(query): \(report.text)")
            }
            let longest = try await client.execute(uri: "/v1/stats?to=1970-01-01&days=731", method: .get, headers: headers(key: fixture.secret))
            let report = try longest.decode(StatsReport.self)
            #expect(report.from == "1968-01-02" && report.to == "1970-01-01" && report.days.count == 731, "\(report.from) \(report.to)")
        }
    }
}

@Suite("Exports over HTTP", .takesTurns)
struct ExportAPITests {
    @Test func clicksAndAttributionsComeAsCSVOfTheKeysAppOnly() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let clickID = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10")
            let hostile = try await client.execute(uri: "/promo?q=%3DHYPERLINK(1)", method: .get,
                                                   headers: headers(userAgent: UA.desktop, extra: [(.referer, "=cmd|' /C calc'!A0")]))
            #expect(hostile.status == .found)
            let bot = try await client.execute(uri: "/promo", method: .get, headers: headers(userAgent: UA.slackBot))
            #expect(bot.status == .ok)
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == 3 })
            _ = try await client.execute(
                uri: "/v1/attribution/match", method: .post, headers: headers(key: fixture.publishable, json: true, extra: [(.forwardedFor, "198.51.100.7")]),
                body: jsonBody(MatchRequest(installID: "IDFV-1", signals: iPhoneSignals, clickToken: "ferry:\(clickID)")))

            let clicks = try await client.execute(uri: "/v1/exports/clicks", method: .get, headers: headers(key: fixture.secret))
            #expect(clicks.status == .ok)
            #expect(clicks.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(clicks.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"clicks-") == true)
            let rows = try CSV.parse(clicks.text)
            #expect(rows.first == ["click_id", "time", "link_id", "platform", "os_version", "device", "referrer", "query", "accept_language", "user_agent",
                                   "traffic"])
            #expect(rows.count == 4, "a bot's click is exported too, as a bot's")
            #expect(rows.contains { $0[0] == clickID && $0[3] == "ios" && $0[2] == link.id && $0[10] == "person" })
            #expect(rows.contains { $0[3] == "bot" && $0[10] == "bot" })
            #expect(rows.contains { $0[6] == "'=cmd|' /C calc'!A0" }, "a formula in a referrer is disarmed")
            #expect(!clicks.text.contains("203.0.113.10"), "addresses are never exported")

            let answers = try CSV.parse(try await client.execute(uri: "/v1/exports/attributions", method: .get, headers: headers(key: fixture.secret)).text)
            #expect(answers.count == 2)
            #expect(answers[1][0] == "IDFV-1" && answers[1][3] == clickID && answers[1][4] == "deterministic")

            let foreign = try CSV.parse(try await client.execute(uri: "/v1/exports/clicks", method: .get, headers: headers(key: fixture.otherSecret)).text)
            #expect(foreign.count == 1, "another app's key gets the header and nothing else")
            let test = try CSV.parse(try await client.execute(uri: "/v1/exports/clicks", method: .get, headers: headers(key: fixture.testSecret)).text)
            #expect(test.count == 1, "a test key sees no live clicks")
            let old = try await client.execute(uri: "/v1/exports/clicks?to=2020-01-31&days=31", method: .get, headers: headers(key: fixture.secret))
            #expect(try CSV.parse(old.text).count == 1)
            let bad = try await client.execute(uri: "/v1/exports/attributions?to=never", method: .get, headers: headers(key: fixture.secret))
            #expect(bad.status == .badRequest && bad.error?.field == "to")
            #expect(try await client.execute(uri: "/v1/exports/clicks", method: .get, headers: headers(key: fixture.publishable)).status == .forbidden)
        }
    }
}
#endif
