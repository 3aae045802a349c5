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
        let clickQuery = QueryString(query ?? "")
        switch client.platform {
        case .bot:
            return .preview(previewPage(link: link, app: app))
        case .iOS:
            return .interstitial(interstitialPage(link: link, app: app, client: client, clickQuery: clickQuery, clickID: clickID))
        case .android:
            if let url = androidURL(link: link, app: app, clickQuery: clickQuery, clickID: clickID) { return .redirect(url) }
            return .redirect(webDestination(link: link, clickQuery: clickQuery))
        case .desktop, .other:
            return .redirect(webDestination(link: link, clickQuery: clickQuery))
        }
    }

    /// The destination with the link's UTM parameters (where the destination has none of its own) and the click's
    /// query on top (the click wins).
    package func webDestination(link: Link, clickQuery: QueryString) -> String {
        var parts = URLParts(link.destination)
        for (name, value) in link.utm.queryItems { parts.query.setIfAbsent(name, value) }
        parts.query.overlay(clickQuery)
        return parts.url
    }

    func previewPage(link: Link, app: App) -> PreviewPage {
        PreviewPage(
            title: link.social.title ?? app.social.title ?? app.name,
            description: link.social.description ?? app.social.description,
            imageURL: link.social.imageURL ?? app.social.imageURL,
            shortURL: link.shortURL, destination: link.destination, siteName: app.name
        )
    }

    func interstitialPage(link: Link, app: App, client: ClientInfo, clickQuery: QueryString, clickID: String) -> InterstitialPage {
        let web = webDestination(link: link, clickQuery: clickQuery)
        let store = app.ios.appStoreURL
        var page = InterstitialPage(
            appName: app.name,
            title: link.social.title ?? app.social.title ?? app.name,
            description: link.social.description ?? app.social.description,
            imageURL: link.social.imageURL ?? app.social.imageURL,
            storeURL: store ?? app.fallbackURL ?? web,
            isAppStore: store != nil,
            openInAppURL: link.iosURL ?? app.ios.urlScheme.map { "\($0)://" },
            webURL: web,
            clickID: clickID,
            // With "copy to open" a tap is needed to write the pasteboard, so the page waits for it.
            autoRedirect: !client.blocksUniversalLinks && !(app.attribution.copyToOpen && store != nil),
            inAppBrowser: client.inAppBrowser,
            copyToken: app.attribution.copyToOpen && store != nil ? "ferry:\(clickID)" : nil
        )
        page.inBlockingBrowser = client.blocksUniversalLinks
        return page
    }

    /// Play Store (with the click id and UTM in `referrer`) or, for a custom-scheme Android link, an intent URL that
    /// opens the app when installed and falls back to the Play Store.
    func androidURL(link: Link, app: App, clickQuery: QueryString, clickID: String) -> String? {
        guard let package = app.android.packageName else { return nil }
        var referrer = QueryString("")
        referrer.set(Self.referrerClickParameter, clickID)
        for (name, value) in link.utm.queryItems { referrer.set(name, value) }
        // Campaign parameters on the click itself (a link shared with ?utm_source=…) win over the link's.
        for name in ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"] {
            if let value = clickQuery.value(of: name) { referrer.set(name, value) }
        }
        let play = "https://play.google.com/store/apps/details?id=\(QueryString.encode(package))&referrer=\(QueryString.encode(referrer.encoded))"
        guard let deepLink = link.androidURL,
              let scheme = try? URLRules.scheme(of: deepLink, field: "androidURL"),
              scheme != "https", scheme != "intent"
        else { return play }
        var rest = deepLink.dropFirst(scheme.utf8.count + 1)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
        return "intent://\(rest)#Intent;scheme=\(scheme);package=\(package);S.browser_fallback_url=\(QueryString.encode(play));end"
    }
}
