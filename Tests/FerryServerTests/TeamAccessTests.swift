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

/// The dashboard for a team: people sign in with a password, each page and action checks their role on the server
/// (a forged POST included), owners invite with single-use links, people see and end their own sessions, and switch
/// between their apps.
@Suite("Team access in the dashboard", .takesTurns)
struct TeamAccessTests {
    static func accounts(_ fixture: Fixture) -> Accounts {
        Accounts(admin: fixture.admin, hasher: PasswordHash(logCost: 10))
    }

    /// Signs a person in through the form; the session cookie's value and a CSRF token of the session, or nil with the
    /// page that refused.
    static func signIn(_ client: some TestClientProtocol, email: String, password: String,
                       from address: String? = nil) async throws -> (session: (cookie: String, csrf: String)?, refusal: TestResponse) {
        let form = try await client.execute(uri: "/dashboard/sign-in", method: .get, headers: headers())
        let nonce = try #require(form.headers[values: .setCookie].first { $0.hasPrefix("ferry_signin=") }?.dropFirst(13).prefix { $0 != ";" })
        let token = try #require(DashboardTests.field("csrf", in: form.text))
        var extra: [(HTTPField.Name, String)] = [(.contentType, "application/x-www-form-urlencoded"), (.cookie, "ferry_signin=\(nonce)"),
                                                  (HTTPField.Name("Origin")!, DashboardTests.origin)]
        if let address { extra.append((.forwardedFor, address)) }
        let response = try await client.execute(
            uri: "/dashboard/sign-in", method: .post, headers: headers(extra: extra),
            body: ByteBuffer(string: "csrf=\(token)&email=\(QueryString.encode(email))&password=\(QueryString.encode(password))"))
        guard response.status == .seeOther, let cookie = response.headers[values: .setCookie].first(where: { $0.hasPrefix("ferry_session=") }) else {
            return (nil, response)
        }
        let value = String(cookie.dropFirst(14).prefix { $0 != ";" })
        let page = try await client.execute(uri: "/dashboard/account", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(value)")]))
        return ((value, try #require(DashboardTests.field("csrf", in: page.text))), response)
    }

    static func get(_ client: some TestClientProtocol, _ uri: String, cookie: String, more: String = "") async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)" + more)]))
    }

    @Test func everyPageAndActionChecksTheRoleOnTheServer() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let accounts = Self.accounts(fixture)
        for role in MemberRole.allCases {
            _ = try await accounts.createUser(email: "\(role.rawValue)@example.com", password: "passphrase of level \(role.hashValue == 0 ? 0 : MemberRole.allCases.firstIndex(of: role)!)", role: role,
                                              appIDs: [fixture.app.id], by: .commandLine(environment: ["USER": "ops"]))
        }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/p"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            // What each role gets, page by page and form by form (the forms with a valid CSRF token: forged as far as a
            // viewer can forge them).
            let pages: [(String, MemberRole)] = [
                ("/dashboard", .viewer), ("/dashboard/links/\(link.id)", .viewer), ("/dashboard/attribution", .viewer), ("/dashboard/account", .viewer),
                ("/dashboard/links/new", .editor), ("/dashboard/import", .editor), ("/dashboard/links/\(link.id)/edit", .editor),
                ("/dashboard/settings", .admin), ("/dashboard/webhooks", .admin), ("/dashboard/keys", .admin), ("/dashboard/audit", .admin), ("/dashboard/audit.csv", .admin), ("/dashboard/members", .owner),
            ]
            let forms: [(String, String, MemberRole)] = [
                ("/dashboard/links", "slug=made-by-ROLE&destination=https%3A%2F%2Fexample.com%2Fr", .editor),
                ("/dashboard/links/\(link.id)/disable", "", .editor),
                ("/dashboard/links/bulk", "change=enable&id=\(link.id)", .editor),
                ("/dashboard/settings", "name=Renamed+by+ROLE&attributionWindow=24", .admin),
                ("/dashboard/webhooks", "url=https%3A%2F%2Fhooks.example.com%2FROLE&link.clicked=on", .admin),
                ("/dashboard/members/invite", "email=ROLE-invitee%40example.com&role=viewer", .owner),
                ("/dashboard/keys", "kind=secret&environment=live&scope-stats%3Aread=on", .admin),
            ]
            for role in MemberRole.allCases {
                let (session, refusal) = try await Self.signIn(client, email: "\(role.rawValue)@example.com", password: "passphrase of level \(role.hashValue == 0 ? 0 : MemberRole.allCases.firstIndex(of: role)!)")
                let (cookie, csrf) = try #require(session, "\(role): \(refusal.status) \(refusal.text.prefix(200))")
                for (uri, least) in pages {
                    let page = try await Self.get(client, uri, cookie: cookie)
                    if role >= least {
                        #expect(page.status == .ok, "\(role) \(uri): \(page.status)")
                    } else {
                        #expect(page.status == .forbidden, "\(role) \(uri): \(page.status)")
                        #expect(page.text.contains("Your role in this app is <strong>\(role.rawValue)</strong>"), "\(role) \(uri)")
                    }
                }
                for (uri, body, least) in forms {
                    let posted = try await DashboardTests.post(client, uri, cookie: cookie, body: "csrf=\(csrf)&" + body.replacingOccurrences(of: "ROLE", with: role.rawValue))
                    if role >= least {
                        #expect(posted.status.code < 400, "\(role) \(uri): \(posted.status) \(posted.text.prefix(300))")
                    } else {
                        #expect(posted.status == .forbidden, "\(role) \(uri): \(posted.status)")
                    }
                }
                // The navigation offers what the role may open.
                let home = try await Self.get(client, "/dashboard", cookie: cookie)
                #expect(home.text.contains("href=\"/dashboard/settings\"") == (role >= .admin), "\(role)")
                #expect(home.text.contains("href=\"/dashboard/members\"") == (role == .owner), "\(role)")
                #expect(home.text.contains("id=\"role\">\(role.rawValue)<"), "\(role)")
            }
        }
        // Only what the roles allowed was stored.
        #expect(try await fixture.store.link(domain: "go.example.com", slug: "made-by-viewer") == nil)
        #expect(try await fixture.store.link(domain: "go.example.com", slug: "made-by-editor") != nil)
        #expect(try await fixture.store.app(id: fixture.app.id)?.name == "Renamed by owner")
        #expect(try await fixture.store.webhooks(appID: fixture.app.id, environment: .live).map(\.url).sorted()
                == ["https://hooks.example.com/admin", "https://hooks.example.com/owner"])
        let invited = try await fixture.store.pendingInvitations(appID: fixture.app.id, now: Date()).map(\.email)
        #expect(invited == ["owner-invitee@example.com"])
        let people = try await fixture.store.auditEvents(AuditQuery(appID: fixture.app.id, objectType: "link"))
        #expect(people.contains { $0.actor.kind == .user && $0.actor.label == "editor@example.com" && $0.action == "created" })
    }

    @Test func anOwnerInvitesWithASingleUseLinkAndTheLastOwnerStays() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let owner = try await Self.accounts(fixture).createUser(email: "owner@example.com", password: "the boss passphrase 1", role: .owner,
                                                                appIDs: [fixture.app.id], by: nil)
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await Self.signIn(client, email: "owner@example.com", password: "the boss passphrase 1").session)
            let invited = try await DashboardTests.post(client, "/dashboard/members/invite", cookie: cookie, body: "csrf=\(csrf)&email=Cleo%40example.com&role=editor")
            #expect(invited.status == .ok)
            let link = try #require(invited.text.firstMatch(of: /(https:\/\/go\.example\.com\/dashboard\/invitations\/[A-Za-z0-9]+)/)?.output.1)
            let path = String(link.dropFirst("https://go.example.com".count))
            let page = try await client.execute(uri: path, method: .get, headers: headers())
            #expect(page.status == .ok && page.text.contains("cleo@example.com") && page.text.contains("editor"))
            let nonce = try #require(page.headers[values: .setCookie].first { $0.hasPrefix("ferry_signin=") }?.dropFirst(13).prefix { $0 != ";" })
            let token = try #require(DashboardTests.field("csrf", in: page.text))
            func join(_ password: String) async throws -> TestResponse {
                try await client.execute(uri: path, method: .post, headers: headers(extra: [
                    (.contentType, "application/x-www-form-urlencoded"), (.cookie, "ferry_signin=\(nonce)"), (HTTPField.Name("Origin")!, DashboardTests.origin),
                ]), body: ByteBuffer(string: "csrf=\(token)&password=\(QueryString.encode(password))"))
            }
            let weak = try await join("password1234")
            #expect(weak.status == .badRequest && weak.text.contains("commonest passwords"))
            let joined = try await join("she edits the links daily")
            #expect(joined.status == .seeOther)
            let session = try #require(joined.headers[values: .setCookie].first { $0.hasPrefix("ferry_session=") }?.dropFirst(14).prefix { $0 != ";" })
            let home = try await Self.get(client, "/dashboard", cookie: String(session))
            #expect(home.status == .ok && home.text.contains("id=\"role\">editor<"))
            let again = try await join("she edits the links daily")
            #expect(again.status == .notFound || again.text.contains("used, withdrawn or has expired"), "single use: \(again.status)")
            #expect(try await client.execute(uri: path, method: .get, headers: headers()).status == .notFound)

            // The only owner cannot step down or leave; with a second owner, they can.
            let demote = try await DashboardTests.post(client, "/dashboard/members/\(owner.id)/role", cookie: cookie, body: "csrf=\(csrf)&role=viewer")
            #expect(demote.status == .conflict && demote.text.contains("at least one owner"))
            let cleo = try #require(try await fixture.store.user(email: "cleo@example.com"))
            #expect(try await DashboardTests.post(client, "/dashboard/members/\(cleo.id)/role", cookie: cookie, body: "csrf=\(csrf)&role=owner").status == .seeOther)
            #expect(try await DashboardTests.post(client, "/dashboard/members/\(owner.id)/role", cookie: cookie, body: "csrf=\(csrf)&role=viewer").status == .seeOther)
            #expect(try await Self.get(client, "/dashboard/members", cookie: cookie).status == .forbidden, "a viewer now")
        }
        let log = try await fixture.store.auditEvents(AuditQuery(appID: fixture.app.id, objectType: "member")).map { "\($0.action) \($0.changes["role"]?.after ?? "-")" }
        #expect(log == ["updated viewer", "updated owner", "added editor"])
    }

    @Test func peopleSeeAndEndTheirSessionsAndARemovedAccountIsOutAtOnce() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let accounts = Self.accounts(fixture)
        let ana = try await accounts.createUser(email: "ana@example.com", password: "ana's long passphrase", role: .editor, appIDs: [fixture.app.id, fixture.otherApp.id],
                                                by: nil)
        try await fixture.application().test(.router) { client in
            let (laptop, csrf) = try #require(try await Self.signIn(client, email: "ana@example.com", password: "ana's long passphrase").session)
            let (phone, _) = try #require(try await Self.signIn(client, email: "ana@example.com", password: "ana's long passphrase").session)
            let account = try await Self.get(client, "/dashboard/account", cookie: laptop)
            #expect(account.text.components(separatedBy: "<tr><td>").count == 3, "two sessions listed")
            let other = try #require(try await fixture.store.userSessions(userID: ana.id, now: Date()).first { Secrets.digest(phone) == $0.hash })
            #expect(try await DashboardTests.post(client, "/dashboard/account/sessions/\(other.hash)/end", cookie: laptop, body: "csrf=\(csrf)").status == .seeOther)
            #expect(try await Self.get(client, "/dashboard", cookie: phone).status == .seeOther, "the ended session is signed out")

            // Switching apps: the links page is the other app's, and an app one is not a member of is refused.
            let switched = try await DashboardTests.post(client, "/dashboard/switch", cookie: laptop, body: "csrf=\(csrf)&to=\(fixture.otherApp.id).test")
            let chosen = try #require(switched.headers[values: .setCookie].first { $0.hasPrefix("ferry_app=") }?.dropFirst(10).prefix { $0 != ";" })
            let home = try await Self.get(client, "/dashboard", cookie: laptop, more: "; ferry_app=\(chosen)")
            #expect(home.text.contains("selected>Other (test)</option>"), "\(home.text.prefix(2000))")
            #expect(try await DashboardTests.post(client, "/dashboard/switch", cookie: laptop, body: "csrf=\(csrf)&to=app_nothers.live").status == .badRequest)
            let forged = try await Self.get(client, "/dashboard", cookie: laptop, more: "; ferry_app=app_nothers.live")
            #expect(forged.text.contains("selected>Example (live)</option>"), "a forged cookie falls back to a membership")

            // A wrong current password changes nothing; the right one keeps this session only.
            let wrong = try await DashboardTests.post(client, "/dashboard/account/password", cookie: laptop,
                                                      body: "csrf=\(csrf)&currentPassword=nope&password=a+brand+new+passphrase")
            #expect(wrong.status == .badRequest && wrong.text.contains("current password is not right"))
            let (tablet, _) = try #require(try await Self.signIn(client, email: "ana@example.com", password: "ana's long passphrase").session)
            let changed = try await DashboardTests.post(client, "/dashboard/account/password", cookie: laptop,
                                                        body: "csrf=\(csrf)&currentPassword=ana%27s+long+passphrase&password=a+brand+new+passphrase")
            #expect(changed.status == .ok && changed.text.contains("other sessions ended"))
            #expect(try await Self.get(client, "/dashboard", cookie: tablet).status == .seeOther)
            #expect(try await Self.get(client, "/dashboard", cookie: laptop).status == .ok)

            #expect(try await accounts.removeUser(ana, by: .commandLine(environment: ["USER": "ops"])))
            #expect(try await Self.get(client, "/dashboard", cookie: laptop).status == .seeOther, "removed: out at once")
        }
    }

    @Test func adminsMakeScopedKeysShownOnceAndRevokeThemInTheLiveEnvironmentOnly() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await Self.accounts(fixture).createUser(email: "admin@example.com", password: "keys manager passphrase", role: .admin,
                                                        appIDs: [fixture.app.id], by: nil)
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await Self.signIn(client, email: "admin@example.com", password: "keys manager passphrase").session)
            let made = try await DashboardTests.post(client, "/dashboard/keys", cookie: cookie,
                                                     body: "csrf=\(csrf)&kind=secret&environment=live&scope-links%3Aread=on&scope-stats%3Aread=on")
            #expect(made.status == .ok)
            let key = try #require(made.text.firstMatch(of: /id="new-key">[^<]*<code>(fs_live_[A-Za-z0-9]{32})<\/code>/)?.output.1)
            let record = try #require(try await fixture.store.key(hash: Secrets.hashKey(String(key))))
            #expect(record.scopes == [.linksRead, .statsRead] && record.appID == fixture.app.id)
            let listed = try await Self.get(client, "/dashboard/keys", cookie: cookie)
            #expect(!listed.text.contains(String(key)), "shown once")
            #expect(listed.text.contains("links:read stats:read"))
            let publishable = try await DashboardTests.post(client, "/dashboard/keys", cookie: cookie,
                                                            body: "csrf=\(csrf)&kind=publishable&environment=test&scope-links%3Aread=on")
            #expect(publishable.text.contains("fk_test_"), "a publishable key ignores the scopes ticked")
            let revoked = try await DashboardTests.post(client, "/dashboard/keys/\(record.id)/revoke", cookie: cookie, body: "csrf=\(csrf)")
            #expect(revoked.status == .seeOther)
            #expect(try await fixture.store.key(id: record.id)?.revokedAt != nil)
            let other = try #require(try await fixture.store.keys(appID: fixture.otherApp.id).first)
            let foreign = try await DashboardTests.post(client, "/dashboard/keys/\(other.id)/revoke", cookie: cookie, body: "csrf=\(csrf)")
            #expect(foreign.status == .notFound)
            let untouched = try await fixture.store.key(id: other.id)
            #expect(untouched?.revokedAt == nil, "another app's key is untouched")

            // In the test environment, keys are shown, not changed.
            let switched = try await DashboardTests.post(client, "/dashboard/switch", cookie: cookie, body: "csrf=\(csrf)&to=\(fixture.app.id).test")
            let chosen = try #require(switched.headers[values: .setCookie].first { $0.hasPrefix("ferry_app=") }?.dropFirst(10).prefix { $0 != ";" })
            let testPage = try await Self.get(client, "/dashboard/keys", cookie: cookie, more: "; ferry_app=\(chosen)")
            #expect(testPage.text.contains("id=\"read-only\"") && !testPage.text.contains("id=\"make-key\""))
            let refused = try await client.execute(uri: "/dashboard/keys", method: .post, headers: headers(extra: [
                (.contentType, "application/x-www-form-urlencoded"), (.cookie, "ferry_session=\(cookie); ferry_app=\(chosen)"),
                (HTTPField.Name("Origin")!, DashboardTests.origin),
            ]), body: ByteBuffer(string: "csrf=\(csrf)&kind=secret&environment=live"))
            #expect(refused.status == .forbidden)
        }
        let log = try await fixture.store.auditEvents(AuditQuery(appID: fixture.app.id, objectType: "key")).map { "\($0.action) \($0.actor.label ?? "")" }
        #expect(log == ["revoked admin@example.com", "created admin@example.com", "created admin@example.com"])
    }

    @Test func signInIsLimitedPerAccountAndKeysStillSignInAsOwners() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await Self.accounts(fixture).createUser(email: "ana@example.com", password: "ana's long passphrase", role: .viewer, appIDs: [fixture.app.id], by: nil)
        try await fixture.application().test(.router) { client in
            let refused = try await Self.signIn(client, email: "ana@example.com", password: "wrong passphrase!")
            #expect(refused.session == nil && refused.refusal.text.contains("do not match an account"))
            let unknown = try await Self.signIn(client, email: "nobody@example.com", password: "ana's long passphrase")
            #expect(unknown.session == nil && unknown.refusal.text.contains("do not match an account"), "the same answer for an unknown email")
            for attempt in 0..<9 { _ = try await Self.signIn(client, email: "ANA@example.com", password: "guess \(attempt) passphrase") }
            let limited = try await Self.signIn(client, email: "ana@example.com", password: "ana's long passphrase")
            #expect(limited.session == nil && limited.refusal.status == .tooManyRequests, "\(limited.refusal.status)")
            #expect(limited.refusal.headers[.retryAfter] != nil)

            let (cookie, _) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            #expect(try await Self.get(client, "/dashboard/members", cookie: cookie).status == .ok, "a key signs in as its app's owner")
            #expect(try await Self.get(client, "/dashboard/audit", cookie: cookie).status == .ok)
        }
    }
}
#endif
