import FerryAPI
import Foundation

/// What to answer a click with.
package enum ClickDecision: Sendable, Hashable {
    /// 200 with the preview HTML (link-unfurling bots).
    case preview(PreviewPage)
    /// 200 with the interstitial HTML (iOS without the app, in-app browsers).
    case interstitial(InterstitialPage)
    /// 302 to this URL.
    case redirect(String)
    /// An HTML status page (404 for expired or disabled links).
    case status(StatusPage)

    /// Whether the click should be recorded (visits of dead links are not).
    package var records: Bool {
        if case .status = self { return false }
        return true
    }
}

/// Decides, without I/O, where a click goes: the heart of the edge.
package struct ClickRouter: Sendable {
    /// Name of the Play Store referrer parameter that carries the click id.
    package static let referrerClickParameter = "ferry_click_id"

    /// Creates a router.
    package init() {}

    /// The decision for one click.
    /// - Parameters:
    ///   - link: the link clicked.
    ///   - app: its app.
    ///   - client: the classified user agent.
    ///   - query: the click's own raw query string (without `?`), if any.
    ///   - clickID: the id the click will be stored under.
    ///   - now: the current time.
    package func decide(link: Link, app: App, client: ClientInfo, query: String?, clickID: String, now: Date) -> ClickDecision {
        switch link.status(at: now) {
        case .expired: return .status(.expired)
        case .disabled: return .status(.disabled)
        case .active: break
        }
        var clickQuery = QueryString(query ?? "")
        // A click id in the visitor's URL is another click's (a "copy to open" link pasted in a browser): it is not
        // passed on to where this click goes. Nor is a signed-in person's token: it is for this server alone.
        clickQuery.remove(Self.referrerClickParameter)
        clickQuery.remove(UserClickToken.parameter)
        let routing = link.routing
        switch client.platform {
        case .bot:
            // "Skip the preview page" sends bots on like desktops (FDL's efr=1).
            if routing.skipPreviewPage == true { return .redirect(otherPlatformURL(link: link, clickQuery: clickQuery)) }
            return .preview(previewPage(link: link, app: app))
        case .iOS:
            let page = interstitialPage(link: link, app: app, client: client, clickQuery: clickQuery, clickID: clickID)
            // Straight to the store or fallback when the link skips the page, except where Universal Links are blocked:
            // there the page's "Open in app" is the only way into the app.
            if routing.skipPreviewPage == true && !client.blocksUniversalLinks { return .redirect(page.storeURL) }
            return .interstitial(page)
        case .android:
            if let url = androidURL(link: link, app: app, client: client, clickQuery: clickQuery, clickID: clickID) { return .redirect(url) }
            return .redirect(routing.androidFallbackURL ?? webDestination(link: link, clickQuery: clickQuery))
        case .desktop, .other:
            return .redirect(otherPlatformURL(link: link, clickQuery: clickQuery))
        }
    }

    /// Where desktops and other platforms go: the link's other-platform fallback (FDL's `ofl`) as it is, else the
    /// web destination.
    func otherPlatformURL(link: Link, clickQuery: QueryString) -> String {
        link.routing.otherPlatformFallbackURL ?? webDestination(link: link, clickQuery: clickQuery)
    }

    /// The destination with the link's UTM parameters (where the destination has none of its own) and the click's
    /// query on top (the click wins).
    package func webDestination(link: Link, clickQuery: QueryString) -> String {
        var parts = URLParts(link.destination)
        for (name, value) in link.utm.queryItems { parts.query.setIfAbsent(name, value) }
        // A long link's query is the link itself (`link=…&apn=…`), not parameters for the destination.
        if link.longLink == nil { parts.query.overlay(clickQuery) }
        return parts.url
    }

    /// The page link-unfurling bots get: the link's title, description and image, else the app's.
    package func previewPage(link: Link, app: App) -> PreviewPage {
        PreviewPage(
            title: link.social.title ?? app.social.title ?? app.name,
            description: link.social.description ?? app.social.description,
            imageURL: link.social.imageURL ?? app.social.imageURL,
            shortURL: link.shortURL(in: app), destination: link.destination, siteName: app.name
        )
    }

    func interstitialPage(link: Link, app: App, client: ClientInfo, clickQuery: QueryString, clickID: String) -> InterstitialPage {
        let web = webDestination(link: link, clickQuery: clickQuery)
        let target = iosTarget(link: link, app: app, client: client)
        var page = InterstitialPage(
            appName: app.name,
            title: link.social.title ?? app.social.title ?? app.name,
            description: link.social.description ?? app.social.description,
            imageURL: link.social.imageURL ?? app.social.imageURL,
            storeURL: target.url ?? app.fallbackURL ?? web,
            isAppStore: target.isAppStore,
            openInAppURL: link.iosURL ?? app.ios.urlScheme.map { "\($0)://" },
            webURL: web,
            clickID: clickID,
            // With "copy to open" a tap is needed to write the pasteboard, so the page waits for it.
            autoRedirect: !client.blocksUniversalLinks && !(app.attribution.copyToOpen && target.isAppStore),
            inAppBrowser: client.inAppBrowser,
            copyToken: app.attribution.copyToOpen && target.isAppStore ? "ferry:\(clickID)" : nil
        )
        if page.copyToken != nil { page.copyLink = copyLink(link: link, app: app, clickID: clickID) }
        page.inBlockingBrowser = client.blocksUniversalLinks
        return page
    }

    /// The click as a link for the pasteboard ("copy to open"): the link's short URL carrying
    /// `ferry_click_id=clk_…`. iOS tells a URL on the pasteboard apart without reading it, so the app reads the
    /// pasteboard (and shows the paste prompt) only when it probably holds one; pasted in a browser, it opens the link.
    func copyLink(link: Link, app: App, clickID: String) -> String {
        var url = URLParts(link.shortURL(in: app))
        url.query.set(Self.referrerClickParameter, clickID)
        return url.url
    }

    /// Where an iPhone or iPad without the app goes: the link's fallback for the device (an iPad's own, else the
    /// iPhone's), else the App Store page of the link's or the app's App Store id (with the link's App Store
    /// analytics tokens); nil when there is neither (the app's fallback URL or the web destination is then used).
    func iosTarget(link: Link, app: App, client: ClientInfo) -> (url: String?, isAppStore: Bool) {
        let routing = link.routing
        let fallback = client.appleDevice == "ipad" ? routing.ipadFallbackURL ?? routing.iosFallbackURL : routing.iosFallbackURL
        if let fallback { return (fallback, false) }
        guard let storeID = routing.appStoreID ?? app.ios.appStoreID else { return (nil, false) }
        var store = URLParts("https://apps.apple.com/app/id\(storeID)")
        for (name, value) in routing.appStoreAnalytics?.queryItems ?? [] { store.query.set(name, value) }
        return (store.url, true)
    }

    /// Where an Android visitor goes when the app has a package: the Play Store (with the click id and UTM in
    /// `referrer`), or the link's Android fallback (FDL's `afl`) instead of it; for a custom-scheme Android link, or in
    /// an in-app browser (where App Links do not fire), an `intent://` URL that opens the installed app and falls
    /// back to that page. Nil when the app has no package.
    func androidURL(link: Link, app: App, client: ClientInfo, clickQuery: QueryString, clickID: String) -> String? {
        guard let package = app.android.packageName else { return nil }
        var referrer = QueryString("")
        referrer.set(Self.referrerClickParameter, clickID)
        for (name, value) in link.utm.queryItems { referrer.set(name, value) }
        // Campaign parameters on the click itself (a link shared with ?utm_source=…) win over the link's.
        for name in ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"] {
            if let value = clickQuery.value(of: name) { referrer.set(name, value) }
        }
        let play = "https://play.google.com/store/apps/details?id=\(QueryString.encode(package))&referrer=\(QueryString.encode(referrer.encoded))"
        let withoutApp = link.routing.androidFallbackURL ?? play
        if let deepLink = link.androidURL, let scheme = try? URLRules.scheme(of: deepLink, field: "androidURL"), scheme != "https", scheme != "intent" {
            return Self.intent(deepLink, scheme: scheme, package: package, fallback: withoutApp)
        }
        // In an in-app browser the link's own https URL, as an intent for the app's package: the App Link the browser
        // would not hand over.
        if client.inAppBrowser != nil {
            return Self.intent(link.shortURL(in: app), scheme: ShortURL.scheme(forDomain: link.domain), package: package, fallback: withoutApp)
        }
        return withoutApp
    }

    /// `intent://REST#Intent;scheme=SCHEME;package=PACKAGE;S.browser_fallback_url=FALLBACK;end` for `SCHEME:REST`.
    static func intent(_ url: String, scheme: String, package: String, fallback: String) -> String {
        var rest = url.dropFirst(scheme.utf8.count + 1)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
        return "intent://\(rest)#Intent;scheme=\(scheme);package=\(package);S.browser_fallback_url=\(QueryString.encode(fallback));end"
    }
}
