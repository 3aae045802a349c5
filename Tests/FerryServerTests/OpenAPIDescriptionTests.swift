#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What docs/openapi.yaml (served at `/openapi.yaml`) claims, checked against the server.
@Suite("API description", .takesTurns)
struct OpenAPIDescriptionTests {
    /// The description's text.
    static let text: String = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/openapi.yaml")
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }()

    /// Every path of the description with the methods it lists (upper-case), read from the document's layout: a path
    /// is a key indented by two spaces under `paths:`, its operations keys indented by four.
    static let paths: [(path: String, methods: Set<String>)] = {
        var result: [(path: String, methods: Set<String>)] = []
        var inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:" }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                result.append((String(line.dropFirst(2).dropLast()), []))
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"), !result.isEmpty {
                let key = line.dropFirst(4).dropLast()
                if ["get", "head", "post", "put", "patch", "delete", "options", "trace"].contains(key) {
                    result[result.count - 1].methods.insert(key.uppercased())
                }
            }
        }
        return result
    }()

    /// The lines of a schema of `components.schemas`: its key, indented by four spaces, and everything indented deeper.
    static func schema(_ name: String) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "    \(name):") else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { !$0.isEmpty && !$0.hasPrefix("     ") } ?? lines.endIndex
        return Array(lines[start..<end])
    }

    /// The values of a keyword (`pattern`, `maxLength`) in a schema's lines, in the order they appear, unquoted.
    static func values(_ keyword: String, in lines: [Substring]) -> [String] {
        lines.compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " || $0 == "-" }
            guard trimmed.hasPrefix("\(keyword): ") else { return nil }
            let value = trimmed.dropFirst(keyword.count + 2)
            guard value.hasPrefix("'"), value.hasSuffix("'") else { return String(value) }
            return value.dropFirst().dropLast().replacingOccurrences(of: "''", with: "'")
        }
    }

    /// A JSON Schema `pattern` (a search; `$` only at the very end, as ECMA 262 reads it).
    struct Pattern {
        let regex: NSRegularExpression
        let anchoredAtEnd: Bool

        init(_ source: String) throws {
            regex = try NSRegularExpression(pattern: source)
            anchoredAtEnd = source.hasSuffix("$")
        }

        func matches(_ text: String) -> Bool {
            let whole = NSRange(text.startIndex..., in: text)
            guard let match = regex.firstMatch(in: text, range: whole) else { return false }
            // ICU's `$` also matches before a final line break; ECMA's does not.
            return !anchoredAtEnd || match.range.upperBound == whole.upperBound
        }
    }

    /// Hosts (names, labels at their limits, IPv4 and IPv6 in their forms, `localhost`) and ports the rules tell apart.
    static let label63 = String(repeating: "a", count: 63)
    static let hosts = ["example.com", "EXAMPLE.com", "a", "a-b.c", "-a.com", "a-.com", "a..b", ".a", "a.", "a_b.com", "%41.com", "",
                        Self.label63 + ".com", Self.label63 + "a.com", Array(repeating: Self.label63, count: 4).joined(separator: "."),
                        Array(repeating: Self.label63, count: 3).joined(separator: ".") + ".ab", Array(repeating: Self.label63, count: 3).joined(separator: ".") + ".abc",
                        "127.0.0.1", "1.2.3.4", "203.0.113.7", "0x7f000001", "2130706433", "localhost", "LOCALHOST", "a.localhost", "notlocalhost",
                        "localhost.com", "hooks.b1", "hooks.1b", "[::1]", "[::]", "[1:2:3:4:5:6:7:8]", "[1:2:3:4:5:6:7:8:9]", "[1:2:3:4:5:6:7::]",
                        "[::2:3:4:5:6:7:8]", "[1::2:3:4:5:6:7:8]", "[::ffff:1.2.3.4]", "[1:2:3:4:5:6:1.2.3.4]", "[1:2:3:4:5:6:7:1.2.3.4]", "[1::2::3]",
                        "[1.2.3.4]", "[:::1]", "[12345::]", "[::1.2.3.04]", "[::1.2.3.256]", "[2001:DB8::a]", "[::1", "[::1]]", "[[::1]]", "x[::1]"]
    static let ports = ["", "", "", ":80", ":0", ":080", ":65535", ":65536", ":", ":99999", ":8a", ":1:2"]

    /// URLs of every kind the rules tell apart: schemes, credentials, `hosts`, `ports`, and what follows, combined at
    /// random (the same every run).
    static func urlCorpus(count: Int) -> [String] {
        let schemes = ["http", "https", "HTTPS", "hTtP", "ftp", "myapp", "my-app+x.y", "javascript", "JavaScript", "data", "chrome-extension",
                       "view-source", "1abc", "", String(repeating: "s", count: 64), String(repeating: "s", count: 65), "file", "intent"]
            + Array(repeating: "https", count: 12)
        let separators = Array(repeating: "://", count: 12) + [":", ":/", ""]
        let credentials = Array(repeating: "", count: 20) + ["user@", "u:p@"]
        let rests = ["", "/", "/path/to", "?q=1&r=[2]", "#frag", "/a#b#c", "/a b", "/\"", "/<", "/{}|^`~", "/é", "/\\", "/%zz", "/\t", "/x\n", "?'!$&()*+,;=:@"]
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        var corpus = ["https://example.com/" + String(repeating: "p", count: 2028), "https://example.com/" + String(repeating: "p", count: 2029),
                      "https://example.com/" + String(repeating: "p", count: 4076), "https://example.com/" + String(repeating: "p", count: 4077),
                      "myapp:" + String(repeating: "p", count: 4090), "myapp:" + String(repeating: "p", count: 4091)]
        for _ in 0..<count {
            corpus.append(schemes[next(schemes.count)] + separators[next(separators.count)] + credentials[next(credentials.count)]
                          + Self.hosts[next(Self.hosts.count)] + Self.ports[next(Self.ports.count)] + rests[next(rests.count)])
        }
        return corpus
    }

    /// `WebURL`, `AppURL` and `WebhookURL` accept exactly the URLs the server's rules accept.
    @Test func urlSchemasAgreeWithTheServersRules() throws {
        let web = Self.schema("WebURL"), app = Self.schema("AppURL"), hook = Self.schema("WebhookURL")
        let webPatterns = try Self.values("pattern", in: web).map(Pattern.init)
        let appPatterns = try Self.values("pattern", in: app).map(Pattern.init)
        let hookPatterns = try Self.values("pattern", in: hook).map(Pattern.init)
        try #require(webPatterns.count == 2 && appPatterns.count == 4 && hookPatterns.count == 3)
        #expect(Self.values("maxLength", in: web) == ["4096"])
        #expect(Self.values("maxLength", in: app) == ["4096"])
        #expect(Self.values("maxLength", in: hook) == ["2048"])
        var accepted = (web: 0, app: 0, hook: 0)
        for url in Self.urlCorpus(count: 20_000) {
            let described = url.count <= 4096 && webPatterns[0].matches(url) && !webPatterns[1].matches(url)
            #expect(described == ((try? URLRules.validateWebURL(url, field: "url")) != nil), "WebURL: \(url.prefix(300))")
            let app = url.count <= 4096 && ((appPatterns[0].matches(url) && !appPatterns[1].matches(url)) || (appPatterns[2].matches(url) && !appPatterns[3].matches(url)))
            #expect(app == ((try? URLRules.validateAppURL(url, field: "url")) != nil), "AppURL: \(url.prefix(300))")
            let hook = url.count <= 2048 && hookPatterns[0].matches(url) && !hookPatterns[1].matches(url) && !hookPatterns[2].matches(url)
            #expect(hook == ((try? WebhookRules.validate(CreateWebhookRequest(url: url))) != nil), "WebhookURL: \(url.prefix(300))")
            accepted.web += described ? 1 : 0
            accepted.app += app ? 1 : 0
            accepted.hook += hook ? 1 : 0
        }
        // The corpus reaches both sides of each rule.
        #expect(accepted.web > 500 && accepted.app > 500 && accepted.hook > 200, "\(accepted)")
    }

    /// `LinkDomain` (the `domain` of a new link) accepts exactly the domains the server's rule accepts.
    @Test func linkDomainSchemaAgreesWithTheServersRule() throws {
        let lines = Self.schema("LinkDomain")
        let pattern = try Pattern(try #require(Self.values("pattern", in: lines).first))
        #expect(Self.values("maxLength", in: lines) == ["253"])
        let long = Array(repeating: Self.label63, count: 3).joined(separator: ".")
        let extra = ["\u{212A}.example.com", "go.example.com.", long + ".ab", long + ".abc", long + ".a:8", long + ".a:80", "go.example.com:8080"]
        var accepted = 0
        for domain in Self.hosts.flatMap({ host in Self.ports.map { host + $0 } }) + extra {
            let described = domain.count <= 253 && pattern.matches(domain)
            #expect(described == ((try? DomainName.validate(domain)) != nil), "\(domain)")
            accepted += described ? 1 : 0
        }
        #expect(accepted > 50)
    }

    /// `Timestamp` accepts exactly the instants the server reads (`FerryJSON.parseDate`): calendar dates with leap
    /// days, times, fractions and offsets at and past their limits, combined at random (the same every run).
    @Test func timestampSchemaAgreesWithTheServersParser() throws {
        let lines = Self.schema("Timestamp")
        let pattern = try Pattern(try #require(Self.values("pattern", in: lines).first))
        #expect(Self.values("maxLength", in: lines) == ["64"])
        let years = ["2026", "2024", "2000", "1900", "2100", "0400", "0004", "0001", "0000", "9999", "1970", "1969", "226", "20266"]
        let monthDays = ["01-01", "01-31", "01-32", "02-28", "02-29", "02-30", "04-30", "04-31", "06-31", "09-30", "11-31", "12-31", "13-01", "00-10", "10-00", "1-01"]
        let times = ["T00:00:00", "T23:59:59", "T24:00:00", "T23:60:00", "T23:59:60", "t12:00:00", " 12:00:00", "T12:00", "T1:00:00"]
        let fractions = ["", "", ".5", ".123456789", ".1234567890", ".", ".5x"]
        let zones = ["Z", "Z", "Z", "+00:00", "+05:30", "-18:00", "+18:01", "-17:59", "z", "-23:59", "+24:00", "+05:60", "+0530", "+05:30:00", "", "UTC"]
        var state: UInt64 = 0x7157
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = 0
        for _ in 0..<20_000 {
            let text = years[next(years.count)] + "-" + monthDays[next(monthDays.count)] + times[next(times.count)] + fractions[next(fractions.count)]
                + zones[next(zones.count)]
            let described = text.count <= 64 && pattern.matches(text)
            #expect(described == (FerryJSON.parseDate(text) != nil), "\(text)")
            accepted += described ? 1 : 0
        }
        #expect(accepted > 200, "\(accepted)")
    }

    /// A link's title and description are described as the server checks them: characters (Unicode scalars, as
    /// `maxLength` counts) up to the limit, no control characters (line breaks and tabs allowed in a description).
    @Test func textSchemasAgreeWithTheServersRule() throws {
        let lines = Self.schema("SocialMetadata")
        let patterns = try Self.values("pattern", in: lines).map(Pattern.init)
        let limits = Self.values("maxLength", in: lines).compactMap(Int.init)
        // title, description, then imageURL's (a WebURL of at most 2,048).
        try #require(patterns.count == 2 && limits == [300, 1000, 2048])
        let pieces = ["a", "Z", " ", "é", "😀", "e\u{301}", "👩‍👩‍👧", "\n", "\r", "\t", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9F}", "\u{A0}", "\u{2028}", "\u{FEFF}"]
        var state: UInt64 = 0x7E47
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = (title: 0, description: 0)
        for _ in 0..<3000 {
            // Mostly printable text near a limit, with now and then a character the rules refuse.
            var text = ""
            let length = [next(40), 295 + next(10), 995 + next(10)][next(3)]
            while text.unicodeScalars.count < length {
                text += next(20) == 0 ? pieces[6 + next(pieces.count - 6)] : pieces[next(6)]
            }
            let title = text.unicodeScalars.count <= limits[0] && patterns[0].matches(text)
            #expect(title == ((try? LinkRules.checkText(text, field: "title", max: LinkRules.maxTitleLength)) != nil), "title: \(text.debugDescription.prefix(200))")
            let description = text.unicodeScalars.count <= limits[1] && patterns[1].matches(text)
            #expect(description == ((try? LinkRules.checkText(text, field: "d", max: LinkRules.maxDescriptionLength, allowNewlines: true)) != nil),
                    "description: \(text.debugDescription.prefix(200))")
            accepted.title += title ? 1 : 0
            accepted.description += description ? 1 : 0
        }
        #expect(accepted.title > 100 && accepted.description > 100, "\(accepted)")
    }

    /// `Slug` accepts exactly the custom slugs the server takes: the alphabet, 1 to 64 characters, and no reserved word in
    /// any case.
    @Test func slugSchemaAgreesWithTheServersRule() throws {
        let lines = Self.schema("Slug")
        let patterns = try Self.values("pattern", in: lines).map(Pattern.init)
        try #require(patterns.count == 2)
        let words = Slug.reserved.flatMap { [$0, $0.uppercased(), $0.prefix(1).uppercased() + $0.dropFirst(), $0 + "s", "x" + $0] }
        let others = ["a", "Spring-Sale", "spring_sale", "-", "_", "", "a b", "ä", "a/b", "a.b", String(repeating: "a", count: 64), String(repeating: "a", count: 65)]
        for slug in words + others {
            let described = patterns[0].matches(slug) && !patterns[1].matches(slug)
            #expect(described == ((try? Slug.validateCustom(slug)) != nil), "\(slug)")
        }
    }


    /// The table of error codes at the top of the description, and the `enum` of `ErrorDetail.code`, list exactly the
    /// codes of `APIErrorCode.all`, in its order and each with the status its answers have.
    @Test func theDescriptionListsEveryErrorCodeWithItsStatus() throws {
        // The table: from its header to the first line that is not a row.
        let all = Self.text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(all.firstIndex(of: "    | code | status | when |"))
        let table = all[(header + 2)...].prefix { $0.hasPrefix("    | ") }
        let rows = table.compactMap { line -> (code: String, status: Int)? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            // "    | `code` | status | when |": the first cell is the indentation.
            guard line.hasPrefix("    | `"), cells.count >= 4, let status = Int(cells[2]) else { return nil }
            return (String(cells[1].dropFirst().dropLast()), status)
        }
        #expect(rows.map(\.code) == APIErrorCode.all.map(\.rawValue))
        for row in rows { #expect(APIErrorCode(rawValue: row.code).httpStatus == row.status, "\(row.code)") }
        // The enum is a flow sequence over several lines: from `enum: [` to the line that closes it.
        let lines = Self.schema("ErrorDetail")
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("enum: [") })
        let end = try #require(lines[start...].firstIndex { $0.hasSuffix("]") })
        let listed = lines[start...end].joined().drop { $0 != "[" }
        let names = listed.filter { !"[]".contains($0) }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(names == APIErrorCode.all.map(\.rawValue))
    }
    /// The methods a client may send, as `MethodGuard` knows them.
    static let probed = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"]

    @Test func theDescriptionListsTheRoutes() {
        #expect(Self.paths.count > 30)
        #expect(Self.paths.contains { $0.path == "/v1/links" && $0.methods == ["GET", "POST", "DELETE"] })
        #expect(Self.paths.contains { $0.path == "/" && $0.methods == ["GET"] })
    }

    /// Every path the description lists answers 405 with an `Allow` header naming exactly the methods it lists, for
    /// every other method; only the link paths (`/{slug}`, `/link/{slug}`) answer those with the 404 page, as the
    /// description says.
    @Test func undescribedMethodsAreAnswered405WithAllow() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let pages = ["/{slug}", "/link/{slug}"]
        try await fixture.application().test(.router) { client in
            for (path, methods) in Self.paths {
                let uri = path.replacingOccurrences(of: "{id}", with: "lnk_3fJ9kQ2mX8vB7nL1pR4sT6").replacingOccurrences(of: "{slug}", with: "promo")
                for method in Self.probed where !methods.contains(method) {
                    let response = try await client.execute(uri: uri, method: HTTPRequest.Method(method)!, headers: headers(key: fixture.secret))
                    if pages.contains(path) {
                        #expect(response.status == .notFound, "\(method) \(path)")
                        continue
                    }
                    #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                    let allowed = Set((response.headers[.allow] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    #expect(allowed == methods.subtracting(["HEAD"]), "Allow of \(method) \(path)")
                    if method != "HEAD" { #expect(response.error?.code == .methodNotAllowed, "\(method) \(path)") }
                }
            }
            // Not in the description (the operator's scraper reads it), but answered the same way.
            let metrics = try await client.execute(uri: "/metrics", method: .post, headers: headers())
            #expect(metrics.status == .methodNotAllowed)
            #expect(metrics.headers[.allow] == "GET")
        }
    }

    /// Every method the description lists for a path is routed: with real ids, none answers 405 or the answer of a
    /// path that is not a route.
    @Test func describedMethodsAreRouted() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let created = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                      body: jsonBody(#"{"url": "https://hooks.example.com/ferry"}"#))
            #expect(created.status == .created)
            let webhook = try created.decode(WebhookResponse.self).id
            // Deletions last, so that the other operations still find what they name.
            let ordered = Self.paths.flatMap { path, methods in methods.map { (path: path, method: $0) } }.sorted { ($0.method == "DELETE" ? 1 : 0) < ($1.method == "DELETE" ? 1 : 0) }
            for (path, method) in ordered {
                let id = path.hasPrefix("/v1/webhooks/") ? webhook : link.id
                let uri = path.replacingOccurrences(of: "{id}", with: id).replacingOccurrences(of: "{slug}", with: "promo")
                let body = ["POST", "PATCH"].contains(method) ? jsonBody("{}") : nil
                let response = try await client.execute(uri: uri, method: HTTPRequest.Method(method)!, headers: headers(key: fixture.secret, json: body != nil), body: body)
                #expect(response.status != .methodNotAllowed, "\(method) \(path)")
                #expect(response.error?.message != "no such API route", "\(method) \(path)")
                #expect(!(response.status == .notFound && (response.headers[.contentType] ?? "").hasPrefix("text/html")), "\(method) \(path)")
            }
        }
    }
}
#endif
