#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// A team in a real browser: each role signs in with its password and finds what it may do and nothing else; the owner
/// invites someone, who joins through the link.
@Suite("Team access in a browser", .takesTurns)
struct TeamAccessBrowserTests {
    @Test(.enabled(if: HeadlessChromium.executable != nil, "needs chromium-headless-shell"), .timeLimit(.minutes(4)))
    func eachRoleSeesWhatItMayDoAndAnInviteeJoins() async throws {
        let server = try await FerryKitEndToEndTests.Server.make()
        defer { server.remove() }
        let accounts = Accounts(admin: FerryAdmin(store: server.store), hasher: PasswordHash(logCost: 10))
        let appID = try #require(try await server.store.listApps().first?.id)
        for (index, role) in MemberRole.allCases.enumerated() {
            _ = try await accounts.createUser(email: "\(role.rawValue)@example.com", password: "browser passphrase \(index)", role: role,
                                              appIDs: [appID], by: nil)
        }
        try await server.run { base in
            let browser = try await HeadlessChromium.launch(windowWidth: 1280, windowHeight: 1000)
            do {
                let page = try await browser.newPage()
                func exists(_ id: String) async throws -> Bool {
                    try await page.evaluate("document.getElementById('\(id)') ? 'yes' : 'no'") == "yes"
                }
                func open(_ path: String) async throws { try await page.goto(base.appendingPathComponent(path).absoluteString) }
                for (index, role) in MemberRole.allCases.enumerated() {
                    try await open("dashboard")
                    #expect(try await page.url().hasSuffix("/dashboard/sign-in"))
                    try await page.fill("#email", "\(role.rawValue)@example.com")
                    try await page.fill("#password", "browser passphrase \(index)")
                    try await page.clickAndWaitForNavigation("#sign-in-with-password")
                    #expect(try await page.url().hasSuffix("/dashboard"), "\(role) signed in")
                    #expect(try await page.text("#role") == role.rawValue)
                    let nav = try await page.text("nav")
                    #expect(nav.contains("Settings") == (role >= .admin) && nav.contains("Members") == (role == .owner), "\(role): \(nav)")

                    try await open("dashboard/links/new")
                    #expect(try await exists("not-allowed") == (role < .editor), "\(role) and the link form")
                    if role >= .editor {
                        try await page.fill("#slug", "by-\(role.rawValue)")
                        try await page.fill("#destination", base.appendingPathComponent("healthz").absoluteString)
                        try await page.clickAndWaitForNavigation("#save")
                        #expect(try await page.url().contains("/dashboard/links/lnk_"), "\(role) made a link")
                    }
                    try await open("dashboard/settings")
                    #expect(try await exists("not-allowed") == (role < .admin), "\(role) and the settings")
                    try await open("dashboard/audit")
                    #expect(try await exists("not-allowed") == (role < .admin), "\(role) and the audit log")
                    if role >= .admin { #expect(try await page.text("#audit").contains("editor@example.com"), "the editor's link is in the log") }
                    try await open("dashboard/members")
                    #expect(try await exists("invite") == (role == .owner), "\(role) and the members")

                    if role == .owner {
                        try await page.fill("input[name=email]", "cleo@example.com")
                        _ = try await page.evaluate("document.querySelector('#invite select[name=role]').value = 'editor'")
                        try await page.clickAndWaitForNavigation("#invite button")
                        let notice = try await page.text("#invite-link")
                        let link = try #require(notice.firstMatch(of: /(http:\/\/127\.0\.0\.1:[0-9]+\/dashboard\/invitations\/[A-Za-z0-9]+)/)?.output.1)
                        try FileManager.default.createDirectory(at: DashboardBrowserTests.artifacts, withIntermediateDirectories: true)
                        try await page.screenshot(to: DashboardBrowserTests.artifacts.appendingPathComponent("dashboard-members.png").path)
                        try await page.clickAndWaitForNavigation("#sign-out")

                        // The invitee opens the link, chooses a password and is in, as an editor.
                        try await page.goto(String(link))
                        #expect(try await page.text("main").contains("cleo@example.com"))
                        try await page.fill("#password", "her chosen passphrase 7")
                        try await page.clickAndWaitForNavigation("#join")
                        #expect(try await page.text("#role") == "editor")
                        try await page.goto(String(link))
                        #expect(try await exists("invitation-gone"), "the link works once")
                        try await open("dashboard/account")
                        #expect(try await page.text("#account-email") == "cleo@example.com")
                        #expect(try await page.text("#sessions").contains("this one"))
                    }
                    try await open("dashboard")
                    try await page.clickAndWaitForNavigation("#sign-out")
                    #expect(try await page.url().hasSuffix("/dashboard/sign-in"))
                }
                #expect(page.consoleErrors().isEmpty, "no script errors and no CSP violations: \(page.consoleErrors())")
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
        #expect(try await server.store.link(domain: "127.0.0.1", slug: "by-viewer") == nil)
        #expect(try await server.store.link(domain: "127.0.0.1", slug: "by-editor") != nil)
    }
}
#endif
