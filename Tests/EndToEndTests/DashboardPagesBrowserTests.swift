#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Every dashboard page in headless Chromium, in each state an app goes through (no links yet, one, many; expired,
/// disabled, made in the app; with every optional field and with none), as a key holder and as a person: nothing
/// unrendered on any of them (`nil`, `Optional(`, a template tag, an empty label, a control without a label) and no
/// console error.
@Suite("Every dashboard page in a browser", .takesTurns)
struct DashboardPagesBrowserTests {
    /// What the page shows that it must not: the visible text, the values of fields, and the markup.
    static let findProblems = """
        (() => {
          const problems = [];
          const bad = (text) => /(^|[^A-Za-z])nil([^A-Za-z]|$)/.test(text) || text.includes('Optional(') || text.includes('{{') || text.includes('}}');
          // A value left out of a sentence leaves its brackets behind: "attributed: of ()".
          const blank = document.body.innerText.match(/.{0,40}\\(\\s*\\).{0,20}/);
          if (blank) problems.push('an empty value: ' + blank[0]);
          if (bad(document.body.innerText)) problems.push('text: ' + document.body.innerText.match(/.{0,40}(nil|Optional\\(|\\{\\{|\\}\\}).{0,40}/)[0]);
          for (const field of document.querySelectorAll('input, textarea, select, option')) {
            for (const value of [field.value, field.getAttribute('placeholder') || '', field.getAttribute('title') || '']) {
              if (bad(value)) problems.push('field ' + (field.name || field.id) + ': ' + value);
            }
          }
          for (const label of document.querySelectorAll('label')) {
            if (!label.textContent.trim() && !label.getAttribute('aria-label')) problems.push('an empty label');
          }
          for (const control of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
            const named = (control.labels && control.labels.length && [...control.labels].some(l => l.textContent.trim()))
              || control.getAttribute('aria-label') || control.getAttribute('aria-labelledby');
            if (!named) problems.push('a control without a label: ' + (control.name || control.id || control.type));
          }
          for (const button of document.querySelectorAll('button, a[href]')) {
            const name = (button.textContent || '').trim() || button.getAttribute('aria-label') || (button.querySelector('img') || {}).alt;
            if (!name) problems.push('a ' + button.tagName.toLowerCase() + ' without a name: ' + button.outerHTML.slice(0, 80));
          }
          if (!document.title.trim() || bad(document.title)) problems.push('title: ' + document.title);
          return JSON.stringify(problems);
        })()
        """

    /// The problems on the page open now (none when the page is right), and its console errors.
    static func problems(on page: BrowserPage) async throws -> [String] {
        let found = try await page.evaluate(findProblems) ?? "[]"
        let list = (try? JSONSerialization.jsonObject(with: Data(found.utf8)) as? [String]) ?? [found]
        return list + page.consoleErrors().map { "console: \($0)" }
    }

    /// Whether Tab reaches every control of the page, in order, each showing where the focus is: the ids (or tag and
    /// text) of the controls it never reached.
    static func unreachableByKeyboard(_ page: BrowserPage) async throws -> [String] {
        let count = Int(try await page.evaluate("""
            (() => { window.__focusables = [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea')]
              .filter(e => !e.disabled && e.offsetParent !== null); window.__reached = new Set();
              document.addEventListener('focusin', e => window.__reached.add(e.target), true);
              document.activeElement && document.activeElement.blur();
              // A date field takes a Tab for each of its day, month and year.
              return window.__focusables.length + 2 * window.__focusables.filter(e => e.type === 'date').length; })()
            """) ?? "0") ?? 0
        for _ in 0..<(count + 2) { try await page.pressTab() }
        let missed = try await page.evaluate("""
            JSON.stringify(window.__focusables.filter(e => !window.__reached.has(e))
              .map(e => e.id || (e.tagName.toLowerCase() + ' ' + (e.textContent || e.name || '').trim().slice(0, 30))))
            """) ?? "[]"
        let positive = try await page.evaluate("document.querySelectorAll('[tabindex]:not([tabindex=\"0\"]):not([tabindex=\"-1\"])').length") ?? "0"
        var problems = (try? JSONSerialization.jsonObject(with: Data(missed.utf8)) as? [String]) ?? [missed]
        if positive != "0" { problems.append("\(positive) elements with a positive tabindex") }
        return problems
    }

    /// Whether the page fits a phone's width without scrolling sideways (tables scroll inside their box).
    static let overflowsPhone = "document.documentElement.scrollWidth > window.innerWidth + 1 ? String(document.documentElement.scrollWidth) : ''"

    /// How much of a long page the screenshots show, in CSS pixels from the top (the audit log's is otherwise 5 MB).
    static let shotHeight = 2_400.0

    /// Where the screenshots go: `.build/test-artifacts/dashboard`, and docs/screenshots too with FERRY_UPDATE_SCREENSHOTS=1.
    static var screenshotFolders: [URL] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var folders = [DashboardBrowserTests.artifacts.appendingPathComponent("dashboard")]
        if ProcessInfo.processInfo.environment["FERRY_UPDATE_SCREENSHOTS"] == "1" { folders.append(root.appendingPathComponent("docs/screenshots")) }
        return folders
    }

    @Test(.enabled(if: HeadlessChromium.executable != nil, "needs chromium-headless-shell"), .timeLimit(.minutes(8)))
    func nothingUnrenderedOnAnyPageInAnyState() async throws {
        let server = try await FerryKitEndToEndTests.Server.make()
        defer { server.remove() }
        let admin = FerryAdmin(store: server.store)
        let app = try #require(try await server.store.listApps().first)
        let accounts = Accounts(admin: admin, hasher: PasswordHash(logCost: 10))
        let owner = try await accounts.createUser(email: "owner@example.com", password: "walking passphrase 1", role: .owner, appIDs: [app.id], by: nil)
        _ = try await admin.updateApp(id: app.id) { spec in
            spec.clientLinks = true
            spec.allowedURLPatterns = [#"^https://example\.com/.*$"#]
        }
        let other = try await admin.createApp(.init(name: "Second app", domains: ["second.example.net"]))
        try await accounts.setRole(.editor, of: owner, in: other.id, by: nil)

        try await server.run { base in
            let browser = try await HeadlessChromium.launch(windowWidth: 1280, windowHeight: 1000)
            do {
                // One tab as people see the pages; one where axe-core may run (it needs the CSP bypassed); one phone.
                let page = try await browser.newPage()
                let checker = try await browser.newPage()
                try await checker.bypassContentSecurityPolicy()
                let phone = try await browser.newPage()
                try await phone.setViewport(width: 375, height: 812, mobile: true)
                let checksAccessibility = AxeCore.script != nil
                if !checksAccessibility, HeadlessChromiumTests.onCI { Issue.record("axe-core is missing: run scripts/test-tools.sh") }
                for folder in Self.screenshotFolders { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
                var walked: [String: [String]] = [:]
                func walk(_ state: String, _ paths: [String], shots: [String: String] = [:]) async throws {
                    for path in paths {
                        let url = base.absoluteString + path
                        try await page.goto(url)
                        var found = try await Self.problems(on: page)
                        page.clearConsoleErrors()
                        if let name = shots[path] {
                            for folder in Self.screenshotFolders {
                                try await page.screenshot(to: folder.appendingPathComponent("\(name)-desktop.png").path, maxHeight: Self.shotHeight)
                            }
                        }
                        found += try await Self.unreachableByKeyboard(page).map { "not reached by Tab: \($0)" }
                        if checksAccessibility {
                            try await checker.goto(url)
                            found += try await AxeCore.seriousViolations(on: checker)
                        }
                        try await phone.goto(url)
                        if let wider = try await phone.evaluate(Self.overflowsPhone), !wider.isEmpty { found.append("\(wider) px wide at 375") }
                        phone.clearConsoleErrors()
                        if let name = shots[path] {
                            for folder in Self.screenshotFolders {
                                try await phone.screenshot(to: folder.appendingPathComponent("\(name)-phone.png").path, maxHeight: Self.shotHeight)
                            }
                        }
                        if !found.isEmpty { walked["\(state) \(path)"] = found }
                    }
                }
                let staticPages = ["/dashboard", "/dashboard?q=nothing-matches", "/dashboard?made=app", "/dashboard/links/new", "/dashboard/attribution",
                                   "/dashboard/settings", "/dashboard/webhooks", "/dashboard/keys", "/dashboard/audit", "/dashboard/import"]
                try await walk("signed out", ["/dashboard/sign-in", "/dashboard/invitations/not-a-token"], shots: ["/dashboard/sign-in": "sign-in"])

                // An app without links, signed in with its key.
                try await page.goto(base.appendingPathComponent("dashboard/sign-in").absoluteString)
                try await page.fill("#key", server.secret)
                try await page.clickAndWaitForNavigation("#sign-in")
                try await walk("empty", staticPages)

                // One link with nothing but a destination.
                let bare = try await admin.createLink(CreateLinkRequest(slug: "bare", destination: base.appendingPathComponent("healthz").absoluteString), app: app, environment: .live)
                try await walk("one link", staticPages + ["/dashboard/links/\(bare.id)", "/dashboard/links/\(bare.id)/edit"])

                // Many: one with every optional field, an expired one, a disabled one, one made in the app, clicks and
                // installs, and more than a page of links.
                var full = CreateLinkRequest(slug: "full/spring-26", destination: "https://example.com/full", iosURL: "example://full",
                                             androidURL: "https://example.com/android", params: ["coupon": "SPRING", "ref": "mail"], campaign: "spring",
                                             social: SocialMetadata(title: "Spring sale", description: "Everything half price", imageURL: "https://example.com/card.png"),
                                             expiresAt: Date().addingTimeInterval(86_400 * 30))
                full.utm = UTMParameters(source: "newsletter", medium: "email", campaign: "spring-utm", content: "hero", term: "shoes")
                full.routing = LinkRouting(iosFallbackURL: "https://example.com/ios", ipadFallbackURL: "https://example.com/ipad", ipadBundleID: "com.example.ipad",
                                           appStoreID: "987654321", iosMinimumVersion: "2.4.1", androidFallbackURL: "https://example.com/play",
                                           androidMinimumVersionCode: 42, otherPlatformFallbackURL: "https://example.com/desktop", skipPreviewPage: true)
                let rich = try await admin.createLink(full, app: app, environment: .live)
                var old = CreateLinkRequest(slug: "old", destination: "https://example.com/old")
                old.expiresAt = Date().addingTimeInterval(-3_600)
                let expired = try await admin.createLink(old, app: app, environment: .live)
                var off = CreateLinkRequest(slug: "off", destination: "https://example.com/off", campaign: "winter")
                off.disabled = true
                let disabled = try await admin.createLink(off, app: app, environment: .live)
                for index in 0..<60 {
                    _ = try await admin.createLink(CreateLinkRequest(slug: "bulk-\(index)", destination: "https://example.com/\(index)"), app: app, environment: .live)
                }
                let shared = try await FerryKitEndToEndTests.http("POST", base.appendingPathComponent("v1/links"),
                                                                  headers: ["Authorization": "Bearer \(server.publishable)", "Content-Type": "application/json"],
                                                                  body: #"{"destination": "https://example.com/shared"}"#)
                for _ in 0..<3 {
                    _ = try await FerryKitEndToEndTests.http("GET", base.appendingPathComponent("bare"), headers: ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64)"])
                }
                _ = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: "bare")
                // A webhook with a delivery of each outcome, and one without any.
                let hook = Webhook(id: "wh_walk", appID: app.id, environment: .live, url: "https://hooks.example.com/ferry?team=growth",
                                   secret: "whsec_walk", events: [.linkClicked, .installAttributed], createdAt: Date())
                try await server.store.createWebhook(hook)
                try await server.store.createWebhook(Webhook(id: "wh_quiet", appID: app.id, environment: .live, url: "https://quiet.example.com/in",
                                                             secret: "whsec_quiet", events: [.installAttributed], createdAt: Date()))
                let later = Date().addingTimeInterval(86_400 * 365)
                try await server.store.enqueueDeliveries(["dlv_walk_ok", "dlv_walk_retry", "dlv_walk_gone", "dlv_walk_new"].map { id in
                    WebhookDelivery(id: id, webhookID: hook.id, appID: app.id, event: .linkClicked, payload: "{}", nextAttemptAt: later, createdAt: later)
                })
                try await server.store.recordAttempt(deliveryID: "dlv_walk_ok", status: 204, error: nil, deliveredAt: later, nextAttemptAt: nil, failedAt: nil)
                try await server.store.recordAttempt(deliveryID: "dlv_walk_retry", status: 503, error: "answered 503", deliveredAt: nil,
                                                     nextAttemptAt: later.addingTimeInterval(90), failedAt: nil)
                try await server.store.recordAttempt(deliveryID: "dlv_walk_gone", status: nil, error: String(repeating: "a long error ", count: 30),
                                                     deliveredAt: nil, nextAttemptAt: nil, failedAt: later)
                // An import started as the form sends it (from the tab that may run script), its page while it runs
                // and once it is done, with skipped rows.
                try await checker.goto(base.appendingPathComponent("dashboard/import").absoluteString)
                let rows = (0..<300).map { "https://example.page.link/walk-\($0),https://example.com/\($0)\\r\\n" }.joined()
                let job = try await checker.evaluate("""
                    (async () => { const form = new FormData(document.getElementById('import-form'));
                      form.set('file', new Blob(['Short link,Deep link\\r\\n\(rows)https://example.page.link/bad,javascript:alert(1)\\r\\n'], {type: 'text/csv'}), 'links.csv');
                      form.set('domain', document.querySelector('#import-domain option:nth-child(2)').value);
                      const answer = await fetch('/dashboard/import', {method: 'POST', body: form}); return new URL(answer.url).pathname; })()
                    """) ?? ""
                #expect(job.hasPrefix("/dashboard/import/imp_"), "\(job)")
                try await walk("many links", [job], shots: [job: "import-done"])
                // A new link's preview, as the form's Preview button shows it.
                try await page.goto(base.appendingPathComponent("dashboard/links/new").absoluteString)
                try await page.fill("#destination", "https://example.com/preview")
                try await page.clickAndWaitForNavigation("#preview-link")
                var previewed = try await Self.problems(on: page) + Self.unreachableByKeyboard(page).map { "not reached by Tab: \($0)" }
                if try await page.evaluate("document.getElementById('preview-card') ? 'card' : ''") != "card" { previewed.append("no preview card") }
                if !previewed.isEmpty { Issue.record("the preview of a new link: \(previewed)") }

                var linkPages: [String] = []
                for link in [bare, rich, expired, disabled] {
                    linkPages += ["/dashboard/links/\(link.id)", "/dashboard/links/\(link.id)/edit"]
                }
                try await walk("many links", staticPages + linkPages + ["/dashboard?q=spring", "/dashboard?q=%3Cscript%3E",
                    "/dashboard?status=disabled&campaign=winter&domain=go.example.com&from=2026-01-01&to=2036-01-01", "/dashboard?status=lost&from=2026-13-01"], shots: [
                    "/dashboard": "links", "/dashboard/links/new": "link-new", "/dashboard/links/\(rich.id)": "link",
                    "/dashboard/links/\(rich.id)/edit": "link-edit", "/dashboard/attribution": "attribution", "/dashboard/settings": "settings",
                    "/dashboard/keys": "keys", "/dashboard/audit": "audit", "/dashboard/webhooks": "webhooks", "/dashboard/import": "import",
                ])
                // The second page of the list.
                try await page.goto(base.appendingPathComponent("dashboard").absoluteString)
                if let next = try await page.evaluate("(document.querySelector('a[href*=cursor]') || {}).href || ''"), !next.isEmpty {
                    try await walk("many links", [String(next.dropFirst(base.absoluteString.count))])
                } else {
                    Issue.record("more links than a page, and no link to the next one")
                }
                if shared.0 != 201 { Issue.record("the share link was not made: \(shared.0) \(String(decoding: shared.1, as: UTF8.self))") }

                // A person with two apps: the switcher, the members and account pages.
                try await page.clickAndWaitForNavigation("#sign-out")
                try await page.fill("#email", "owner@example.com")
                try await page.fill("#password", "walking passphrase 1")
                try await page.clickAndWaitForNavigation("#sign-in-with-password")
                try await walk("person", staticPages + ["/dashboard/members", "/dashboard/account", "/dashboard/links/\(rich.id)"],
                               shots: ["/dashboard/members": "members", "/dashboard/account": "account"])

                #expect(walked.isEmpty, "\(walked.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: "; "))" }.joined(separator: "\n"))")
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
    }
}
#endif
