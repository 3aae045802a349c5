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

/// Hostile requests sent as exact bytes over a real socket (the test client would refuse to send most of them).
enum Hostile {
    /// Sends bytes, reads until the server closes, and splits what came back into responses.
    static func send(_ port: Int, _ bytes: [UInt8]) async throws -> [RawHTTPClient.Response] {
        let raw = try await onItsOwnThread { try RawHTTPClient.exchange(port: port, bytes: bytes) }
        return try RawHTTPClient.parseAll(raw)
    }

    static func send(_ port: Int, _ text: String) async throws -> [RawHTTPClient.Response] {
        try await send(port, Array(text.utf8))
    }

    /// One request that closes its connection; exactly one response must come back.
    static func request(_ port: Int, _ method: String = "GET", _ target: String, host: String = "go.example.com", userAgent: String = UA.desktop,
                        headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> RawHTTPClient.Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: \(userAgent)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        let responses = try await send(port, Array((head + "\r\n").utf8) + (body ?? []))
        try #require(responses.count == 1, "one response to \(method) \(target), not \(responses.count)")
        return responses[0]
    }

    /// A request head with raw bytes spliced in (`bytes` replaces `{}` in `template`).
    static func splice(_ template: String, _ bytes: [UInt8]) -> [UInt8] {
        let parts = template.components(separatedBy: "{}")
        return Array(parts[0].utf8) + bytes + Array(parts.dropFirst().joined(separator: "{}").utf8)
    }

    /// The script-injection payload put in every field that reaches a page: a script element, an attribute break-out
    /// with double quotes and one with single quotes.
    static let xss = #"<script>alert(1)</script>"><img src=x onerror=alert(2)>'><svg onload=alert(3)>"#

    /// What must never appear in a page: the payload's tags unescaped, or its quotes left to close an attribute.
    static let unescapedMarkers = ["<script>alert", "<img src=x", "<svg onload", "onerror=alert(2)>", "\"&gt;&lt;img src=x", "'&gt;&lt;svg onload"]

    /// Schemes a page or a redirect must never lead to.
    static let scriptSchemes = ["javascript:", "data:", "vbscript:", "file:", "blob:"]

    /// Checks a page: no payload unescaped, no link, image, form or refresh that leads to a script or local-data URL.
    static func expectSafe(_ html: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for marker in unescapedMarkers {
            #expect(!html.contains(marker), "\(what) holds the payload unescaped (\(marker))", sourceLocation: sourceLocation)
        }
        for url in urlAttributes(in: html) {
            let plain = url.filter { !$0.isWhitespace }.lowercased()
            #expect(!scriptSchemes.contains { plain.hasPrefix($0) }, "\(what) leads to \(url)", sourceLocation: sourceLocation)
        }
    }

    /// The URLs a page leads to: `href`, `src`, `action`, `formaction`, `data-store` attributes and a refresh's `url=`,
    /// with character references decoded as a browser would.
    static func urlAttributes(in html: String) -> [String] {
        var urls: [String] = []
        for match in html.matches(of: /(?i)\b(href|src|action|formaction|data-store|content)\s*=\s*"([^"]*)"/) {
            var value = decodeReferences(String(match.output.2))
            if match.output.1.lowercased() == "content" {
                guard let range = value.range(of: "url=", options: .caseInsensitive) else { continue }
                value = String(value[range.upperBound...])
            }
            urls.append(value)
        }
        return urls
    }

    static func decodeReferences(_ text: String) -> String {
        var out = text
        for (entity, character) in [("&quot;", "\""), ("&#39;", "'"), ("&#96;", "`"), ("&lt;", "<"), ("&gt;", ">"), ("&#58;", ":"), ("&colon;", ":"), ("&amp;", "&")] {
            out = out.replacingOccurrences(of: entity, with: character)
        }
        return out
    }

    /// Whether a `Location` stays on hosts the link's owners set (or on Ferry's own paths).
    static func expectOwnersHost(_ location: String?, allowed: Set<String>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let location else { return }
        let lower = location.lowercased()
        #expect(!scriptSchemes.contains { lower.hasPrefix($0) }, "\(what) redirects to \(location)", sourceLocation: sourceLocation)
        if lower.hasPrefix("intent://") {
            // Android's intent URL for the owner's app link: what counts is where it falls back to.
            let fallback = location.components(separatedBy: ";S.browser_fallback_url=").dropFirst().first?.components(separatedBy: ";").first
            let url = fallback.map { QueryString.decode(Substring($0)) }
            #expect(url.flatMap { URLComponents(string: $0)?.host }.map { allowed.contains($0) } == true, "\(what) falls back to \(url ?? "nothing")",
                    sourceLocation: sourceLocation)
            return
        }
        if location.hasPrefix("/") {
            #expect(!location.hasPrefix("//") && !location.hasPrefix("/\\"), "\(what) redirects off-site: \(location)", sourceLocation: sourceLocation)
            return
        }
        let host = URLComponents(string: location)?.host?.lowercased()
        #expect(host.map { allowed.contains($0) } == true, "\(what) redirects to a host nobody set: \(location)", sourceLocation: sourceLocation)
    }

    /// Nested JSON arrays `depth` deep.
    static func nestedArrays(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }

    /// Nested JSON objects `depth` deep.
    static func nestedObjects(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
    }
}

/// A link made before a hostile batch, and what the API said about it then: after the batch it must be the same.
struct Canary {
    let id: String
    let slug: String
    let destination: String
    let json: String

    /// Made and read over connections of their own (a test client's kept-alive connection may be closed as idle).
    static func make(port: Int, key: String, slug: String) async throws -> Canary {
        let destination = "https://example.com/\(slug)?keep=1"
        let body = try FerryJSON.makeEncoder().encode(CreateLinkRequest(slug: slug, destination: destination, params: ["k": "v"],
                                                                        social: SocialMetadata(title: "Canary \(slug)")))
        let created = try await Hostile.request(port, "POST", "/v1/links", headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
                                                body: Array(body))
        try #require(created.status == 201, "\(created.status) \(created.body)")
        let id = try FerryJSON.makeDecoder().decode(LinkResponse.self, from: Data(created.body.utf8)).id
        let read = try await Hostile.request(port, "GET", "/v1/links/\(id)", headers: [("Authorization", "Bearer \(key)")])
        return Canary(id: id, slug: slug, destination: destination, json: read.body)
    }

    /// The server still answers, and the link is exactly as it was.
    func expectIntact(port: Int, key: String, after batch: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let read = try await Hostile.request(port, "GET", "/v1/links/\(id)", headers: [("Authorization", "Bearer \(key)")])
        #expect(read.status == 200 && read.body == json, "the link changed after \(batch): \(read.body)", sourceLocation: sourceLocation)
        let click = try await Hostile.request(port, "GET", "/\(slug)")
        #expect(click.status == 302 && click.header("Location") == destination, "after \(batch)", sourceLocation: sourceLocation)
        let health = try await Hostile.request(port, "GET", "/healthz")
        #expect(health.status == 200, "after \(batch)", sourceLocation: sourceLocation)
    }
}

@Suite("Hostile input, over real sockets", .takesTurns)
struct HostileInputTests {
    /// Every host a link in these tests leads to; anything else in a `Location` is an open redirect.
    static let ownersHosts: Set<String> = ["example.com", "www.example.com", "play.google.com", "apps.apple.com", "xn--80ak6aa92e.com"]

    @Test func scriptsInEveryFieldThatReachesAPageStayText() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        // The app's own name and preview defaults carry the payload too.
        let app = try await fixture.admin.updateApp(id: fixture.app.id) { spec in
            spec.name = "App \(Hostile.xss)".prefix(200).description
            spec.social = SocialMetadata(title: "Default \(Hostile.xss)", description: "About \(Hostile.xss)", imageURL: "https://example.com/card.png?'x='-alert(4)-'")
        }
        #expect(app.name.contains("<script>"))
        try await fixture.application().testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-xss")
            let create = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true), body: jsonBody(CreateLinkRequest(
                slug: "xss", destination: "https://example.com/land?q='-alert(5)-'", iosURL: "example://open?x='-alert(6)-'",
                androidURL: "example://open", params: ["note": Hostile.xss], utm: UTMParameters(source: Hostile.xss, campaign: "camp\(Hostile.xss)"),
                campaign: Hostile.xss, referrer: Hostile.xss,
                social: SocialMetadata(title: Hostile.xss, description: "Line one\n\(Hostile.xss)", imageURL: "https://example.com/i.png?'onerror='alert(7)"))))
            #expect(create.status == .created)
            let link = try create.decode(LinkResponse.self)
            #expect(link.social.title == Hostile.xss, "stored as sent: escaping is the page's job")
            // A link with no preview fields of its own shows the app's defaults.
            _ = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                         body: jsonBody(CreateLinkRequest(slug: "plain", destination: "https://example.com/plain")))
            _ = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                         body: jsonBody(CreateLinkRequest(slug: "off", destination: "https://example.com/off", social: SocialMetadata(title: Hostile.xss), disabled: true)))

            // The edge's pages: preview (bots), interstitial (iPhone), the in-app browser's "Open in app" page, with the
            // click's own query (raw and percent-encoded) echoed into the page's web link.
            let queries = ["", "?x=%22%3E%3Cscript%3Ealert(1)%3C/script%3E", #"?x="><img%20src=x%20onerror=alert(2)>&y='><svg%20onload=alert(3)>"#]
            for slug in ["xss", "plain"] {
                for query in queries {
                    for agent in [UA.slackBot, UA.facebookBot, UA.iPhoneSafari, UA.iPhoneInstagram, UA.desktop, UA.android] {
                        let answer = try await Hostile.request(port, "GET", "/\(slug)\(query)", userAgent: agent)
                        // A raw quote in a target is not HTTP: the decoder may refuse it.
                        #expect([200, 302].contains(answer.status) || (query.contains("\"") && answer.status == 400), "\(slug)\(query) as \(agent.prefix(20))")
                        Hostile.expectSafe(answer.body, "/\(slug)\(query) as \(agent.prefix(20))")
                        Hostile.expectOwnersHost(answer.header("Location"), allowed: Self.ownersHosts, "/\(slug)\(query)")
                        if answer.status == 200 {
                            #expect(answer.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
                            #expect(answer.header("Content-Type") == "text/html; charset=utf-8")
                        }
                    }
                }
            }
            let preview = try await Hostile.request(port, "GET", "/xss", userAgent: UA.slackBot)
            #expect(preview.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&#39;&gt;&lt;svg onload=alert(3)&gt;"),
                    "the title is shown, escaped")
            let inApp = try await Hostile.request(port, "GET", "/xss", userAgent: UA.iPhoneInstagram)
            #expect(inApp.body.contains("href=\"example://open?x=&#39;-alert(6)-&#39;\""), "the app link is escaped in its attribute")
            // Status pages (404 for a path that is a payload or a disabled link) echo nothing.
            for target in ["/<script>alert(1)</script>", "/%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/off", "/link/%22%3E%3Cimg%20src=x%20onerror=alert(2)%3E",
                           #"/"><svg/onload=alert(3)>"#] {
                let page = try await Hostile.request(port, "GET", target)
                #expect([404, 400].contains(page.status), "\(target): \(page.status)")
                Hostile.expectSafe(page.body, target)
                #expect(!page.body.contains("alert("), "\(target) is echoed")
            }

            // Clicks whose referrer and campaign are payloads reach the dashboard's breakdowns.
            for index in 0..<2 {
                let click = try await Hostile.request(port, "GET", "/xss?utm_campaign=%3Cscript%3Ealert(1)%3C/script%3E&utm_source=%22%3E%3Cimg%20src=x%20onerror=alert(2)%3E",
                                                      headers: [("Referer", "https://ref\(index).example.org/<script>alert(1)</script>"), ("X-Forwarded-For", "203.0.113.\(index + 1)")])
                #expect(click.status == 302)
            }
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) >= 2 })

            // The dashboard: every page that shows a link, the app, a search or an error.
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let session = [(HTTPField.Name.cookie, "ferry_session=\(cookie)")]
            let search = QueryString.encode(Hostile.xss)
            for path in ["/dashboard", "/dashboard?q=\(search)", "/dashboard?q=xss", "/dashboard/links/\(link.id)", "/dashboard/links/\(link.id)/edit",
                         "/dashboard/links/new", "/dashboard/settings", "/dashboard/links/\(QueryString.encode("<script>alert(1)</script>"))"] {
                let page = try await client.execute(uri: path, method: .get, headers: headers(extra: session))
                #expect([200, 404].contains(page.status.code), "\(path): \(page.status)")
                Hostile.expectSafe(page.text, path)
                #expect(page.headers[.csp]?.contains("default-src 'none'") == true, "\(path) has no CSP")
            }
            let searched = try await client.execute(uri: "/dashboard?q=\(search)", method: .get, headers: headers(extra: session))
            #expect(searched.text.contains("value=\"&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img"), "the search is echoed, escaped")
            // Form errors echo what was typed: escaped too.
            let badForm = "csrf=\(csrf)&domain=\(search)&slug=\(search)&destination=\(QueryString.encode("javascript:alert(1)"))&title=\(search)"
            let refused = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie, body: badForm)
            #expect(refused.status == .badRequest)
            Hostile.expectSafe(refused.text, "the refused link form")
            let badSettings = "csrf=\(csrf)&name=\(search)&domains=\(search)&fallbackURL=\(QueryString.encode("javascript:alert(1)"))"
            let refusedSettings = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: badSettings)
            #expect(refusedSettings.status == .badRequest)
            Hostile.expectSafe(refusedSettings.text, "the refused settings form")
            let hook = try await DashboardTests.post(client, "/dashboard/webhooks", cookie: cookie,
                                                     body: "csrf=\(csrf)&url=\(QueryString.encode("https://hooks.example.com/in?x='-alert(9)-'"))&link.clicked=on")
            #expect(hook.status == .ok)
            Hostile.expectSafe(hook.text, "the settings page with a webhook")
            #expect(hook.text.contains("https://hooks.example.com/in?x=&#39;-alert(9)-&#39;"))
            try await canary.expectIntact(port: port, key: fixture.secret, after: "the script payloads")
        }
    }

    @Test func scriptAndLocalURLsAreRefusedWhereverAURLIsStored() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let bad = ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "javascript%3Aalert(1)",
                   "data:text/html,<script>alert(1)</script>", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
                   "vbscript:msgbox(1)", "file:///etc/passwd", "blob:https://example.com/x", "\u{0}javascript:alert(1)"]
        try await fixture.application().testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-schemes")
            for value in bad {
                for field in ["destination", "iosURL", "androidURL", "imageURL"] {
                    var request = CreateLinkRequest(destination: "https://example.com/")
                    switch field {
                    case "destination": request.destination = value
                    case "iosURL": request.iosURL = value
                    case "androidURL": request.androidURL = value
                    default: request.social = SocialMetadata(imageURL: value)
                    }
                    let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true), body: jsonBody(request))
                    #expect(response.status == .badRequest, "\(field) = \(value.debugDescription): \(response.status)")
                    #expect(response.error?.field?.hasSuffix(field) == true, "\(field) = \(value.debugDescription) names \(response.error?.field ?? "nothing")")
                }
                let quoted = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
                let patch = try await client.execute(uri: "/v1/links/\(canary.id)", method: .patch, headers: headers(key: fixture.secret, json: true),
                                                     body: jsonBody(#"{"destination": \#(quoted)}"#))
                #expect(patch.status == .badRequest, "PATCH destination = \(value.debugDescription)")
                let webhook = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                       body: jsonBody(CreateWebhookRequest(url: value)))
                #expect(webhook.status == .badRequest, "webhook url = \(value.debugDescription)")
                await #expect(throws: ValidationError.self, "fallbackURL = \(value.debugDescription)") {
                    _ = try await fixture.admin.updateApp(id: fixture.app.id) { $0.fallbackURL = value }
                }
            }
            try await canary.expectIntact(port: port, key: fixture.secret, after: "script URLs")
        }
    }

    @Test func lineBreaksNeverSplitAnAnswerOrAddAHeader() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-crlf")
            // Line breaks in a destination are refused at creation, raw or escaped in JSON; percent-encoded ones are
            // an ordinary URL and stay encoded in the redirect.
            for destination in ["https://example.com/\r\nSet-Cookie: evil=1", "https://example.com/\nX-Injected: 1", "https://example.com/\rX-Injected: 1",
                                "https://example.com\r\n\r\n<html>", "https://exa\u{2028}mple.com/", "https://example.com/\u{85}x"] {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(CreateLinkRequest(destination: destination)))
                #expect(response.status == .badRequest && response.error?.field == "destination", "\(destination.debugDescription)")
            }
            for slug in ["a\r\nSet-Cookie: x=1", "a%0d%0aSet-Cookie:x=1", "a\nb"] {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(CreateLinkRequest(slug: slug, destination: "https://example.com/")))
                #expect(response.status == .badRequest && response.error?.field == "slug", "\(slug.debugDescription)")
            }
            for title in ["Sale\r\nSet-Cookie: x=1"] {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(CreateLinkRequest(destination: "https://example.com/", social: SocialMetadata(title: title))))
                #expect(response.status == .badRequest && response.error?.field == "social.title")
            }
            let encoded = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                   body: jsonBody(CreateLinkRequest(slug: "enc", destination: "https://example.com/a%0d%0aSet-Cookie:%20evil=1")))
            #expect(encoded.status == .created)

            // Clicks: percent-encoded line breaks in the path, the query and campaign values; bare CR and LF where a
            // request line or header would end; obs-fold continuation lines. Never a second answer or an added header.
            let requests: [[UInt8]] = [
                Array("GET /enc HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: \(UA.desktop)\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /canary-crlf?x=%0d%0aSet-Cookie:%20evil=1%0d%0a%0d%0a<html> HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /canary-crlf?utm_source=%0d%0aSet-Cookie:%20evil=1 HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: \(UA.android)\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /canary-crlf?x=%0d%0aSet-Cookie:%20evil=1 HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: \(UA.iPhoneSafari)\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /canary-crlf%0d%0aSet-Cookie:%20evil=1 HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /link/canary-crlf%0d%0aX-Injected:%201 HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /canary-crlf\rSet-Cookie: evil=1 HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /canary-crlf HTTP/1.1\r\nHost: go.example.com\rX-Injected: 1\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /canary-crlf HTTP/1.1\nHost: go.example.com\nX-Injected: 1\nConnection: close\n\n".utf8),
                Array("GET /canary-crlf HTTP/1.1\r\nHost: go.example.com\r\n X-Injected: 1\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /canary-crlf HTTP/1.1\r\nHost: go.example.com%0d%0aX-Injected:%201\r\nConnection: close\r\n\r\n".utf8),
                Array("GET / HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n".utf8),
                Array("GET /api/v1/app/dynamic_link/canary-crlf?full_request_url=https%3A%2F%2Fgo.example.com%2Fcanary-crlf%3Fa%3D%250d%250aSet-Cookie%3Ax HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n".utf8),
            ]
            for bytes in requests {
                let what = String(decoding: bytes.prefix(90), as: UTF8.self).debugDescription
                let responses = try await Hostile.send(port, bytes)
                #expect(responses.count == 1, "\(what) got \(responses.count) answers")
                for response in responses {
                    #expect(response.status < 500, "\(what): \(response.status)")
                    #expect(response.header("Set-Cookie") == nil && response.header("X-Injected") == nil, "\(what) added a header")
                    for (name, value) in response.headers {
                        #expect(!value.contains("\r") && !value.contains("\n") && !name.lowercased().contains("cookie"), "\(what): \(name): \(value)")
                    }
                    Hostile.expectOwnersHost(response.header("Location"), allowed: Self.ownersHosts, what)
                    Hostile.expectSafe(response.body, what)
                }
            }
            let redirect = try await Hostile.request(port, "GET", "/enc")
            #expect(redirect.header("Location") == "https://example.com/a%0d%0aSet-Cookie:%20evil=1", "an encoded line break stays encoded")
            let android = try await Hostile.request(port, "GET", "/canary-crlf?utm_source=%0d%0aSet-Cookie:%20evil=1", userAgent: UA.android)
            #expect(android.status == 302 && android.header("Location")?.contains("%250D%250A") == true, "\(android.header("Location") ?? "")")
            try await canary.expectIntact(port: port, key: fixture.secret, after: "line breaks")
        }
    }

    @Test func destinationsCannotLeadAnywhereTheOwnerDidNotSay() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let refused = [
            "//evil.com", "//evil.com/path", "https:evil.com", "https:/evil.com", "https:///evil.com", "/\\evil.com", "\\\\evil.com", "/evil.com",
            "https://evil.com\\@example.com", "https://example.com@evil.com", "https://user:pass@example.com/", "https://example.com%40evil.com/",
            "https://evil.com%2F@example.com", "https://%65vil.com/", "https://ex\u{0430}mple.com/", "https://example\u{3002}com/", "https://example\u{FF0E}com/",
            "https://example.com\u{2044}evil.com", "https://ｅｖｉｌ.com/", "https://evil.com:99999/", "https://evil.com:0/", "https://[::1/",
            "https://evil..com/", "https://-evil.com/", "https://evil.com\t/", "https:// evil.com/", "http//evil.com", "ftp://evil.com/",
            "javascript://example.com/%0aalert(1)", "https://example.com/#\u{0}", "https://", "https://?x", "example.com", "",
        ]
        try await fixture.application().testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-redirect")
            for destination in refused {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(CreateLinkRequest(destination: destination)))
                #expect(response.status == .badRequest && response.error?.field == "destination", "destination \(destination.debugDescription): \(response.status)")
                #expect(response.error?.message.isEmpty == false)
                await #expect(throws: ValidationError.self, "fallbackURL \(destination.debugDescription)") {
                    _ = try await fixture.admin.updateApp(id: fixture.app.id) { $0.fallbackURL = destination }
                }
            }
            // An international host is accepted in its ASCII (punycode) form, when the owner wrote that form: the
            // redirect goes exactly there.
            let idn = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                               body: jsonBody(CreateLinkRequest(slug: "idn", destination: "https://xn--80ak6aa92e.com/")))
            #expect(idn.status == .created)
            let idnClick = try await Hostile.request(port, "GET", "/idn")
            #expect(idnClick.status == 302 && idnClick.header("Location") == "https://xn--80ak6aa92e.com/")

            // What a click can add never moves the redirect to another host: query tricks, path tricks, host tricks,
            // absolute-form targets, forwarded-host headers.
            let clicks: [(String, String, [(String, String)])] = [
                ("/canary-redirect?//evil.com", "go.example.com", []), ("/canary-redirect?@evil.com", "go.example.com", []),
                ("/canary-redirect?next=https://evil.com&url=//evil.com&redirect=https:evil.com", "go.example.com", []),
                ("/canary-redirect?#@evil.com", "go.example.com", []), ("/canary-redirect?\\@evil.com", "go.example.com", []),
                ("//evil.com", "go.example.com", []), ("//evil.com/canary-redirect", "go.example.com", []), ("/\\evil.com", "go.example.com", []),
                ("/%2F%2Fevil.com", "go.example.com", []), ("/link//evil.com", "go.example.com", []), ("/%5Cevil.com", "go.example.com", []),
                ("http://evil.com/canary-redirect", "go.example.com", []), ("https://evil.com/", "go.example.com", []),
                ("/canary-redirect", "evil.com", []), ("/", "evil.com", []), ("/canary-redirect", "go.example.com@evil.com", []),
                ("/canary-redirect", "evil.com#go.example.com", []), ("/canary-redirect", "go.example.com", [("X-Forwarded-Host", "evil.com")]),
                ("/", "go.example.com", [("X-Forwarded-Host", "evil.com"), ("X-Original-URL", "//evil.com")]),
                ("/canary-redirect", "go.example.com:443", []), ("/canary-redirect", "GO.EXAMPLE.COM.", []),
            ]
            for (target, host, extra) in clicks {
                for agent in [UA.desktop, UA.android, UA.iPhoneSafari] {
                    let answer = try await Hostile.request(port, "GET", target, host: host, userAgent: agent, headers: extra)
                    #expect(answer.status < 500, "\(target) on \(host)")
                    Hostile.expectOwnersHost(answer.header("Location"), allowed: Self.ownersHosts, "\(target) on \(host)")
                    Hostile.expectSafe(answer.body, "\(target) on \(host)")
                    if let location = answer.header("Location"), location.hasPrefix("https://example.com/") {
                        #expect(location.hasPrefix("https://example.com/canary-redirect?keep=1") || location == "https://example.com/", "\(target): \(location)")
                    }
                }
            }
            // The dashboard takes no "next" address: signing in always lands on the dashboard itself.
            for query in ["?next=https://evil.com", "?return_to=//evil.com", "?redirect=%2F%2Fevil.com", "?next=/%5Cevil.com"] {
                let page = try await client.execute(uri: "/dashboard/sign-in\(query)", method: .get, headers: headers())
                #expect(page.status == .ok && !page.text.contains("evil.com"), "sign-in\(query)")
                let anonymous = try await client.execute(uri: "/dashboard\(query)", method: .get, headers: headers())
                #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/dashboard/sign-in", "dashboard\(query)")
            }
            let session = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let signedOut = try await DashboardTests.post(client, "/dashboard/sign-out?next=https://evil.com", cookie: session.cookie, body: "csrf=\(session.csrf)&next=https://evil.com")
            #expect(signedOut.headers[.location] == "/dashboard/sign-in")
            // The compatibility lookup answers the owner's app URL, whatever URL it is told the app was opened with.
            for url in ["https://evil.com/canary-redirect", "https%3A%2F%2Fevil.com%2Fcanary-redirect", "javascript%3Aalert(1)", "//evil.com/canary-redirect",
                        "https%3A%2F%2Fgo.example.com%2Fcanary-redirect%3Fnext%3Dhttps%3A%2F%2Fevil.com"] {
                let answer = try await client.execute(uri: "/api/v1/app/dynamic_link/canary-redirect?full_request_url=\(url)", method: .get,
                                                      headers: headers(key: fixture.publishable))
                #expect(answer.status.code < 500, "\(url)")
                if answer.status == .ok {
                    let uri = try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: String])["uri"]
                    #expect(uri?.hasPrefix("https://example.com/canary-redirect?keep=1") == true, "\(url) → \(uri ?? "nil")")
                }
            }
            try await canary.expectIntact(port: port, key: fixture.secret, after: "redirect tricks")
        }
    }

    @Test(arguments: [false, true])
    func aRequestThatNamesTwoHostsIsRefusedWhicheverPathReadsIt(fastPathOff: Bool) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
        // With the fast path off every request goes to the router; on, clicks on cached links are answered ahead of it.
        var configuration = Fixture.configuration
        configuration.edgeFastPath = !fastPathOff
        let application = try await fixture.application(configuration)
        try await application.test(.live) { client in
            let port = try #require(client.port)
            func get(_ target: String, _ fields: String, close: Bool = true) -> String {
                "GET \(target) HTTP/1.1\r\n\(fields)User-Agent: \(UA.desktop)\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n"
            }
            #expect(try await Hostile.send(port, get("/home", "Host: go.example.com\r\n")).map(\.status) == [302], "the link, cached")
            let refused = [
                get("/home", "Host: other.test\r\nHost: go.example.com\r\n"),
                get("/home", "Host: go.example.com\r\nHost: other.test\r\n"),
                get("/home", "Host: go.example.com\r\nHost: go.example.com\r\n"),
                get("http://other.test/home", "Host: go.example.com\r\n"),
                get("http://go.example.com/home", "Host: other.test\r\n"),
                get("https://go.example.com.evil.test/home", "Host: go.example.com\r\n"),
                get("http://go.example.com@other.test/home", "Host: go.example.com\r\n"),
            ]
            for request in refused {
                let answers = try await Hostile.send(port, request)
                #expect(answers.map(\.status) == [400], "\(request.debugDescription)")
                #expect(answers.first?.header("Location") == nil)
                #expect(answers.first?.header("Content-Type") == "text/html; charset=utf-8")
                #expect(answers.first?.body.contains("more than one host") == true)
            }
            // On the API's paths, the API's error.
            for request in [get("/v1/links", "Host: go.example.com\r\nHost: other.test\r\nAuthorization: Bearer \(fixture.secret)\r\n"),
                            get("http://other.test/v1/links", "Host: go.example.com\r\nAuthorization: Bearer \(fixture.secret)\r\n")] {
                let answer = try #require(try await Hostile.send(port, request).first)
                #expect(answer.status == 400 && answer.header("Content-Type") == "application/json; charset=utf-8", "\(request.debugDescription)")
                let error = try FerryJSON.makeDecoder().decode(ErrorResponse.self, from: Data(answer.body.utf8)).error
                #expect(error.code == .conflictingHost && error.message.contains("more than one host"))
            }
            // A target in absolute form on the same host as Host is that host's request; so is one without Host.
            for request in [get("http://go.example.com/home?x=1", "Host: go.example.com\r\n"),
                            get("HTTP://GO.example.com:80/home?x=1", "Host: go.example.com.\r\n"),
                            get("http://go.example.com/home?x=1", "")] {
                let answers = try await Hostile.send(port, request)
                #expect(answers.map(\.status) == [302], "\(request.debugDescription)")
                #expect(answers.first?.header("Location") == "https://example.com/home?x=1")
            }
            // A client cannot make the server refuse its own request by the field the check uses.
            let marked = try await Hostile.send(port, get("/home", "Host: go.example.com\r\nFerry-Conflicting-Host: 1\r\n"))
            #expect(marked.map(\.status) == [302])
            // A refused request costs its connection nothing: the requests before and after it are answered, in order.
            let pipelined = try await Hostile.send(port, [
                get("/home", "Host: go.example.com\r\n", close: false), get("/home", "Host: other.test\r\nHost: go.example.com\r\n", close: false),
                get("/home", "Host: go.example.com\r\n"),
            ].joined())
            #expect(pipelined.map(\.status) == [302, 400, 302])
        }
    }

    @Test func pathsThatClimbOutServeNothingButPages() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-paths")
            let targets = [
                "/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/..%2f..%2f..%2fetc%2fpasswd",
                "/..%5c..%5cetc%5cpasswd", "/%252e%252e%252fetc%252fpasswd", "/.%2e/.%2e/Package.swift", "/dashboard/assets/../../../../etc/passwd",
                "/dashboard/assets/%2e%2e/%2e%2e/Package.swift", "/dashboard/assets/..%2f..%2f..%2fPackage.swift", "/dashboard/assets/dashboard.css/../../../Package.swift",
                "/dashboard/assets/dashboard.css%00.js", "/dashboard/assets/%2e%2e%2fdashboard.css", "/dashboard/../Package.swift",
                "/.well-known/../../etc/passwd", "/.well-known/%2e%2e/%2e%2e/etc/passwd", "/.well-known/apple-app-site-association/../../../etc/passwd",
                "/.well-known/assetlinks.json%2f..%2f..%2fetc%2fpasswd", "/.ferry/../../etc/passwd", "/.ferry/interstitial.js/../../Package.swift",
                "/openapi.yaml/../Package.swift", "/openapi.yaml%2f..%2fPackage.swift", "/canary-paths/../../etc/passwd", "/canary-paths%2f..%2f..%2fetc%2fpasswd",
                "/link/../etc/passwd", "/link/..%2f..%2fetc%2fpasswd", "/link/%2e%2e", "/v1/links/..%2f..%2fetc%2fpasswd", "/v1/../../etc/passwd",
                "/Sources/FerryServer/Secrets.swift", "/.build/debug.yaml", "/ferry.sqlite", "/.git/config", "/%00", "/..;/etc/passwd",
            ]
            let secrets = ["root:x:0:0", "swift-tools-version", "import PackageDescription", "[core]", "SQLite format", "import Crypto"]
            for target in targets {
                let answer = try await Hostile.request(port, "GET", target, headers: [("Authorization", "Bearer \(fixture.secret)")])
                #expect((400..<500).contains(answer.status), "\(target): \(answer.status)")
                for secret in secrets { #expect(!answer.body.contains(secret), "\(target) served a file (\(secret))") }
            }
            // Encoded slashes and dots are not slugs.
            for slug in ["../etc", "a//b", "a%2fb", "%2e%2e", "..", ".", "a\\b", "a.b", "-/..", "a b", "é"] {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(CreateLinkRequest(slug: slug, destination: "https://example.com/")))
                #expect(response.status == .badRequest && response.error?.field == "slug", "slug \(slug.debugDescription): \(response.status)")
            }
            // The real files are still served.
            #expect(try await Hostile.request(port, "GET", "/dashboard/assets/dashboard.css").status == 200)
            #expect(try await Hostile.request(port, "GET", "/.well-known/apple-app-site-association").status == 200)
            try await canary.expectIntact(port: port, key: fixture.secret, after: "path traversal")
        }
    }

    @Test func invalidUTF8IsRefusedOrKeptHarmlessAndNeverStored() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let broken: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x80]]
        try await fixture.application().testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-utf8")
            let before = try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 100, after: nil).links.count
            let auth = "Authorization: Bearer \(fixture.secret)\r\n"
            for bytes in broken {
                let heads: [[UInt8]] = [
                    Hostile.splice("GET /{} HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /canary-utf8{} HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /canary-utf8?x={} HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /canary-utf8?x=%{} HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n", Array(String(format: "%02X", bytes[0]).utf8)),
                    Hostile.splice("GET /canary-utf8 HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: x{}y\r\nReferer: https://r.example/{}\r\nConnection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /canary-utf8 HTTP/1.1\r\nHost: go.example.com{}\r\nConnection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /canary-utf8 HTTP/1.1\r\nHost: go.example.com\r\nX-Forwarded-For: 203.0.113.{}\r\nConnection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /v1/links?limit={} HTTP/1.1\r\nHost: go.example.com\r\n\(auth)Connection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /v1/links/resolve/canary-utf8?domain=go.example.com{} HTTP/1.1\r\nHost: go.example.com\r\n\(auth)Connection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /v1/stats?to=2026-01-0{} HTTP/1.1\r\nHost: go.example.com\r\n\(auth)Connection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /v1/links HTTP/1.1\r\nHost: go.example.com\r\nAuthorization: Bearer fs_live_{}\r\nConnection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /dashboard?q={} HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n", bytes),
                    Hostile.splice("GET /api/v1/app/dynamic_link/canary-utf8?full_request_url=https://go.example.com/canary-utf8?a={} HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n", bytes),
                ]
                for head in heads {
                    let what = String(decoding: head.prefix(80), as: UTF8.self).debugDescription
                    let responses = try await Hostile.send(port, head)
                    #expect(responses.count == 1, "\(what)")
                    #expect(responses.allSatisfy { $0.status < 500 }, "\(what): \(responses.map(\.status))")
                }
                // JSON bodies: in a string value, in a key, as the whole body; for every route that reads JSON.
                let bodies: [[UInt8]] = [
                    Hostile.splice(#"{"slug": "u{}", "destination": "https://example.com/"}"#, bytes),
                    Hostile.splice(#"{"destination": "https://example.com/{}"}"#, bytes),
                    Hostile.splice(#"{"destination": "https://example.com/", "social": {"title": "T{}"}}"#, bytes),
                    Hostile.splice(#"{"destination": "https://example.com/", "params": {"k{}": "v"}}"#, bytes),
                    Hostile.splice(#"{"destination": "https://example.com/", "params": {"k": "v{}"}}"#, bytes),
                    Hostile.splice(#"{"destination": "https://example.com/", "campaign": "{}"}"#, bytes),
                    bytes,
                ]
                for body in bodies {
                    let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true), body: ByteBuffer(bytes: body))
                    #expect(response.status == .badRequest, "\(String(decoding: body, as: UTF8.self).debugDescription): \(response.status)")
                    #expect(response.error != nil)
                    let patch = try await client.execute(uri: "/v1/links/\(canary.id)", method: .patch, headers: headers(key: fixture.secret, json: true), body: ByteBuffer(bytes: body))
                    #expect(patch.status == .badRequest, "PATCH \(String(decoding: body, as: UTF8.self).debugDescription): \(patch.status)")
                }
                let routes: [(String, String, [UInt8])] = [
                    ("/v1/events", fixture.publishable, Hostile.splice(#"{"events": [{"name": "open{}", "installID": "i-1"}]}"#, bytes)),
                    ("/v1/attribution/match", fixture.publishable, Hostile.splice(#"{"installID": "i{}", "signals": {"platform": "ios"}}"#, bytes)),
                    ("/v1/attribution/match", fixture.publishable, Hostile.splice(#"{"installID": "i-2", "signals": {"platform": "ios", "timeZone": "Europe/{}"}}"#, bytes)),
                    ("/v1/attribution/user", fixture.publishable, Hostile.splice(#"{"installID": "i-3", "userID": "u{}"}"#, bytes)),
                    ("/v1/webhooks", fixture.secret, Hostile.splice(#"{"url": "https://hooks.example.com/{}"}"#, bytes)),
                    ("/api/v1/referral-links", fixture.secret, Hostile.splice(#"{"referrerIdentifier": "r{}", "customPayload": {"a": "b"}}"#, bytes)),
                    ("/api/v1/referral-links", fixture.secret, Hostile.splice(#"{"referrerIdentifier": "r", "customPayload": {"a": "{}"}}"#, bytes)),
                    ("/api/v1/attributions", fixture.publishable, Hostile.splice(#"{"userId": "u{}"}"#, bytes)),
                    ("/api/v1/stats/event", fixture.publishable, Hostile.splice(#"{"private_key": "\#(fixture.publishable)", "suffix": "canary-utf8", "event_type": "rerun", "handle": "h{}"}"#, bytes)),
                ]
                for (path, key, body) in routes {
                    let response = try await client.execute(uri: path, method: .post, headers: headers(key: key, json: true), body: ByteBuffer(bytes: body))
                    #expect(response.status == .badRequest, "\(path) \(String(decoding: body, as: UTF8.self).debugDescription): \(response.status)")
                }
                let signals = try await client.execute(uri: "/.ferry/signals", method: .post, headers: headers(extra: [(.contentType, "text/plain")]),
                                                       body: ByteBuffer(bytes: Hostile.splice(#"{"click": "clk_{}", "signals": {}}"#, bytes)))
                #expect(signals.status == .badRequest)
            }
            // JSON escapes that name no character: lone surrogates.
            for text in [#"\ud800"#, #"\udfff"#, #"a\ud83dz"#, #"\u0000"#] {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(#"{"destination": "https://example.com/", "social": {"title": "\#(text)"}, "campaign": "\#(text)"}"#))
                #expect(response.status == .badRequest, "\(text): \(response.status) \(response.text)")
            }
            // Nothing of it was stored; clicks with broken headers were stored as valid text, and export.
            let after = try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 100, after: nil).links
            #expect(after.count == before, "links were created from broken input: \(after.map(\.slug))")
            for link in after {
                for text in [link.slug, link.destination, link.campaign ?? "", link.social.title ?? ""] + link.params.flatMap({ [$0.key, $0.value] }) {
                    #expect(!text.unicodeScalars.contains("\u{FFFD}"), "\(link.slug) holds a replacement character")
                }
            }
            let export = try await client.execute(uri: "/v1/exports/clicks", method: .get, headers: headers(key: fixture.secret))
            #expect(export.status == .ok && export.text.hasPrefix("click_id,"))
            try await canary.expectIntact(port: port, key: fixture.secret, after: "invalid UTF-8")
        }
    }

    @Test func invalidUTF8InADashboardFormIsRefused() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-form")
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            for title in ["%FF%FE", "%C0%AF", "%ED%A0%80", "ok%E2%82"] {
                let create = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie,
                                                           body: "csrf=\(csrf)&slug=form-x&destination=https%3A%2F%2Fexample.com%2F&title=\(title)")
                #expect(create.status == .badRequest, "title \(title): \(create.status)")
                let edit = try await DashboardTests.post(client, "/dashboard/links/\(canary.id)", cookie: cookie,
                                                         body: "csrf=\(csrf)&destination=https%3A%2F%2Fexample.com%2F&title=\(title)")
                #expect(edit.status == .badRequest, "edit title \(title): \(edit.status)")
                let settings = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie,
                                                             body: "csrf=\(csrf)&name=App\(title)&domains=go.example.com")
                #expect(settings.status == .badRequest, "settings name \(title): \(settings.status)")
            }
            let raw = try await client.execute(uri: "/dashboard/links", method: .post,
                                               headers: headers(extra: [(.contentType, "application/x-www-form-urlencoded"), (.cookie, "ferry_session=\(cookie)"),
                                                                        (HTTPField.Name("Origin")!, DashboardTests.origin)]),
                                               body: ByteBuffer(bytes: Array("csrf=\(csrf)&slug=form-y&destination=https%3A%2F%2Fexample.com%2F&title=".utf8) + [0xFF, 0xFE]))
            #expect(raw.status == .badRequest)
            #expect(try await fixture.store.link(domain: "go.example.com", slug: "form-x") == nil)
            #expect(try await fixture.store.link(domain: "go.example.com", slug: "form-y") == nil)
            #expect(try await fixture.store.app(id: fixture.app.id)?.name == "Example")
            try await canary.expectIntact(port: port, key: fixture.secret, after: "broken forms")
        }
    }

    @Test func hugeBodiesAnd413AndHugeHeadsAreRefusedAndTheServerCarriesOn() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        var configuration = Fixture.configuration
        configuration.maxBodyBytes = 16 * 1024
        try await fixture.application(configuration).testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-huge")
            let padding = String(repeating: "a", count: 17 * 1024)
            let over = Array(#"{"destination": "https://example.com/", "campaign": "\#(padding)"}"#.utf8)
            let routes: [(String, String)] = [
                ("/v1/links", fixture.secret), ("/v1/events", fixture.publishable), ("/v1/attribution/match", fixture.publishable),
                ("/v1/attribution/user", fixture.publishable), ("/v1/webhooks", fixture.secret), ("/api/v1/referral-links", fixture.secret),
                ("/api/v1/attributions", fixture.publishable), ("/api/v1/stats/event", fixture.publishable), ("/v1/links/\(canary.id)", fixture.secret),
            ]
            for (path, key) in routes {
                let method = path.hasPrefix("/v1/links/") ? "PATCH" : "POST"
                // With a Content-Length over the limit.
                let declared = try await Hostile.request(port, method, path, headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")], body: over)
                #expect(declared.status == 413, "\(method) \(path): \(declared.status)")
                #expect(declared.body.contains("body_too_large"), "\(path): \(declared.body.prefix(200))")
                #expect(declared.header("Content-Type")?.hasPrefix("application/json") == true)
                // Chunked, with no length announced.
                let chunk = String(over.count, radix: 16)
                var text = "\(method) \(path) HTTP/1.1\r\nHost: go.example.com\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\n"
                text += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n\(chunk)\r\n"
                let chunked = try await Hostile.send(port, Array(text.utf8) + over + Array("\r\n0\r\n\r\n".utf8))
                #expect(chunked.count == 1 && chunked.first?.status == 413, "chunked \(method) \(path): \(chunked.map(\.status))")
                #expect(chunked.first?.body.contains("body_too_large") == true)
            }
            // Over the framework's own ceiling too (a megabyte), and to a route that reads no body.
            // (The answer comes before the body is read: only its start is sent, and the connection closes after it.)
            let start = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)
            for (path, auth) in [("/v1/links", "Authorization: Bearer \(fixture.secret)\r\nContent-Type: application/json\r\n"), ("/canary-huge", "")] {
                let head = "POST \(path) HTTP/1.1\r\nHost: go.example.com\r\n\(auth)Content-Length: \(3 * 1024 * 1024)\r\nConnection: close\r\n\r\n"
                let answers = try await Hostile.send(port, Array(head.utf8) + start)
                #expect(answers.count == 1 && (400..<500).contains(answers.first?.status ?? 0), "\(path): \(answers.map(\.status))")
                if path == "/v1/links" { #expect(answers.first?.status == 413 && answers.first?.body.contains("body_too_large") == true) }
            }
            let signals = try await Hostile.request(port, "POST", "/.ferry/signals", headers: [("Content-Type", "text/plain")], body: Array(repeating: UInt8(ascii: " "), count: 5000))
            #expect(signals.status == 413 && signals.body.contains("body_too_large"))
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let form = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie, body: "csrf=\(csrf)&destination=https%3A%2F%2Fexample.com&title=\(padding)")
            #expect(form.status == .contentTooLarge)

            // Heads: one enormous header, very many headers, an enormous request line. 400 or 431, and the
            // connection is closed (the exchange reads until the server closes it).
            let heads = [
                "GET /canary-huge HTTP/1.1\r\nHost: go.example.com\r\nX-Big: \(String(repeating: "b", count: 100 * 1024))\r\n\r\n",
                "GET /canary-huge HTTP/1.1\r\nHost: go.example.com\r\n" + (0..<2000).map { "X-H\($0): v\r\n" }.joined() + "\r\n",
                "GET /canary-huge?\(String(repeating: "q=1&", count: 30_000)) HTTP/1.1\r\nHost: go.example.com\r\n\r\n",
                "GET /canary-huge HTTP/1.1\r\nHost: go.example.com\r\nCookie: \(String(repeating: "c=1; ", count: 20_000))\r\n\r\n",
            ]
            for head in heads {
                let responses = try await Hostile.send(port, head)
                #expect(responses.count == 1 && [400, 431].contains(responses.first?.status ?? 0), "\(head.prefix(60).debugDescription): \(responses.map(\.status))")
                let answer = try await Hostile.request(port, "GET", "/canary-huge")
                #expect(answer.status == 302, "the server still answers after \(head.prefix(40).debugDescription)")
            }
            // Long but within the limits: answered normally.
            let long = try await Hostile.request(port, "GET", "/canary-huge", headers: [("X-Long", String(repeating: "l", count: 12 * 1024))])
            #expect(long.status == 302)
            // Lengths that cannot be: refused without reading on.
            for length in ["99999999999999999999999", "-1", "1, 2", "0x10", "1e3"] {
                let responses = try await Hostile.send(port, "POST /v1/links HTTP/1.1\r\nHost: go.example.com\r\nContent-Length: \(length)\r\n\r\n{}")
                #expect(responses.count == 1 && responses.first.map { (400..<500).contains($0.status) } == true, "Content-Length: \(length): \(responses.map(\.status))")
            }
            try await canary.expectIntact(port: port, key: fixture.secret, after: "huge requests")
        }
    }

    @Test func aStalledClientIsDisconnectedWhileOthersAreServed() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        var configuration = Fixture.configuration
        // Long enough that a click held behind the stalled clients (it would take the whole timeout) is told apart from
        // a click slowed by a machine the whole suite keeps busy (one took 5.4 s with a 6 s timeout).
        configuration.readTimeout = .seconds(12)
        try await fixture.application(configuration).testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-slow")
            let stalls: [(String, String)] = [
                ("half a request line", "GET /canary-sl"),
                ("half a head", "GET /canary-slow HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: slow"),
                ("a head without its end", "GET /canary-slow HTTP/1.1\r\nHost: go.example.com\r\n"),
                ("half a body", "POST /v1/links HTTP/1.1\r\nHost: go.example.com\r\nAuthorization: Bearer \(fixture.secret)\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"destination\": "),
                ("half a chunked body", "POST /v1/events HTTP/1.1\r\nHost: go.example.com\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"events\""),
                ("nothing at all", ""),
                ("an idle keep-alive connection", "GET /canary-slow HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: \(UA.desktop)\r\n\r\n"),
                ("an idle connection after an answer from the framework", "GET /healthz HTTP/1.1\r\nHost: go.example.com\r\n\r\n"),
            ]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (what, bytes) in stalls {
                    group.addTask {
                        let start = ContinuousClock.now
                        // Reads until the server closes; it fails if the server has not closed within 30 s (the
                        // 12 s timeout, and room for a machine the whole suite keeps busy: held for good is what fails).
                        let raw = try await onItsOwnThread { try RawHTTPClient.exchange(port: port, bytes: Array(bytes.utf8), receiveTimeout: 30) }
                        let waited = ContinuousClock.now - start
                        #expect(waited >= .milliseconds(11_900) && waited < .seconds(30), "\(what): closed after \(waited)")
                        if what.hasPrefix("an idle") {
                            #expect(try RawHTTPClient.parseAll(raw).count == 1, "\(what): answered before it was closed")
                        } else {
                            #expect(raw.isEmpty || String(decoding: raw, as: UTF8.self).hasPrefix("HTTP/1.1 4"), "\(what): \(String(decoding: raw.prefix(40), as: UTF8.self))")
                        }
                    }
                }
                // Meanwhile other clients are served at once.
                group.addTask {
                    for _ in 0..<5 {
                        let start = ContinuousClock.now
                        let answer = try await Hostile.request(port, "GET", "/canary-slow")
                        #expect(answer.status == 302)
                        // Inside the read timeout: a click that waited for the stalled clients would take 12 s (a click
                        // on a machine the whole suite keeps busy has taken 8).
                        #expect(ContinuousClock.now - start < .seconds(11), "a click waited behind the stalled clients")
                        try await Task.sleep(for: .milliseconds(150))
                    }
                }
                try await group.waitForAll()
            }
            // A client that keeps sending, slowly but steadily, is not cut off: it takes 2.5 s, each piece within the timeout.
            let paced = "GET /canary-slow HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: \(UA.desktop)\r\nConnection: close\r\n\r\n"
            let slowButSteady = try await onItsOwnThread {
                try RawHTTPClient.parse(try RawHTTPClient.exchange(port: port, bytes: Array(paced.utf8), pieces: paced.utf8.count / 10 + 1, pause: 250_000))
            }
            #expect(slowButSteady.status == 302)
            try await canary.expectIntact(port: port, key: fixture.secret, after: "stalled clients")
        }
    }

    @Test func theReadTimeoutIsSetFromTheEnvironment() throws {
        var configuration = FerryConfiguration()
        #expect(configuration.readTimeout == .seconds(75))
        try configuration.apply(environment: ["FERRY_READ_TIMEOUT": "20"])
        #expect(configuration.readTimeout == .seconds(20))
        for value in ["0", "-5", "1.5", "ten", "3601"] {
            #expect(throws: ConfigurationError.self, "FERRY_READ_TIMEOUT=\(value)") { try configuration.apply(environment: ["FERRY_READ_TIMEOUT": value]) }
        }
    }

    @Test func deeplyNestedHugeAndMistypedJSONIsRefused() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        var configuration = Fixture.configuration
        configuration.maxBodyBytes = 1024 * 1024
        try await fixture.application(configuration).testLive { client in
            let port = try #require(client.port)
            let canary = try await Canary.make(port: port, key: fixture.secret, slug: "canary-json")
            // Deeper than JSON's parser goes (512 levels) is refused wherever it is; within that, nesting where a value of
            // another type is expected is refused, and under a key nobody reads it is ignored, but nothing may crash.
            let deep: [(text: String, refused: Bool)] = [
                (Hostile.nestedArrays(100_000), true), (Hostile.nestedObjects(100_000), true), (Hostile.nestedArrays(600), true),
                (Hostile.nestedObjects(600), true), (Hostile.nestedArrays(500), false), (Hostile.nestedObjects(500), false), (Hostile.nestedArrays(200), false),
            ]
            let placements: [(String, String, (String) -> String)] = [
                ("/v1/links", fixture.secret, { $0 }),
                ("/v1/links", fixture.secret, { #"{"destination": "https://example.com/", "params": \#($0)}"# }),
                ("/v1/links", fixture.secret, { #"{"destination": "https://example.com/", "params": {"a": \#($0)}}"# }),
                ("/v1/links", fixture.secret, { #"{"destination": "https://example.com/", "social": \#($0)}"# }),
                ("/v1/links/\(canary.id)", fixture.secret, { #"{"params": {"a": \#($0)}}"# }),
                ("/v1/events", fixture.publishable, { #"{"events": \#($0)}"# }),
                ("/v1/events", fixture.publishable, { #"{"events": [{"name": "open", "properties": \#($0)}]}"# }),
                ("/v1/attribution/match", fixture.publishable, { #"{"installID": "i-1", "signals": \#($0)}"# }),
                ("/v1/attribution/match", fixture.publishable, { #"{"installID": "i-1", "signals": {"languages": \#($0)}}"# }),
                ("/v1/webhooks", fixture.secret, { #"{"url": "https://hooks.example.com/", "events": \#($0)}"# }),
                ("/api/v1/referral-links", fixture.secret, { #"{"referrerIdentifier": "r", "customPayload": {"a": \#($0)}}"# }),
                ("/api/v1/referral-links", fixture.secret, { #"{"referrerIdentifier": "r", "customPayload": \#($0)}"# }),
                ("/api/v1/attributions", fixture.publishable, { #"{"userId": \#($0)}"# }),
                ("/api/v1/stats/event", fixture.publishable, { #"{"private_key": \#($0)}"# }),
                ("/.ferry/signals", "", { #"{"click": "clk_x", "signals": \#($0)}"# }),
            ]
            for (nested, refused) in deep {
                for (path, key, place) in placements where path != "/.ferry/signals" || nested.utf8.count < 4000 {
                    let method = path.hasPrefix("/v1/links/") ? "PATCH" : "POST"
                    let response = try await Hostile.request(port, method, path, headers: (key.isEmpty ? [] : [("Authorization", "Bearer \(key)")]) + [("Content-Type", "application/json")],
                                                             body: Array(place(nested).utf8))
                    let what = "\(method) \(path) with \(nested.utf8.count) bytes of nesting: \(response.status) \(response.body.prefix(120))"
                    if refused || nested.hasPrefix("[") {
                        #expect((400..<500).contains(response.status), "\(what)")
                        #expect(response.body.contains("\"error\""), "\(what)")
                    } else {
                        #expect(response.status < 500, "\(what)")
                    }
                }
            }
            // Numbers too large for their fields, or not numbers at all.
            let numbers: [(String, String, String)] = [
                ("/v1/attribution/match", fixture.publishable, #"{"installID": "i-2", "signals": {"platform": "ios", "screenWidth": 1e400}}"#),
                ("/v1/attribution/match", fixture.publishable, #"{"installID": "i-2", "signals": {"platform": "ios", "screenWidth": 99999999999999999999999999}}"#),
                ("/v1/attribution/match", fixture.publishable, #"{"installID": "i-2", "signals": {"platform": "ios", "screenWidth": -5}}"#),
                ("/v1/attribution/match", fixture.publishable, #"{"installID": "i-2", "signals": {"platform": "ios", "screenScale": 1e308}}"#),
                ("/v1/attribution/match", fixture.publishable, #"{"installID": "i-2", "signals": {"platform": "ios", "timeZoneOffsetSeconds": 9223372036854775808}}"#),
                ("/v1/attribution/match", fixture.publishable, #"{"installID": "i-2", "signals": {"platform": "ios", "screenWidth": NaN}}"#),
                ("/v1/attribution/match", fixture.publishable, #"{"installID": "i-2", "signals": {"platform": "ios", "screenWidth": 393.5e-400}}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "expiresAt": 1e999}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "expiresAt": "99999-01-01T00:00:00Z"}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "disabled": 1}"#),
                ("/v1/links", fixture.secret, #"{"destination": 12345678901234567890}"#),
                ("/v1/links", fixture.secret, #"{"destination": ["https://example.com/"]}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "params": ["a", "b"]}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "params": {"a": 1}}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "params": {"a": {"b": "c"}}}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "social": "title"}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "utm": []}"#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/", "slug": null, "disabled": "true"}"#),
                ("/v1/links", fixture.secret, #"[{"destination": "https://example.com/"}]"#),
                ("/v1/links", fixture.secret, #""https://example.com/""#),
                ("/v1/links", fixture.secret, #"{"destination": "https://example.com/"} trailing"#),
                ("/v1/events", fixture.publishable, #"{"events": [{"name": "open", "installID": "i-1", "timestamp": 1e999}]}"#),
                ("/v1/events", fixture.publishable, #"{"events": {"name": "open"}}"#),
                ("/api/v1/referral-links", fixture.secret, #"{"customPayload": {"a": 1e999}}"#),
                ("/api/v1/referral-links", fixture.secret, #"{"customPayload": {"a": 42}}"#),
                ("/v1/links/\(canary.id)", fixture.secret, #"{"destination": 1e999}"#),
                ("/v1/links/\(canary.id)", fixture.secret, #"{"disabled": "yes"}"#),
            ]
            for (path, key, body) in numbers {
                let method = path.hasPrefix("/v1/links/") ? "PATCH" : "POST"
                let response = try await Hostile.request(port, method, path, headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")], body: Array(body.utf8))
                #expect(response.status == 400, "\(method) \(path) \(body): \(response.status) \(response.body.prefix(160))")
                #expect(response.body.contains("\"error\"") || response.body.contains("\"success\":false"))
            }
            // Foundation's parser lets a trailing comma pass; whatever it does, the link is whole or absent.
            let trailing = try await Hostile.request(port, "POST", "/v1/links", headers: [("Authorization", "Bearer \(fixture.secret)"), ("Content-Type", "application/json")],
                                                     body: Array(#"{"slug": "trailing", "destination": "https://example.com/t",}"#.utf8))
            #expect([201, 400].contains(trailing.status))
            if trailing.status == 201 { #expect(try await fixture.store.link(domain: "go.example.com", slug: "trailing")?.destination == "https://example.com/t") }
            // Duplicate keys: one value wins, whole; nothing half-stored.
            let duplicate = try await Hostile.request(port, "POST", "/v1/links", headers: [("Authorization", "Bearer \(fixture.secret)"), ("Content-Type", "application/json")],
                                                      body: Array(#"{"slug": "dup-one", "slug": "dup-two", "destination": "https://example.com/1", "destination": "https://example.com/2"}"#.utf8))
            #expect([201, 400].contains(duplicate.status))
            if duplicate.status == 201 {
                let link = try FerryJSON.makeDecoder().decode(LinkResponse.self, from: Data(duplicate.body.utf8))
                #expect(["dup-one", "dup-two"].contains(link.slug) && ["https://example.com/1", "https://example.com/2"].contains(link.destination))
                let stored = try #require(try await fixture.store.link(id: link.id, appID: fixture.app.id))
                #expect(stored.slug == link.slug && stored.destination == link.destination)
            }
            // Query numbers.
            for query in ["/v1/links?limit=99999999999999999999", "/v1/links?limit=-1", "/v1/links?limit=1e2", "/v1/links?cursor=-5", "/v1/links?cursor=99999999999999999999999",
                          "/v1/stats?to=99999-01-01", "/v1/stats?to=2026-13-45", "/v1/stats?days=99999999999999999999", "/v1/links/\(canary.id)/qr?size=1e9", "/v1/links/\(canary.id)/qr?size=99999999999999999999"] {
                let response = try await Hostile.request(port, "GET", query, headers: [("Authorization", "Bearer \(fixture.secret)")])
                #expect(response.status == 400, "\(query): \(response.status)")
            }
            try await canary.expectIntact(port: port, key: fixture.secret, after: "nested and mistyped JSON")
        }
    }
}
#endif
