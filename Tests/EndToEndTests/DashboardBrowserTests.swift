#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The dashboard in a real browser: headless Chromium signs in, creates a link, and reads its statistics page.
@Suite("The dashboard in a browser", .takesTurns)
struct DashboardBrowserTests {
    /// Where screenshots are kept: `FERRY_TEST_ARTIFACTS`, or `.build/test-artifacts` in the repository.
    static var artifacts: URL {
        if let path = ProcessInfo.processInfo.environment["FERRY_TEST_ARTIFACTS"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/test-artifacts")
    }

    @Test(.enabled(if: HeadlessChromium.executable != nil, "needs chromium-headless-shell"), .timeLimit(.minutes(3)))
    func signInCreateALinkAndReadItsStatistics() async throws {
        let server = try await FerryKitEndToEndTests.Server.make()
        defer { server.remove() }
        let publishable = server.publishable, secret = server.secret
        try await server.run { base in
            let browser = try await HeadlessChromium.launch(windowWidth: 1280, windowHeight: 1000)
            do {
                let page = try await browser.newPage()
                try await page.goto(base.appendingPathComponent("dashboard").absoluteString)
                #expect(try await page.url().hasSuffix("/dashboard/sign-in"), "without a session, the dashboard asks to sign in")

                // A wrong key, then a publishable key, then the secret key.
                for (key, message) in [("fs_live_" + String(repeating: "x", count: 32), "not a valid secret key"), (publishable, "publishable key")] {
                    try await page.fill("#key", key)
                    try await page.clickAndWaitForNavigation("#sign-in")
                    #expect(try await page.text("#error").contains(message))
                }
                try await page.fill("#key", secret)
                try await page.clickAndWaitForNavigation("#sign-in")
                #expect(try await page.url().hasSuffix("/dashboard"))
                let session = try #require(try await page.cookies().first { $0.name == "ferry_session" })
                #expect(session.httpOnly && session.sameSite == "Strict", "the session cookie is HttpOnly and SameSite=Strict")

                // Create a link whose destination is on this server (the browser reaches nothing else), with a
                // campaign that tries to run a script.
                try await page.clickAndWaitForNavigation("#new-link")
                try await page.fill("#slug", "spring")
                try await page.fill("#destination", base.appendingPathComponent("healthz").absoluteString)
                try await page.fill("#campaign", "<script>alert('x')</script>")
                try await page.clickAndWaitForNavigation("#save")
                #expect(try await page.url().contains("/dashboard/links/lnk_"))
                #expect(try await page.text("#short-url").hasSuffix("127.0.0.1/spring"))

                // Three clicks from a desktop and one from an iPhone, then the statistics page again.
                for _ in 0..<3 {
                    let (status, _) = try await FerryKitEndToEndTests.http("GET", base.appendingPathComponent("spring"), headers: ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64)"])
                    #expect(status == 200)
                }
                _ = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: "spring")
                // Slack's preview and a browser's prefetch: answered, and shown apart.
                _ = try await FerryKitEndToEndTests.http("GET", base.appendingPathComponent("spring"),
                                                         headers: ["User-Agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"])
                _ = try await FerryKitEndToEndTests.http("GET", base.appendingPathComponent("spring"),
                                                         headers: ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64)", "Sec-Purpose": "prefetch"])
                let linkID = try #require(try await page.url().components(separatedBy: "/").last)
                var clicks = 0
                for _ in 0..<100 where clicks < 6 {
                    clicks = try await server.store.clickCount(linkID: linkID)
                    if clicks < 6 { try await Task.sleep(for: .milliseconds(50)) }
                }
                try await page.goto(try await page.url())
                #expect(try await page.text("#total-clicks") == "4")
                #expect(try await page.text("#total-filtered") == "2")
                #expect(try await page.evaluate("document.querySelectorAll('svg.chart polyline').length") == "2", "the chart draws clicks and installs")
                #expect(try await page.evaluate("document.getElementById('qr').naturalWidth > 0 ? 'yes' : 'no'") == "yes", "the QR code loads")
                let breakdowns = try await page.text(".breakdowns")
                #expect(breakdowns.contains("desktop") && breakdowns.contains("ios"))
                #expect(breakdowns.contains("Bots and link previews") && breakdowns.contains("Browser prefetches"))
                #expect(try await page.text(".link-head").contains("<script>alert('x')</script>"), "the campaign is shown as text")

                try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
                let shot = Self.artifacts.appendingPathComponent("dashboard-link.png")
                try await page.screenshot(to: shot.path)
                #expect((try Data(contentsOf: shot)).count > 10_000)
                print("dashboard screenshot: \(shot.path)")

                // Disable it from the page: the short URL answers its "no longer available" page at once.
                try await page.clickAndWaitForNavigation("#toggle")
                let (gone, body) = try await FerryKitEndToEndTests.http("GET", base.appendingPathComponent("spring"), headers: ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64)"])
                #expect(gone == 404 && String(decoding: body, as: UTF8.self).contains("no longer available"))

                // The attribution page: its chart is drawn inline under the page's CSP, and a refit with nothing
                // observed says so.
                try await page.goto(base.appendingPathComponent("dashboard/attribution").absoluteString)
                #expect(try await page.text("#model").contains("fixed"))
                #expect(try await page.evaluate("document.querySelectorAll('#calibration-chart svg line').length > 10 ? 'yes' : 'no'") == "yes")
                try await page.clickAndWaitForNavigation("#refit")
                #expect(try await page.text("#error").contains("Nothing to fit yet"))
                let attribution = Self.artifacts.appendingPathComponent("dashboard-attribution.png")
                try await page.screenshot(to: attribution.path)
                print("attribution screenshot: \(attribution.path)")

                #expect(page.consoleErrors().isEmpty, "no script errors and no CSP violations: \(page.consoleErrors())")
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
    }
}
#endif
