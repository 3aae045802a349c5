import Foundation

/// A short link to create on the device, for a user to share: where it leads on the web, what the apps open, how it
/// looks in a chat, and how it routes visitors without the app. Only ``destination`` is required; the preview and
/// routing fields left unset follow the app's settings on the server. Hand it to ``Ferry/shortLink(for:)-swift.method``.
///
/// ```swift
/// var link = LinkBuilder(destination: URL(string: "https://example.com/recipes/42")!)
/// link.iosURL = URL(string: "example://recipes/42")
/// link.params = ["recipeID": "42"]
/// link.referrer = user.id
/// link.utm = UTMParameters(source: "app", medium: "share")
/// link.social = .init(title: "Lemon tart", description: "Ready in 40 minutes",
///                     imageURL: URL(string: "https://example.com/img/tart.jpg"))
/// let url = try await Ferry.shortLink(for: link)   // https://go.example.com/k3v9x2q
/// ```
///
/// The server takes such a link from the app's publishable key only when the app has client links on
/// (`ferry app update APP --client-links on`), and only to URLs inside the app's allowed URL patterns
/// (`--allow-url-pattern`). A publishable key cannot choose the slug or create a disabled link, so the builder has
/// neither. For an app moving from Firebase Dynamic Links: ``destination`` is `DynamicLinkComponents.link`,
/// ``ios`` holds the per-link part of `iOSParameters` (the bundle id and custom scheme are the app's settings),
/// ``android`` that of `androidParameters`, ``social`` the
/// `socialMetaTagParameters`, ``utm`` the `analyticsParameters`, ``appStoreAnalytics`` the
/// `iTunesConnectParameters`, ``skipPreviewPage`` `navigationInfoParameters.isForcedRedirectEnabled` and
/// ``otherPlatformFallbackURL`` `otherPlatformParameters.fallbackUrl`.
///
/// FerryKit checks what it can before sending anything (http or https where a web page is needed, no `javascript:`,
/// `data:` or `file:` URL anywhere, Ferry's length limits) and throws ``FerryError/Code/invalidArgument`` naming the
/// field; the server checks the rest.
public struct LinkBuilder: Sendable, Hashable {
    /// The web page for visitors without the app, and the page desktops open (an absolute `http` or `https` URL).
    /// Required. FerryKit hands it to the app as ``DeepLink/destination`` when the link is opened.
    public var destination: URL
    /// The deep link the iOS app opens: the app's custom scheme (`example://recipes/42`) or an https URL.
    public var iosURL: URL?
    /// The deep link the Android app opens: the app's custom scheme or an https URL.
    public var androidURL: URL?
    /// The link domain to make the link on, one of the app's (`go.example.com`); nil for the app's first domain.
    public var domain: String?
    /// Data for the app, handed over as ``DeepLink/params`` when the link is opened: at most 20 entries, names of
    /// 1 to 64 characters without spaces, values of at most 512 characters, 4,096 characters in all.
    public var params: [String: String]
    /// Campaign parameters (`utm_source`, `utm_medium`, `utm_campaign`, `utm_content`, `utm_term`), at most 128
    /// characters each.
    public var utm: UTMParameters
    /// A campaign name for grouping links in statistics (at most 128 characters).
    public var campaign: String?
    /// Who shares the link (your user id, say), for referral programmes (at most 128 characters).
    public var referrer: String?
    /// What chat apps and social networks show for the link; what is unset comes from the app's defaults.
    public var social: SocialPreview
    /// Where iPhones and iPads without the app go, and what the iOS app needs.
    public var ios: IOSOptions
    /// Where Android phones without the app go, and what the Android app needs.
    public var android: AndroidOptions
    /// Where desktops and other platforms go instead of ``destination`` (an `http` or `https` URL).
    public var otherPlatformFallbackURL: URL?
    /// True sends visitors straight on: no preview page for link-unfurling bots, no page before the App Store.
    /// False keeps the pages; nil follows the app's setting.
    public var skipPreviewPage: Bool?
    /// App Store campaign tokens added to the App Store URL a visitor without the app is sent to.
    public var appStoreAnalytics: AppStoreAnalyticsTokens
    /// When the link stops working (it answers 404 afterwards); nil for never. Must be in the future.
    public var expiresAt: Date?

    /// A link to `destination`, with nothing else set.
    public init(destination: URL) {
        self.destination = destination
        params = [:]
        utm = UTMParameters()
        social = SocialPreview()
        ios = IOSOptions()
        android = AndroidOptions()
        appStoreAnalytics = AppStoreAnalyticsTokens()
    }

    /// The preview shown where the link is shared (Open Graph and Twitter Card tags).
    public struct SocialPreview: Sendable, Hashable {
        /// The title (at most 200 characters, one line).
        public var title: String?
        /// The description (at most 500 characters).
        public var description: String?
        /// The image (an `http` or `https` URL of at most 2,048 characters).
        public var imageURL: URL?

        /// Creates a preview.
        public init(title: String? = nil, description: String? = nil, imageURL: URL? = nil) {
            self.title = title
            self.description = description
            self.imageURL = imageURL
        }
    }

    /// How the link treats iPhones and iPads, overriding the app's settings for this link.
    public struct IOSOptions: Sendable, Hashable {
        /// Where iPhones (and iPads without ``ipadFallbackURL``) without the app go instead of the App Store.
        public var fallbackURL: URL?
        /// Where iPads without the app go.
        public var ipadFallbackURL: URL?
        /// The bundle id of the app that opens the link on iPads, when it is another app (`com.example.app.ipad`).
        public var ipadBundleID: String?
        /// The App Store id of the app to install (`1234567890`), instead of the app's.
        public var appStoreID: String?
        /// The lowest version of the iOS app that can open the link (`2.4.1`), handed to the app as
        /// ``DeepLink/minimumAppVersion``.
        public var minimumVersion: String?

        /// Creates iOS options.
        public init(
            fallbackURL: URL? = nil, ipadFallbackURL: URL? = nil, ipadBundleID: String? = nil, appStoreID: String? = nil,
            minimumVersion: String? = nil
        ) {
            self.fallbackURL = fallbackURL
            self.ipadFallbackURL = ipadFallbackURL
            self.ipadBundleID = ipadBundleID
            self.appStoreID = appStoreID
            self.minimumVersion = minimumVersion
        }
    }

    /// How the link treats Android phones, overriding the app's settings for this link.
    public struct AndroidOptions: Sendable, Hashable {
        /// Where Android phones without the app go instead of the Play Store.
        public var fallbackURL: URL?
        /// The lowest version code of the Android app that can open the link, handed to the app.
        public var minimumVersionCode: Int?

        /// Creates Android options.
        public init(fallbackURL: URL? = nil, minimumVersionCode: Int? = nil) {
            self.fallbackURL = fallbackURL
            self.minimumVersionCode = minimumVersionCode
        }
    }

    /// App Store campaign tokens (App Store Connect's campaign links), at most 128 characters each.
    public struct AppStoreAnalyticsTokens: Sendable, Hashable {
        /// `at`: the affiliate token.
        public var affiliateToken: String?
        /// `ct`: the campaign token.
        public var campaignToken: String?
        /// `mt`: the media type (`8` for apps).
        public var mediaType: String?
        /// `pt`: the provider token.
        public var providerToken: String?

        /// Creates tokens.
        public init(affiliateToken: String? = nil, campaignToken: String? = nil, mediaType: String? = nil, providerToken: String? = nil) {
            self.affiliateToken = affiliateToken
            self.campaignToken = campaignToken
            self.mediaType = mediaType
            self.providerToken = providerToken
        }
    }
}

/// A short link the server created: what ``Ferry/createLink(for:)-swift.method`` returns.
public struct ShortLink: Sendable, Hashable, Codable {
    /// The link's id on the server (`lnk_…`), the ``DeepLink/linkID`` of the link when it is opened.
    public var id: String
    /// The short URL to share, such as `https://go.example.com/k3v9x2q`.
    public var url: URL
    /// The link domain it is on.
    public var domain: String
    /// Its slug (`k3v9x2q`), chosen by the server.
    public var slug: String
    /// When it stops working, if ever.
    public var expiresAt: Date?

    /// Creates a short link (apps rarely need to; tests and previews do).
    public init(id: String, url: URL, domain: String, slug: String, expiresAt: Date? = nil) {
        self.id = id
        self.url = url
        self.domain = domain
        self.slug = slug
        self.expiresAt = expiresAt
    }
}

// MARK: - The request, checked

extension LinkBuilder {
    /// The body of `POST /v1/links` for this link, after the checks that can be made on the device; unset fields are
    /// left out, and so are `slug` and `disabled`, which a publishable key may not send.
    func request(now: Date) throws(FerryError) -> CreateLinkRequest {
        let destination = try LinkCheck.webURLText(self.destination, field: "destination", max: ClientLinkLimits.maxURLLength)
        let iosURL = try LinkCheck.appURL(self.iosURL, field: "iosURL")
        let androidURL = try LinkCheck.appURL(self.androidURL, field: "androidURL")
        let domain = try LinkCheck.domain(self.domain)
        let params = try LinkCheck.params(self.params)
        for (name, value) in [("source", utm.source), ("medium", utm.medium), ("campaign", utm.campaign), ("content", utm.content), ("term", utm.term)] {
            _ = try LinkCheck.text(value, field: "utm.\(name)")
        }
        let campaign = try LinkCheck.text(self.campaign, field: "campaign")
        let referrer = try LinkCheck.text(self.referrer, field: "referrer")
        let preview = SocialMetadata(
            title: try LinkCheck.text(social.title, field: "social.title", max: ClientLinkLimits.maxTitleLength),
            description: try LinkCheck.text(social.description, field: "social.description", max: ClientLinkLimits.maxDescriptionLength, allowNewlines: true),
            imageURL: try LinkCheck.webURL(social.imageURL, field: "social.imageURL", max: ClientLinkLimits.maxURLLength)
        )
        let fallback = ClientLinkLimits.maxURLLength
        let routing = LinkRouting(
            iosFallbackURL: try LinkCheck.webURL(ios.fallbackURL, field: "routing.iosFallbackURL", name: "ios.fallbackURL", max: fallback),
            ipadFallbackURL: try LinkCheck.webURL(ios.ipadFallbackURL, field: "routing.ipadFallbackURL", name: "ios.ipadFallbackURL", max: fallback),
            ipadBundleID: try LinkCheck.bundleID(ios.ipadBundleID),
            appStoreID: try LinkCheck.appStoreID(ios.appStoreID),
            iosMinimumVersion: try LinkCheck.version(ios.minimumVersion),
            androidFallbackURL: try LinkCheck.webURL(android.fallbackURL, field: "routing.androidFallbackURL", name: "android.fallbackURL", max: fallback),
            androidMinimumVersionCode: try LinkCheck.versionCode(android.minimumVersionCode),
            otherPlatformFallbackURL: try LinkCheck.webURL(otherPlatformFallbackURL, field: "routing.otherPlatformFallbackURL",
                                                           name: "otherPlatformFallbackURL", max: fallback),
            skipPreviewPage: skipPreviewPage,
            appStoreAnalytics: try appStoreAnalytics.checked()
        )
        if let expiresAt, expiresAt <= now {
            throw FerryError(.invalidArgument, "expiresAt is not in the future: the link would never open", field: "expiresAt")
        }
        return CreateLinkRequest(
            domain: domain, destination: destination, iosURL: iosURL, androidURL: androidURL, params: params,
            utm: utm.isEmpty ? nil : utm, campaign: campaign, referrer: referrer, social: preview.isEmpty ? nil : preview,
            expiresAt: expiresAt, routing: routing.isEmpty ? nil : routing
        )
    }
}

extension LinkBuilder.AppStoreAnalyticsTokens {
    /// The tokens on the wire, checked; nil when none is set.
    func checked() throws(FerryError) -> AppStoreAnalytics? {
        let tokens = AppStoreAnalytics(
            affiliateToken: try LinkCheck.text(affiliateToken, field: "routing.appStoreAnalytics.affiliateToken", name: "appStoreAnalytics.affiliateToken"),
            campaignToken: try LinkCheck.text(campaignToken, field: "routing.appStoreAnalytics.campaignToken", name: "appStoreAnalytics.campaignToken"),
            mediaType: try LinkCheck.text(mediaType, field: "routing.appStoreAnalytics.mediaType", name: "appStoreAnalytics.mediaType"),
            providerToken: try LinkCheck.text(providerToken, field: "routing.appStoreAnalytics.providerToken", name: "appStoreAnalytics.providerToken")
        )
        return tokens.isEmpty ? nil : tokens
    }
}

/// The checks of a new link that are cheap to make on the device: the server's bounds for links made in the app
/// (`ClientLinkLimits`, shared with it) and the shape of its URL rules, so that most mistakes are reported without a
/// round trip. The server checks again, and checks what only it knows (the app's allowed URL patterns).
/// `field` is the request field as the server names it; `name`, when it differs, the builder's property.
enum LinkCheck {
    static func invalid(_ field: String, _ message: String) -> FerryError {
        FerryError(.invalidArgument, message, field: field)
    }

    /// An absolute `http` or `https` URL with a host and no credentials, as text; nil for none.
    static func webURL(_ url: URL?, field: String, name: String? = nil, max: Int) throws(FerryError) -> String? {
        guard let url else { return nil }
        return try webURLText(url, field: field, name: name, max: max)
    }

    /// An absolute `http` or `https` URL with a host and no credentials, as text.
    static func webURLText(_ url: URL, field: String, name: String? = nil, max: Int) throws(FerryError) -> String {
        let name = name ?? field
        let text = try characters(of: url, field: field, name: name, max: max)
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw invalid(field, "\(name) must be an http or https URL, not \(scheme.isEmpty ? "a URL without a scheme" : "'\(scheme):'")")
        }
        try authority(of: url, field: field, name: name)
        return text
    }

    /// An app deep link: a custom scheme (`myapp://path`) or an `https` URL, as text.
    static func appURL(_ url: URL?, field: String) throws(FerryError) -> String? {
        guard let url else { return nil }
        let text = try characters(of: url, field: field, name: field, max: ClientLinkLimits.maxURLLength)
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            throw invalid(field, "\(field) must be an absolute URL with a scheme, such as myapp://product/42")
        }
        if URLSchemes.forbidden.contains(scheme) { throw invalid(field, "\(field) must not use the '\(scheme):' scheme") }
        if scheme == "http" { throw invalid(field, "\(field) must use https or the app's custom scheme, not http") }
        if scheme == "https" {
            try authority(of: url, field: field, name: field)
        } else if text.utf8.count == scheme.utf8.count + 1 {
            throw invalid(field, "\(field) has a scheme but nothing after it")
        }
        return text
    }

    /// The URL's text: not too long, printable ASCII without spaces, backslashes, quotes or angle brackets.
    private static func characters(of url: URL, field: String, name: String, max: Int) throws(FerryError) -> String {
        let text = url.absoluteString
        if text.isEmpty { throw invalid(field, "\(name) must not be empty") }
        if text.utf8.count > max { throw invalid(field, "\(name) must be at most \(max) characters") }
        let refused: Set<UInt8> = [UInt8(ascii: "\\"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\"")]
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) && !refused.contains($0) }) else {
            throw invalid(field, "\(name) must be ASCII without spaces, control characters, backslashes, quotes or angle brackets: percent-encode them")
        }
        return text
    }

    private static func authority(of url: URL, field: String, name: String) throws(FerryError) {
        guard let host = url.host, !host.isEmpty else { throw invalid(field, "\(name) must name a host, as in https://example.com/path") }
        if url.user != nil || url.password != nil { throw invalid(field, "\(name) must not contain credentials (user@host)") }
    }

    /// Bounded text on one line (newlines allowed where said), without other control characters.
    static func text(
        _ text: String?, field: String, name: String? = nil, max: Int = ClientLinkLimits.maxTextLength, allowNewlines: Bool = false
    ) throws(FerryError) -> String? {
        guard let text else { return nil }
        let name = name ?? field
        if text.unicodeScalars.count > max { throw invalid(field, "\(name) must be at most \(max) characters") }
        for scalar in text.unicodeScalars where scalar.properties.generalCategory == .control {
            if allowNewlines && (scalar == "\n" || scalar == "\r" || scalar == "\t") { continue }
            throw invalid(field, "\(name) must not contain control characters")
        }
        return text
    }

    static func params(_ params: [String: String]) throws(FerryError) -> [String: String]? {
        if params.isEmpty { return nil }
        if params.count > ClientLinkLimits.maxParams { throw invalid("params", "params may have at most \(ClientLinkLimits.maxParams) entries") }
        var total = 0
        for (key, value) in params.sorted(by: { $0.key < $1.key }) {
            if key.isEmpty || key.unicodeScalars.count > ClientLinkLimits.maxParamKeyLength {
                throw invalid("params", "param names must be 1 to \(ClientLinkLimits.maxParamKeyLength) characters")
            }
            if key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) {
                throw invalid("params", "param names must not contain spaces or control characters")
            }
            let field = "params.\(key.prefix(64))"
            if value.unicodeScalars.count > ClientLinkLimits.maxParamValueLength { throw invalid(field, "param values must be at most \(ClientLinkLimits.maxParamValueLength) characters") }
            if value.unicodeScalars.contains("\u{0}") { throw invalid(field, "param values must not contain NUL characters") }
            total += key.unicodeScalars.count + value.unicodeScalars.count
        }
        if total > ClientLinkLimits.maxParamsTotalLength { throw invalid("params", "params may total at most \(ClientLinkLimits.maxParamsTotalLength) characters") }
        return params
    }

    /// A link domain as the server takes it: a host name, lowercased, with an optional port.
    static func domain(_ text: String?) throws(FerryError) -> String? {
        guard let text else { return nil }
        guard let domain = LinkURL.normalizeDomain(text), domain.utf8.count <= 259,
              domain.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ":") })
        else {
            throw invalid("domain", "domain must be one of the app's link domains, such as go.example.com")
        }
        return domain
    }

    static func bundleID(_ text: String?) throws(FerryError) -> String? {
        guard let text else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 155, parts.count >= 2, parts.allSatisfy({ part in
            !part.isEmpty && part.utf8.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }) else {
            throw invalid("routing.ipadBundleID", "ios.ipadBundleID must look like com.example.app")
        }
        return text
    }

    static func appStoreID(_ text: String?) throws(FerryError) -> String? {
        guard let text else { return nil }
        let digits = text.hasPrefix("id") ? text.dropFirst(2) : Substring(text)
        guard (1...12).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw invalid("routing.appStoreID", "ios.appStoreID must be the app's App Store id, digits such as 1234567890")
        }
        return text
    }

    static func version(_ text: String?) throws(FerryError) -> String? {
        guard let text else { return nil }
        guard (1...32).contains(text.utf8.count),
              text.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
            throw invalid("routing.iosMinimumVersion", "ios.minimumVersion must be a version such as 2.4.1 (letters, digits, '.' and '-', at most 32)")
        }
        return text
    }

    static func versionCode(_ code: Int?) throws(FerryError) -> Int? {
        guard let code else { return nil }
        guard (0...2_100_000_000).contains(code) else {
            throw invalid("routing.androidMinimumVersionCode", "android.minimumVersionCode must be 0 to 2100000000")
        }
        return code
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
