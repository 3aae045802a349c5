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

/// The dashboard's attribution page: the report of the model the app answers with in the session's environment, its
/// calibration chart, and a refit on demand.
@Suite("Attribution report", .takesTurns)
struct AttributionReportTests {
    /// Households that installed 20 minutes to 5 hours after their click, each tied to it by a click token, and
    /// Android installs whose Play Store referrer named no click, observed over the last day.
    static func seed(_ fixture: Fixture, households: Int = 20, organic: Int = 2) async throws {
        let now = Date()
        for n in 0..<households {
            let at = now.addingTimeInterval(-Double(n) * 3_000)
            let delay = 1_200 + Double(n) * 900
            let install = InstallEvidence(addressHash: "home-\(n)", networkHash: "net-\(n)", signals: iPhoneSignals, at: at)
            let click = ClickEvidence(clickID: "clk_\(n)", linkID: "lnk_1", createdAt: at.addingTimeInterval(-delay), addressHash: "home-\(n)",
                                      networkHash: "net-\(n)", osVersion: iPhoneSignals.osVersion, appleDevice: "iphone",
                                      screenWidth: iPhoneSignals.screenWidth, screenHeight: iPhoneSignals.screenHeight, screenScale: iPhoneSignals.screenScale,
                                      timeZone: iPhoneSignals.timeZone, timeZoneOffsetSeconds: iPhoneSignals.timeZoneOffsetSeconds, languages: iPhoneSignals.languages ?? [])
            let observation = LearningObservation(install: install, candidates: CandidateSet(clicks: [click], clicksInWindow: 400, sameAddressClicks: 1,
                                                                                             sameNetworkClicks: 1),
                                                  window: 86_400, label: .click(click)).anonymised()
            try await fixture.store.recordObservation(AttributionObservationRecord(appID: fixture.app.id, environment: .live, observedAt: at, observation: observation))
        }
        var android = iPhoneSignals
        android.platform = "android"
        for n in 0..<organic {
            let install = InstallEvidence(addressHash: "elsewhere-\(n)", networkHash: "far-\(n)", signals: android, at: now.addingTimeInterval(-Double(n) * 600))
            let observation = LearningObservation(install: install, candidates: CandidateSet(clicks: [], clicksInWindow: 400, sameAddressClicks: 0, sameNetworkClicks: 0),
                                                  window: 86_400, label: .organic).anonymised()
            try await fixture.store.recordObservation(AttributionObservationRecord(appID: fixture.app.id, environment: .live, observedAt: install.at,
                                                                                   observation: observation))
        }
    }

    static func page(_ client: some TestClientProtocol, cookie: String) async throws -> TestResponse {
        try await client.execute(uri: "/dashboard/attribution", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
    }

    @Test func thePageShowsTheMonthsClicksInstallsOpensAndConfidences() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let app = try await fixture.admin.updateApp(id: fixture.app.id) { $0.attribution.minConfidence = 0.5 }
        let now = Date()
        // Answers given over the last day to installs 25 minutes to six hours after their clicks: two certain, three
        // probable, one organic; one probable answer 40 days ago is outside the month.
        var serial = 0
        func answer(_ type: MatchType?, _ confidence: Double?, hoursAgo: Double) async throws {
            serial += 1
            try await fixture.store.insertAttribution(AttributionRecord(
                appID: app.id, environment: .live, installID: "ins_\(serial)", clickID: type == nil ? nil : "clk_\(serial)",
                linkID: type == nil ? nil : "lnk_1", matchType: type, confidence: confidence, createdAt: now.addingTimeInterval(-hoursAgo * 3600)))
        }
        try await answer(.deterministic, 1, hoursAgo: 0.42)
        try await answer(.deterministic, 1, hoursAgo: 2)
        try await answer(.probabilistic, 0.55, hoursAgo: 3)
        try await answer(.probabilistic, 0.62, hoursAgo: 4.5)
        try await answer(.probabilistic, 0.91, hoursAgo: 6)
        try await answer(nil, nil, hoursAgo: 1)
        try await answer(.probabilistic, 0.8, hoursAgo: 40 * 24)
        try await fixture.application().test(.router) { client in
            let (cookie, _) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let page = try await Self.page(client, cookie: cookie).text
            for shown in ["<strong>5</strong> installs attributed", "<strong>2</strong> certain <span class=\"muted\">(40.0%)</span>", "<strong>3</strong> probable",
                          "<strong>1</strong> organic <span class=\"muted\">(first launches without a link; 83.3% of first launches",
                          "<td>0.5–0.6</td><td class=\"num\">1</td><td class=\"num\">33.3%</td>", "<td>0.6–0.7</td><td class=\"num\">1</td>",
                          "<td>0.9–1.0</td><td class=\"num\">1</td>", "<td>0.8–0.9</td><td class=\"num\">0</td>", "least 0.50",
                          "aria-label=\"Clicks, installs and opens per day\"", "aria-label=\"Probabilistic matches by the confidence stated\""] {
                #expect(page.contains(shown), "\(shown)")
            }
            // The test environment has none of it.
            let (testCookie, _) = try #require(try await DashboardTests.signIn(client, key: fixture.testSecret))
            let test = try await Self.page(client, cookie: testCookie).text
            #expect(test.contains("<strong>0</strong> installs attributed") && test.contains("No probable matches in these 30 days."))
            #expect(test.contains("<strong>0</strong> clicks") && test.contains("(— of clicks)"))
        }
    }

    @Test func theDashboardShowsTheReportAndRefitsOnDemand() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let app = try await fixture.admin.updateApp(id: fixture.app.id) { $0.attribution.model = .learned }
        try await Self.seed(fixture)
        try await fixture.application().testLive { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let before = try await Self.page(client, cookie: cookie)
            #expect(before.status == .ok)
            #expect(before.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
            #expect(before.text.contains("<strong>learned</strong> model; no version was fitted yet"))
            #expect(before.text.contains(#"<a href="/dashboard/attribution">Attribution</a>"#))
            // Every household is labelled; the prior finds each of them, alone on its address, at the default.
            #expect(before.text.contains(#"<td>all</td><td class="num">20</td><td class="num">20</td><td class="num">20</td><td class="num">100.0%</td><td class="num">100.0%</td>"#),
                    "\(before.text)")
            #expect(before.text.contains(#"<td>household address</td><td class="num">20</td>"#))
            #expect(before.text.contains("attributed to a click: 0 of 2 (0.0%)"))
            #expect(before.text.contains(#"<svg xmlns="http://www.w3.org/2000/svg" class="chart""#) && !before.text.contains("<script"))
            #expect(!before.text.contains(#"id="parameters""#), "no fitted model, no parameters")

            // A refit needs the session's token, like every form.
            #expect(try await DashboardTests.post(client, "/dashboard/attribution/refit", cookie: cookie, body: "csrf=wrong").status == .forbidden)
            #expect(try await fixture.store.activeModel(appID: app.id, environment: .live) == nil)
            let refit = try await DashboardTests.post(client, "/dashboard/attribution/refit", cookie: cookie, body: "csrf=\(csrf)")
            #expect(refit.status == .ok && refit.text.contains("Version 1 fitted on 22 observations."), "\(refit.text)")
            #expect(try await fixture.store.activeModel(appID: app.id, environment: .live)?.version.version == 1)
            let after = try await Self.page(client, cookie: cookie)
            #expect(after.text.contains("<strong>learned</strong> model: version 1, fitted ") && after.text.contains(#"id="parameters""#))
            #expect(after.text.contains(#"id="versions""#) && after.text.contains("<td>1</td>"))
            // Once a minute at most.
            let again = try await DashboardTests.post(client, "/dashboard/attribution/refit", cookie: cookie, body: "csrf=\(csrf)")
            #expect(again.status == .tooManyRequests && again.text.contains("less than a minute ago"))
            #expect(try await fixture.store.modelVersions(appID: app.id, environment: .live, limit: 10).count == 1)

            // A test key's session sees the test environment, which has observed nothing, and has nothing to refit.
            let (testCookie, testCSRF) = try #require(try await DashboardTests.signIn(client, key: fixture.testSecret))
            let test = try await Self.page(client, cookie: testCookie)
            #expect(test.text.contains("no version was fitted yet") && test.text.contains(#"<td>all</td><td class="num">0</td>"#))
            let empty = try await DashboardTests.post(client, "/dashboard/attribution/refit", cookie: testCookie, body: "csrf=\(testCSRF)")
            #expect(empty.status == .conflict && empty.text.contains("Nothing to fit yet"))
            // Another app's session sees none of this app's observations.
            let (otherCookie, _) = try #require(try await DashboardTests.signIn(client, key: fixture.otherSecret))
            let other = try await Self.page(client, cookie: otherCookie)
            #expect(other.text.contains("<strong>fixed</strong> model") && other.text.contains(#"<td>all</td><td class="num">0</td>"#))
        }
    }

    @Test func theDashboardKeepsAReportForAMinuteAndForgetsItAfterARefit() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await Self.seed(fixture, households: 3, organic: 0)
        let reports = AttributionReports(reporter: AttributionReporter(store: fixture.store))
        let now = Date()
        #expect(try await reports.report(app: fixture.app, environment: .live, now: now).observations.labelled == 3)
        try await Self.seed(fixture, households: 5, organic: 0)
        // Within the minute the same report; after it, or once forgotten, or with other settings, a new one.
        #expect(try await reports.report(app: fixture.app, environment: .live, now: now.addingTimeInterval(59)).observations.labelled == 3)
        #expect(try await reports.report(app: fixture.app, environment: .live, now: now.addingTimeInterval(61)).observations.labelled == 8)
        try await Self.seed(fixture, households: 1, organic: 0)
        var stricter = fixture.app
        stricter.attribution.minConfidence = 0.9
        let other = try await reports.report(app: stricter, environment: .live, now: now.addingTimeInterval(62))
        #expect(other.observations.labelled == 9 && other.evaluation.minConfidence == 0.9)
        #expect(try await reports.report(app: fixture.app, environment: .live, now: now.addingTimeInterval(62)).observations.labelled == 8)
        reports.forget(appID: fixture.app.id, environment: .live)
        #expect(try await reports.report(app: fixture.app, environment: .live, now: now.addingTimeInterval(62)).observations.labelled == 9)
        // Each environment has its own.
        #expect(try await reports.report(app: fixture.app, environment: .test, now: now.addingTimeInterval(62)).observations.labelled == 0)
    }

    @Test func anAppOnTheFixedModelIsJudgedOnTheFixedModel() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await Self.seed(fixture, households: 5, organic: 0)
        let report = try await AttributionReporter(store: fixture.store).report(app: fixture.app, environment: .live, now: Date())
        let matcher = AttributionMatcher()
        let observations = try await fixture.store.observations(appID: fixture.app.id, environment: .live, since: .distantPast, limit: 100).map(\.observation)
        #expect(report.model == .fixed && report.active == nil && report.parameters.isEmpty)
        #expect(report.evaluation == AttributionEvaluation(matcher: matcher, observations: observations, minConfidence: nil))
        #expect(report.observations.labelled == 5 && report.observations.total == 5)
        #expect(report.text.contains("(the app answers with the fixed model until --attribution-model learned"))
    }
}
#endif
