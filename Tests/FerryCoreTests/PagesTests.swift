import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

/// Every `name="value"` attribute of every tag in a page, as written.
private func attributes(in html: String) -> [(name: String, value: String)] {
    var result: [(String, String)] = []
    let regex = try! NSRegularExpression(pattern: #"([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*"([^"]*)""#)
    let tags = try! NSRegularExpression(pattern: #"<[^>]*>"#)
    let ns = html as NSString
    for tag in tags.matches(in: html, range: NSRange(location: 0, length: ns.length)) {
        let text = ns.substring(with: tag.range)
        let tagNS = text as NSString
        for match in regex.matches(in: text, range: NSRange(location: 0, length: tagNS.length)) {
            result.append((tagNS.substring(with: match.range(at: 1)), tagNS.substring(with: match.range(at: 2))))
        }
    }
    return result
}

/// Names of all tags opened in a page, lowercased.
private func tagNames(in html: String) -> [String] {
    let regex = try! NSRegularExpression(pattern: #"<([A-Za-z][A-Za-z0-9]*)"#)
    let ns = html as NSString
    return regex.matches(in: html, range: NSRange(location: 0, length: ns.length)).map { ns.substring(with: $0.range(at: 1)).lowercased() }
}

private let hostileTexts = [
    #"<script>alert(1)</script>"#,
    #""><script>alert(1)</script>"#,
    #"' onmouseover='alert(1)"#,
    #"" onerror="alert(1)"#,
    "</title><img src=x onerror=alert(1)>",
    "`${alert(1)}`",
    "&lt;already&gt; & more",
    "line\r\nbreak\u{0}nul\u{1B}esc",
]

/// Checks a rendered page: no tag or attribute came from the hostile text.
private func expectNoInjection(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!html.contains("<script>"), sourceLocation: sourceLocation)
    #expect(!html.contains("<img src=x"), sourceLocation: sourceLocation)
    #expect(!html.contains("\" onerror=\""), sourceLocation: sourceLocation)
    #expect(!html.contains("' onmouseover='"), sourceLocation: sourceLocation)
    #expect(!html.contains("`"), sourceLocation: sourceLocation)
    #expect(!html.contains("\u{0}") && !html.contains("\u{1B}") && !html.contains("\r"), sourceLocation: sourceLocation)
    for attribute in attributes(in: html) {
        #expect(!attribute.name.lowercased().hasPrefix("on"), "event handler \(attribute.name)", sourceLocation: sourceLocation)
    }
    for tag in tagNames(in: html) {
        #expect(["html", "head", "meta", "title", "link", "style", "body", "main", "h1", "p", "a", "img", "script", "noscript"].contains(tag),
                "unexpected tag <\(tag)>", sourceLocation: sourceLocation)
    }
}

/// Whether an attribute value, as a browser reads it (entities decoded, tabs/newlines/controls/spaces ignored), starts with a script scheme.
private func runsScript(_ value: String) -> Bool {
    let decoded = value.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
        .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&#96;", with: "`").replacingOccurrences(of: "&amp;", with: "&")
    let significant = String(String.UnicodeScalarView(decoded.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F })).lowercased()
    let target = significant.hasPrefix("0;url=") ? String(significant.dropFirst(6)) : significant
    return ["javascript:", "vbscript:", "data:"].contains { target.hasPrefix($0) }
}

@Suite("HTML.escape", .takesTurns)
struct HTMLEscapeTests {
    @Test(arguments: [
        ("<script>", "&lt;script&gt;"),
        ("a & b", "a &amp; b"),
        (#"say "hi""#, "say &quot;hi&quot;"),
        ("it's", "it&#39;s"),
        ("`x`", "&#96;x&#96;"),
        ("&amp;", "&amp;amp;"),
        ("tab\tnew\nline", "tab\tnew\nline"),
        ("cr\rnul\u{0}esc\u{1B}", "crnulesc"),
        ("ünïcødé ✓", "ünïcødé ✓"),
        ("javascript:alert(1)", "javascript:alert(1)"),
    ])
    func escapes(text: String, escaped: String) {
        #expect(HTML.escape(text) == escaped)
    }

    @Test(arguments: [
        ("https://acme.com/a?b=1&c=2", "https://acme.com/a?b=1&amp;c=2"),
        ("acme://sale", "acme://sale"),
        ("/relative", "/relative"),
        ("https://acme.com/\"x", "https://acme.com/&quot;x"),
        ("javascript:alert(1)", "#"),
        ("JaVaScRiPt:alert(1)", "#"),
        (" \u{1}java\tscr\nipt:alert(1)", "#"),
        ("vbscript:x", "#"),
        ("data:text/html,x", "#"),
        ("file:///etc/passwd", "#"),
        ("javascript", "javascript"),
    ])
    func attributeURLsRefuseScriptSchemes(url: String, rendered: String) {
        #expect(HTML.attributeURL(url) == rendered)
    }

    @Test func contentSecurityPolicyAllowsNoInlineScript() {
        let csp = HTML.contentSecurityPolicy
        #expect(csp.contains("script-src 'self'"))
        #expect(csp.contains("default-src 'none'"))
        #expect(csp.contains("frame-ancestors 'none'"))
        let scriptDirective = csp.split(separator: ";").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("script-src") }
        #expect(scriptDirective?.contains("unsafe-inline") == false)
    }

    @Test func interstitialScriptPathCannotBeASlug() {
        #expect(HTML.interstitialScriptPath.hasPrefix("/.ferry/"))
        #expect(Slug.normalize(HTML.interstitialScriptPath.dropFirst()) == nil)
    }
}

@Suite("PreviewPage", .takesTurns)
struct PreviewPageTests {
    static func page(title: String = "Sale", description: String? = "50% off", imageURL: String? = "https://acme.com/i.png",
                     destination: String = "https://acme.com/sale?a=1&b=2") -> PreviewPage {
        PreviewPage(title: title, description: description, imageURL: imageURL, shortURL: "https://go.acme.com/summer",
                    destination: destination, siteName: "Acme")
    }

    @Test func rendersOpenGraphAndTwitterTags() {
        let html = Self.page().render()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains(#"<meta property="og:title" content="Sale">"#))
        #expect(html.contains(#"<meta property="og:type" content="website">"#))
        #expect(html.contains(#"<meta property="og:url" content="https://go.acme.com/summer">"#))
        #expect(html.contains(#"<meta property="og:site_name" content="Acme">"#))
        #expect(html.contains(#"<meta property="og:description" content="50% off">"#))
        #expect(html.contains(#"<meta name="description" content="50% off">"#))
        #expect(html.contains(#"<meta property="og:image" content="https://acme.com/i.png">"#))
        #expect(html.contains(#"<meta name="twitter:card" content="summary_large_image">"#))
        #expect(html.contains(#"<meta name="twitter:title" content="Sale">"#))
        #expect(html.contains(#"<meta name="twitter:image" content="https://acme.com/i.png">"#))
        #expect(html.contains(#"<link rel="canonical" href="https://acme.com/sale?a=1&amp;b=2">"#))
        #expect(html.contains(#"<a class="button" href="https://acme.com/sale?a=1&amp;b=2">Continue</a>"#))
        #expect(html.contains("<title>Sale</title>"))
        #expect(!html.contains("<script"))
    }

    @Test func withoutImageOrDescription() {
        let html = Self.page(description: nil, imageURL: nil).render()
        #expect(html.contains(#"<meta name="twitter:card" content="summary">"#))
        #expect(!html.contains("og:image"))
        #expect(!html.contains("og:description"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<p>"))
    }

    @Test(arguments: hostileTexts)
    func escapesHostileText(text: String) {
        let html = Self.page(title: text, description: text).render()
        expectNoInjection(html)
        #expect(html.contains("<h1>\(HTML.escape(text))</h1>"))
        #expect(html.contains("<title>\(HTML.escape(text))</title>"))
    }

    @Test(arguments: [
        "javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "java\nscript:alert(1)",
        "\u{1}javascript:alert(1)", "java\u{0}script:alert(1)", "vbscript:msgbox(1)", "data:text/html,<script>alert(1)</script>",
    ])
    func scriptURLsNeverReachAnAttribute(url: String) {
        let html = Self.page(imageURL: url, destination: url).render()
        for attribute in attributes(in: html) {
            #expect(!runsScript(attribute.value), "\(attribute.name)=\(attribute.value)")
        }
        expectNoInjection(html)
    }

    @Test func quotesInURLsStayInsideTheirAttribute() {
        let html = Self.page(destination: #"https://acme.com/"onclick="alert(1)"#).render()
        #expect(!html.contains(#""onclick=""#))
        #expect(html.contains("https://acme.com/&quot;onclick=&quot;alert(1)"))
        expectNoInjection(html)
    }
}

@Suite("InterstitialPage", .takesTurns)
struct InterstitialPageTests {
    static func page(
        title: String = "Sale", description: String? = "50% off", storeURL: String = "https://apps.apple.com/app/id1",
        isAppStore: Bool = true, openInAppURL: String? = "acme://sale", webURL: String = "https://acme.com/sale",
        autoRedirect: Bool = true, appName: String = "Acme", clickID: String = "clk_1"
    ) -> InterstitialPage {
        InterstitialPage(
            appName: appName, title: title, description: description, imageURL: "https://acme.com/i.png", storeURL: storeURL,
            isAppStore: isAppStore, openInAppURL: openInAppURL, webURL: webURL, clickID: clickID, autoRedirect: autoRedirect,
            inAppBrowser: autoRedirect ? nil : "instagram"
        )
    }

    @Test(arguments: [true, false])
    func carriesNoInlineScript(autoRedirect: Bool) {
        let html = Self.page(autoRedirect: autoRedirect).render()
        let scripts = html.components(separatedBy: "<script").count - 1
        #expect(scripts == 1)
        #expect(html.contains(#"<script src="/.ferry/interstitial.js" defer></script>"#))
        #expect(!html.contains("<script>"))
        #expect(!html.contains("javascript:"))
        for attribute in attributes(in: html) {
            #expect(!attribute.name.lowercased().hasPrefix("on"))
        }
    }

    @Test func autoRedirectingPage() {
        let html = Self.page().render()
        #expect(html.contains(#"data-click="clk_1""#))
        #expect(html.contains(#"data-store="https://apps.apple.com/app/id1""#))
        #expect(html.contains(#"data-auto="1""#))
        #expect(html.contains(#"<noscript><meta http-equiv="refresh" content="0;url=https://apps.apple.com/app/id1"></noscript>"#))
        #expect(html.contains(#"id="ferry-store" href="https://apps.apple.com/app/id1">Get Acme on the App Store</a>"#))
        #expect(html.contains(#"id="ferry-web" href="https://acme.com/sale">Continue on the web</a>"#))
        #expect(!html.contains("ferry-open"), "no Open in app button where Universal Links work")
    }

    @Test func blockedUniversalLinksOfferOpenInApp() {
        let html = Self.page(autoRedirect: false).render()
        #expect(html.contains(#"data-auto="0""#))
        #expect(!html.contains("http-equiv=\"refresh\""))
        #expect(html.contains(#"<a class="button" id="ferry-open" href="acme://sale">Open in Acme</a>"#))
        #expect(html.contains(#"<a class="button secondary" id="ferry-store""#))
        #expect(html.contains("Open in browser"))
    }

    @Test func fallbackStoreSaysContinueAndHidesTheDuplicateWebButton() {
        let html = Self.page(storeURL: "https://acme.com/sale", isAppStore: false).render()
        #expect(html.contains(">Continue</a>"))
        #expect(!html.contains("App Store"))
        #expect(!html.contains("ferry-web"))
    }

    @Test(arguments: hostileTexts)
    func escapesHostileText(text: String) {
        let html = Self.page(title: text, description: text, appName: text, clickID: text).render()
        expectNoInjection(html)
        #expect(html.contains("<h1>\(HTML.escape(text))</h1>"))
        #expect(html.contains("data-click=\"\(HTML.escape(text))\""))
    }

    @Test(arguments: [
        "javascript:alert(1)", "JAVASCRIPT:alert(1)", "  javascript:alert(1)", "java\tscript:alert(1)", "\u{1}javascript:alert(1)",
        "vbscript:msgbox(1)", "data:text/html,<script>alert(1)</script>",
    ])
    func scriptURLsNeverReachAnAttribute(url: String) {
        for autoRedirect in [true, false] {
            let html = Self.page(storeURL: url, openInAppURL: url, webURL: url, autoRedirect: autoRedirect).render()
            for attribute in attributes(in: html) {
                #expect(!runsScript(attribute.value), "\(attribute.name)=\(attribute.value)")
            }
            expectNoInjection(html)
        }
    }

    @Test func customSchemeOpenInAppURLsAreKept() {
        let html = Self.page(openInAppURL: "acme://sale?id=1&x=2", autoRedirect: false).render()
        #expect(html.contains(#"href="acme://sale?id=1&amp;x=2""#))
    }

    @Test func scriptOnlyFollowsHTTPStores() {
        #expect(InterstitialPage.script.contains(#"data-auto"#))
        #expect(InterstitialPage.script.contains(#"/^https?:\/\//"#))
        #expect(InterstitialPage.script.contains("location.replace"))
    }
}

@Suite("StatusPage", .takesTurns)
struct StatusPageTests {
    @Test func standardPages() {
        #expect(StatusPage.notFound.status == 404)
        // A dead link may come back (a PATCH re-enables it), so it is not 410 Gone.
        #expect(StatusPage.expired.status == 404)
        #expect(StatusPage.disabled.status == 404)
        #expect(StatusPage.expired.render().contains("<h1>This link has expired</h1>"))
        #expect(StatusPage.notFound.render().contains("<title>Link not found</title>"))
        #expect(!StatusPage.disabled.render().contains("<script"))
    }

    @Test(arguments: hostileTexts)
    func escapesHostileText(text: String) {
        let html = StatusPage(status: 400, title: text, message: text).render()
        expectNoInjection(html)
        #expect(html.contains("<p>\(HTML.escape(text))</p>"))
    }
}
