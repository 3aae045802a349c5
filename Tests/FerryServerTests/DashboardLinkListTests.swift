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

/// The links list's filters (text, state, campaign, domain, days made) and its bulk changes, through the pages and
/// forms with a session, against the store.
@Suite("Dashboard: the links list", .takesTurns)
struct DashboardLinkListTests {
    /// Midnight UTC of a November 2026 day.
    static func november(_ day: Int, hour: Double = 0) -> Date {
        Date(timeIntervalSince1970: 1_793_491_200 + Double(day - 1) * 86_400 + hour * 3_600)  // 2026-11-01T00:00:00Z
    }

    /// The short URLs a list page shows, in order.
    static func shown(_ html: String) -> [String] {
        html.matches(of: /<td><a href="\/dashboard\/links\/[^"]+">https?:\/\/([^<]+)<\/a>/).map { String($0.output.1) }
    }

    @Test func theFiltersNarrowTheListAndRefuseWhatIsNotOne() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let admin = fixture.admin, app = fixture.app
        func make(_ slug: String, campaign: String? = nil, utm: String? = nil, domain: String? = nil, day: Int, hour: Double = 12,
                  disabled: Bool = false, expired: Bool = false) async throws {
            var request = CreateLinkRequest(domain: domain, slug: slug, destination: "https://example.com/\(slug)", campaign: campaign)
            if let utm { request.utm = UTMParameters(campaign: utm) }
            request.disabled = disabled ? true : nil
            if expired { request.expiresAt = Date().addingTimeInterval(-60) }
            _ = try await admin.createLink(request, app: app, environment: .live, createdAt: Self.november(day, hour: hour))
        }
        try await make("spring-mail", campaign: "spring", day: 2)
        try await make("spring-late", utm: "spring", day: 3, hour: 23.5)
        try await make("spring-off", campaign: "spring", day: 4, disabled: true)
        try await make("winter", campaign: "winter", domain: "links.example.com", day: 5)
        try await make("gone", day: 6, expired: true)
        try await fixture.application().test(.router) { client in
            let (cookie, _) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            func list(_ query: String) async throws -> TestResponse {
                try await client.execute(uri: "/dashboard?" + query, method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            }
            func slugs(_ query: String) async throws -> [String] {
                let page = try await list(query)
                #expect(page.status == .ok, "\(query): \(page.status) \(page.text.prefix(200))")
                return Self.shown(page.text).map { String($0.split(separator: "/").last ?? "") }
            }
            #expect(try await slugs("") == ["gone", "winter", "spring-off", "spring-late", "spring-mail"])
            #expect(try await slugs("status=disabled") == ["spring-off"])
            #expect(try await slugs("status=expired") == ["gone"])
            #expect(try await slugs("status=active") == ["winter", "spring-late", "spring-mail"])
            // A campaign is the link's own, else its UTM campaign, as the list shows it; the text is searched too.
            #expect(try await slugs("campaign=spring") == ["spring-off", "spring-late", "spring-mail"])
            #expect(try await slugs("campaign=spring&status=active&q=late") == ["spring-late"])
            #expect(try await slugs("domain=links.example.com") == ["winter"])
            #expect(try await slugs("domain=nowhere.example.com").isEmpty)
            // Days are whole and both ends are included: a link made at 23:30 on the 3rd is made "to" the 3rd.
            #expect(try await slugs("from=2026-11-03&to=2026-11-03") == ["spring-late"])
            #expect(try await slugs("from=2026-11-04") == ["gone", "winter", "spring-off"])
            #expect(try await slugs("to=2026-11-02") == ["spring-mail"])
            #expect(try await slugs("from=2026-11-05&to=2026-11-04").isEmpty)
            // Empty fields (a form sent as it is) filter nothing; the form shows what was chosen.
            #expect(try await slugs("q=&status=&campaign=&domain=&from=&to=").count == 5)
            let chosen = try await list("status=disabled&domain=links.example.com&from=2026-11-01&campaign=%3Cb%3E")
            #expect(chosen.text.contains(#"<option value="disabled" selected>"#) && chosen.text.contains(#"<option value="links.example.com" selected>"#))
            #expect(chosen.text.contains(#"name="from" id="from" value="2026-11-01""#) && chosen.text.contains("value=\"&lt;b&gt;\""))
            #expect(chosen.text.contains("No links match these filters.") && chosen.text.contains(#"id="clear-filters""#))

            // What is not a filter is refused by name, and the form keeps it to be corrected.
            for (query, words) in [("status=lost", "status must be active, expired or disabled"), ("from=2026-13-01", "Made from must be a day"),
                                   ("to=yesterday", "Made to must be a day"), ("to=2026-02-30", "Made to must be a day"),
                                   ("q=" + String(repeating: "a", count: 201), "q"), ("campaign=%00", "campaign")] {
                let refused = try await list(query)
                #expect(refused.status == .badRequest, "\(query)")
                #expect(refused.text.contains(words) && Self.shown(refused.text).isEmpty, "\(query): \(refused.text.prefix(400))")
            }
            #expect(try await list("to=yesterday").text.contains(#"name="to" id="to" value="yesterday""#))
        }
    }

    @Test func theNextPageKeepsTheFilters() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        for index in 0..<55 {
            _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "mail-\(index)", destination: "https://example.com/\(index)", campaign: "mail"),
                                                   app: fixture.app, environment: .live)
        }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "other", destination: "https://example.com/o"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let (cookie, _) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            func get(_ uri: String) async throws -> String {
                try await client.execute(uri: uri, method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")])).text
            }
            let first = try await get("/dashboard?campaign=mail&q=mail-")
            #expect(Self.shown(first).count == 50)
            let next = try #require(first.firstMatch(of: /href="(\/dashboard\?cursor=[^"]+)" id="older-links"/)?.output.1)
            let decoded = String(next).replacingOccurrences(of: "&amp;", with: "&")
            #expect(decoded.contains("&q=mail-") && decoded.contains("&campaign=mail"), "\(decoded)")
            let second = Self.shown(try await get(decoded))
            #expect(second.count == 5 && second.allSatisfy { $0.contains("/mail-") }, "\(second)")
        }
    }

    @Test func anEditorDisablesAndEnablesInBulkWithEachChangeAudited() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let admin = fixture.admin, app = fixture.app
        var links: [Link] = []
        for (slug, campaign) in [("a", "spring"), ("b", "spring"), ("c", "spring"), ("d", "winter")] {
            links.append(try await admin.createLink(CreateLinkRequest(slug: slug, destination: "https://example.com/\(slug)", campaign: campaign),
                                                    app: app, environment: .live))
        }
        let made = links
        let stranger = try await admin.createLink(CreateLinkRequest(slug: "theirs", destination: "https://example.com/t"), app: fixture.otherApp, environment: .live)
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            func disabled() async throws -> [String] {
                try await fixture.store.listLinks(appID: app.id, environment: .live, filter: LinkFilter(status: .disabled), limit: 10, after: nil).links
                    .map(\.slug).sorted()
            }
            // The ticked links, and only those of the app: another app's id is passed over.
            let ticked = try await DashboardTests.post(client, "/dashboard/links/bulk", cookie: cookie,
                                                       body: "csrf=\(csrf)&change=disable&id=\(made[0].id)&id=\(made[3].id)&id=\(stranger.id)&campaign=spring")
            #expect(ticked.status == .seeOther && ticked.headers[.location] == "/dashboard?disabled=2&campaign=spring")
            #expect(try await disabled() == ["a", "d"])
            #expect(try await fixture.store.link(id: stranger.id, appID: fixture.otherApp.id)?.disabled == false)
            let notice = try await client.execute(uri: "/dashboard?disabled=2&campaign=spring", method: .get,
                                                  headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(notice.text.contains("2 links were disabled."))

            // Every active link the filters select; without a filter nothing is offered.
            let matching = try await DashboardTests.post(client, "/dashboard/links/bulk", cookie: cookie, body: "csrf=\(csrf)&change=disable-matching&campaign=spring")
            #expect(matching.headers[.location] == "/dashboard?disabled=2&campaign=spring")
            #expect(try await disabled() == ["a", "b", "c", "d"])
            let everything = try await DashboardTests.post(client, "/dashboard/links/bulk", cookie: cookie, body: "csrf=\(csrf)&change=disable-matching&q=")
            #expect(everything.status == .badRequest && everything.text.contains("Choose a filter first"))
            let badFilter = try await DashboardTests.post(client, "/dashboard/links/bulk", cookie: cookie, body: "csrf=\(csrf)&change=disable-matching&status=gone")
            #expect(badFilter.status == .badRequest && badFilter.text.contains("status must be"))

            let enabled = try await DashboardTests.post(client, "/dashboard/links/bulk", cookie: cookie,
                                                        body: "csrf=\(csrf)&change=enable&id=\(made[1].id)&id=\(made[2].id)&id=\(made[1].id)")
            #expect(enabled.headers[.location] == "/dashboard?enabled=2")
            #expect(try await disabled() == ["a", "d"])

            // Refused: nothing ticked, an unknown change, a form without the session's token.
            let none = try await DashboardTests.post(client, "/dashboard/links/bulk", cookie: cookie, body: "csrf=\(csrf)&change=disable")
            #expect(none.status == .badRequest && none.text.contains("Tick the links to disable first."))
            let unknown = try await DashboardTests.post(client, "/dashboard/links/bulk", cookie: cookie, body: "csrf=\(csrf)&change=delete&id=\(made[0].id)")
            #expect(unknown.status == .badRequest && unknown.text.contains("change must be disable, enable or disable-matching"))
            let forged = try await DashboardTests.post(client, "/dashboard/links/bulk", cookie: cookie, body: "csrf=forged&change=enable&id=\(made[0].id)")
            #expect(forged.status == .forbidden)
            #expect(try await disabled() == ["a", "d"])
        }
        // One audit event per link changed, each saying what changed.
        let events = try await fixture.store.auditEvents(AuditQuery(appID: app.id, objectType: "link")).filter { $0.action == "updated" }
        #expect(events.count == 6)
        #expect(events.allSatisfy { $0.changes["disabled"] != nil })
    }
}
#endif
