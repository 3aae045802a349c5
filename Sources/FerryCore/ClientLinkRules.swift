import FerryAPI
import Foundation

/// What a link made inside the app (a share link, created with a publishable key) may be. A publishable key ships in
/// every copy of the app, so anyone can read it and call the API with it: these rules keep what such a caller can make
/// to what the app's own share button would, so that the app's domain cannot be turned into a redirector to anywhere.
///
/// - The app must have turned client links on (`App.clientLinks`); otherwise 403 `client_links_off`.
/// - The slug is always generated, never chosen, and the link cannot be created disabled.
/// - The destination, both deep links and every fallback must be allowed by the app's `URLAllowlist` (the same list
///   long links follow); a deep link in the app's own URL scheme is allowed too. Otherwise 400 `url_not_allowed`.
/// - The iPad bundle id must be one of the app's, and the App Store id the app's own when it has one.
/// - Params, campaign fields and preview fields are held to smaller bounds than a secret key's (`ClientLinkLimits`).
///
/// Everything else (well-formed URLs, no `javascript:` or `data:` anywhere, the app's domains) is `LinkRules`', which
/// every link follows.
package enum ClientLinkRules {
    /// The checks that come before any other: whether a publishable key may create this link at all.
    package static func admit(_ request: CreateLinkRequest, app: App) throws(ValidationError) {
        guard app.clientLinks else {
            throw ValidationError(
                code: .clientLinksOff, field: nil,
                "this app does not let its publishable keys create links; turn client links on in the dashboard's settings or with 'ferry app update --client-links on'"
            )
        }
        if request.slug != nil {
            throw ValidationError(field: "slug", "a publishable key cannot choose a slug; leave it out and the server makes one")
        }
        if request.disabled != nil {
            throw ValidationError(field: "disabled", "a publishable key cannot create a disabled link; leave 'disabled' out")
        }
    }

    /// The bounds of a link made in the app, checked once `LinkRules` has built it.
    package static func check(_ link: Link, app: App) throws(ValidationError) {
        try checkParams(link.params)
        for (field, text) in [("utm.source", link.utm.source), ("utm.medium", link.utm.medium), ("utm.campaign", link.utm.campaign),
                              ("utm.content", link.utm.content), ("utm.term", link.utm.term), ("campaign", link.campaign),
                              ("referrer", link.referrer)] + Self.tokens(link.routing.appStoreAnalytics) {
            try LinkRules.checkText(text, field: field, max: ClientLinkLimits.maxTextLength)
        }
        try LinkRules.checkText(link.social.title, field: "social.title", max: ClientLinkLimits.maxTitleLength)
        try LinkRules.checkText(link.social.description, field: "social.description", max: ClientLinkLimits.maxDescriptionLength, allowNewlines: true)
        let urls = [("destination", link.destination), ("iosURL", link.iosURL), ("androidURL", link.androidURL),
                    ("social.imageURL", link.social.imageURL)]
            + link.routing.urls.map { ("routing.\($0.field)", $0.value) }
        for case let (field, url?) in urls where url.utf8.count > ClientLinkLimits.maxURLLength {
            throw ValidationError(field: field, "\(field) must be at most \(ClientLinkLimits.maxURLLength) bytes in a link made in the app")
        }
        try checkPlaces(link, app: app)
        if let ipad = link.routing.ipadBundleID, !app.ios.bundleIDs.contains(ipad) {
            throw ValidationError(field: "routing.ipadBundleID", "'\(ipad.prefix(160))' is not one of this app's bundle ids")
        }
        if let store = link.routing.appStoreID, let own = app.ios.appStoreID, store != own {
            throw ValidationError(field: "routing.appStoreID", "a link made in the app can only lead to the app's own App Store page (\(own))")
        }
    }

    /// The App Store tokens of a link's routing, by field.
    static func tokens(_ analytics: AppStoreAnalytics?) -> [(String, String?)] {
        let prefix = "routing.appStoreAnalytics."
        return [(prefix + "affiliateToken", analytics?.affiliateToken), (prefix + "campaignToken", analytics?.campaignToken),
                (prefix + "mediaType", analytics?.mediaType), (prefix + "providerToken", analytics?.providerToken)]
    }

    /// Every URL a visitor may be sent to must be allowed by the app's allowlist; a deep link may also use the app's
    /// own URL scheme (it only ever opens the app).
    static func checkPlaces(_ link: Link, app: App) throws(ValidationError) {
        let allowlist = try URLAllowlist(app: app)
        let ownScheme = app.ios.urlScheme?.lowercased()
        let places: [(field: String, url: String?, deepLink: Bool)] =
            [("destination", link.destination, false), ("iosURL", link.iosURL, true), ("androidURL", link.androidURL, true)]
            + link.routing.urls.map { ("routing.\($0.field)", $0.value, false) }
        for case let (field, url?, deepLink) in places where !allowlist.allows(url) {
            if deepLink, let ownScheme, (try? URLRules.scheme(of: url, field: field)) == ownScheme { continue }
            throw ValidationError(
                code: .urlNotAllowed, field: field,
                allowlist.hasPatterns
                    ? "\(field) leads somewhere this app's allowed URL patterns do not allow"
                    : "\(field) leads off this app's own sites, and the app has no allowed URL patterns for other places (add them with 'ferry app update --allow-url-pattern')"
            )
        }
    }

    static func checkParams(_ params: [String: String]) throws(ValidationError) {
        if params.count > ClientLinkLimits.maxParams { throw ValidationError(field: "params", "a link made in the app may have at most \(ClientLinkLimits.maxParams) params") }
        var total = 0
        for (key, value) in params.sorted(by: { $0.key < $1.key }) {
            if key.unicodeScalars.count > ClientLinkLimits.maxParamKeyLength {
                throw ValidationError(field: "params", "param names of a link made in the app must be at most \(ClientLinkLimits.maxParamKeyLength) characters")
            }
            if value.unicodeScalars.count > ClientLinkLimits.maxParamValueLength {
                throw ValidationError(field: "params.\(key)", "param values of a link made in the app must be at most \(ClientLinkLimits.maxParamValueLength) characters")
            }
            total += key.unicodeScalars.count + value.unicodeScalars.count
        }
        if total > ClientLinkLimits.maxParamsTotalLength {
            throw ValidationError(field: "params", "the params of a link made in the app may total at most \(ClientLinkLimits.maxParamsTotalLength) characters")
        }
    }
}
