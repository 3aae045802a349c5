import Foundation

/// A link the app was opened with, or the link that led to its install: everything needed to route the user.
///
/// ```swift
/// if let link = try await Ferry.handleDeepLink(url) {
///     print(link.slug ?? "-", link.params["productID"] ?? "-", link.utm.campaign ?? "-")
/// }
/// ```
public struct DeepLink: Sendable, Hashable, Codable {
    /// How the app came by the link.
    public enum Source: String, Sendable, Hashable, Codable {
        /// A Universal Link on one of the app's link domains: resolved with the server, read from its URL when the
        /// server could not be asked in time, or, for a URL that is no link, read on the device.
        case universalLink
        /// A URL in the app's own custom scheme, parsed on the device.
        case customScheme
        /// The link clicked before the install, found on the first launch.
        case deferred
    }

    /// The URL the app was opened with; for a deferred link, the short URL that was clicked.
    public var url: URL
    /// The short link's slug (`summer` in `https://go.example.com/summer`); nil for a custom-scheme URL.
    public var slug: String?
    /// The link's id on the server (`lnk_…`); nil for a custom-scheme URL.
    public var linkID: String?
    /// The web destination of the link.
    public var destination: URL?
    /// The iOS deep link of the link (`myapp://product/42`); for a custom-scheme URL, that URL itself.
    public var iosURL: URL?
    /// Data for the app: the link's params, with the query of the URL it was opened with on top
    /// (the `utm_*` parameters go to ``utm`` instead).
    public var params: [String: String]
    /// Campaign parameters: the link's, with `utm_*` query parameters of the opened URL on top.
    public var utm: UTMParameters
    /// The link's campaign name.
    public var campaign: String?
    /// Who shared the link, for referral programmes.
    public var referrer: String?
    /// True when the link was clicked before the app was installed and delivered on the first launch.
    public var isDeferred: Bool
    /// How a deferred link was tied to this install; nil for links the app was opened with.
    public var matchType: MatchType?
    /// How sure the server is that a deferred link belongs to this install, 0…1 (1 when deterministic);
    /// nil for links the app was opened with.
    public var confidence: Double?
    /// How the app came by the link.
    public var source: Source
    /// The lowest version of the app the link's owner says can open it (Firebase Dynamic Links' `imv`), such as
    /// `2.4.1`; nil when the link names none. An older app can ask the user to update before routing.
    ///
    /// ```swift
    /// if let minimum = link.minimumAppVersion, appVersion.compare(minimum, options: .numeric) == .orderedAscending {
    ///     showUpdatePrompt()
    /// }
    /// ```
    public var minimumAppVersion: String?
    /// True when the link is complete: resolved by the server (a short link, a long link, a deferred link), or read
    /// whole on the device (a URL in the app's custom scheme, or a URL on a link domain that is no short or long link,
    /// which holds nothing more than its URL says).
    ///
    /// False for a Universal Link that ``Ferry/handleDeepLink(_:)`` could not resolve in time (no network, a timeout,
    /// a server failure): the link is then read from its URL alone, so the app can still route the user.
    /// ``source`` is ``Source/universalLink``, ``linkID``, ``iosURL`` and ``referrer`` are nil, ``params`` and ``utm`` are
    /// the URL's query (without the link's own data), ``campaign`` is `utm_campaign`, and ``slug`` is the path as
    /// read from the URL (on a domain with a path prefix, the prefix included). For a long link, ``destination`` is
    /// its `link` when that is an `http` or `https` URL, and ``minimumAppVersion`` its `imv`.
    ///
    /// The `link` of a long link that was not resolved has not been checked against the app's allowed URL patterns
    /// on the server: route on it inside the app, but do not open it in a web view or a browser without your own check.
    ///
    /// ```swift
    /// if let link = try await Ferry.handleDeepLink(url) {
    ///     router.open(link)
    ///     if !link.isResolved { analytics.log("opened offline") }
    /// }
    /// ```
    public var isResolved: Bool {
        get { notResolved != true }
        set { notResolved = newValue ? nil : true }
    }
    /// What ``isResolved`` says, kept so that a link stored before it existed reads as resolved (nil).
    var notResolved: Bool?

    /// Creates a deep link (apps rarely need to; tests and previews do).
    public init(
        url: URL, slug: String? = nil, linkID: String? = nil, destination: URL? = nil, iosURL: URL? = nil,
        params: [String: String] = [:], utm: UTMParameters = UTMParameters(), campaign: String? = nil, referrer: String? = nil,
        isDeferred: Bool = false, matchType: MatchType? = nil, confidence: Double? = nil, source: Source, minimumAppVersion: String? = nil,
        isResolved: Bool = true
    ) {
        notResolved = isResolved ? nil : true
        self.minimumAppVersion = minimumAppVersion
        self.url = url
        self.slug = slug
        self.linkID = linkID
        self.destination = destination
        self.iosURL = iosURL
        self.params = params
        self.utm = utm
        self.campaign = campaign
        self.referrer = referrer
        self.isDeferred = isDeferred
        self.matchType = matchType
        self.confidence = confidence
        self.source = source
    }

    /// The in-app destination named by a `dl_target` parameter (`paywall`, `dashboard`), lowercased.
    public var target: String? { params[DeepLinkParameter.target].map { $0.lowercased() } }

    /// The URL that says where to go in the app: the iOS deep link when there is one, else the web destination,
    /// else the URL the app was opened with.
    public var routingURL: URL { iosURL ?? destination ?? url }
}

/// Query parameter names FerryKit gives a meaning to.
public enum DeepLinkParameter {
    /// `dl_target`: the in-app destination, chosen without adding paths to the association file.
    public static let target = "dl_target"
    /// `screenName`: a screen of the app's own route table.
    public static let screenName = "screenName"
    /// The five campaign parameters, in their conventional order.
    public static let utm = ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"]
}

extension DeepLink {
    /// A link resolved by the server, with the query of the URL it was opened with laid over the link's own data
    /// (for a long link, whose query is the link itself, only the parameters that are not Firebase Dynamic Links'
    /// own: the server has already read those).
    init(link: LinkData, openedURL: URL?, deferred: MatchResponse?, openedQueryIsTheLink: Bool = false) {
        let shortURL = URL(string: link.url)
        let opened = openedURL ?? shortURL ?? URL(string: "about:blank")!
        var params = link.params
        var utm = link.utm
        if let openedURL {
            let query = URLQuery(openedURL)
            if !openedQueryIsTheLink { utm = query.utm(over: utm) }
            let longLinkParameters: Set<String> = openedQueryIsTheLink ? Set(LongLinkParameters.all) : []
            for (name, value) in query.firstValues where !DeepLinkParameter.utm.contains(name) {
                if longLinkParameters.contains(name) { continue }
                params[name] = value
            }
        }
        self.init(
            url: opened, slug: link.slug, linkID: link.id, destination: URL(string: link.destination), iosURL: link.iosURL.flatMap(URL.init(string:)),
            params: params, utm: utm, campaign: link.campaign, referrer: link.referrer,
            isDeferred: deferred != nil, matchType: deferred?.matchType, confidence: deferred?.confidence,
            source: deferred != nil ? .deferred : .universalLink, minimumAppVersion: link.iosMinimumVersion)
    }

    /// A custom-scheme URL, read on the device: its query becomes params and campaign parameters.
    init(customSchemeURL url: URL) {
        self.init(readingQueryOf: url, iosURL: url, source: .customScheme)
    }

    /// One of the app's own Universal Links: a URL on a link domain that is no short or long link, read on the device
    /// and complete as it is.
    init(linkDomainURL url: URL) {
        self.init(readingQueryOf: url, source: .universalLink)
    }

    /// A short or long link the server could not be asked about in time, read from its URL (see ``isResolved``):
    /// `slug` for a short link, nil for a long link, whose `link` becomes the destination and whose Firebase Dynamic
    /// Links parameters stay out of the params but `gclid`, as the server reads them.
    init(unresolvedURL url: URL, slug: String?) {
        if slug != nil {
            self.init(readingQueryOf: url, source: .universalLink)
            self.slug = slug
        } else {
            self.init(readingQueryOf: url, excluding: Set(LongLinkParameters.all).subtracting(["gclid"]), source: .universalLink)
            let query = URLQuery(url)
            destination = query.value("link").flatMap(URL.init(string:)).flatMap { ["http", "https"].contains($0.scheme?.lowercased()) ? $0 : nil }
            minimumAppVersion = query.value("imv").flatMap { $0.isEmpty ? nil : $0 }
        }
        isResolved = false
    }

    /// A URL read on the device: its `utm_*` parameters become ``utm`` (and `utm_campaign` the campaign), the others
    /// but `excluded` ``params``.
    private init(readingQueryOf url: URL, excluding excluded: Set<String> = [], iosURL: URL? = nil, source: Source) {
        let query = URLQuery(url)
        var params: [String: String] = [:]
        for (name, value) in query.firstValues where !DeepLinkParameter.utm.contains(name) && !excluded.contains(name) { params[name] = value }
        let utm = query.utm(over: UTMParameters())
        self.init(url: url, iosURL: iosURL, params: params, utm: utm, campaign: utm.campaign, source: source)
    }
}

/// The query of a URL, decoded, the first value of a repeated name winning.
struct URLQuery {
    let items: [URLQueryItem]

    init(_ url: URL) {
        items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    }

    /// Each name once, with its first value (a name without `=` has the empty value).
    var firstValues: [(String, String)] {
        var seen = Set<String>()
        var result: [(String, String)] = []
        for item in items where !item.name.isEmpty && seen.insert(item.name).inserted {
            result.append((item.name, item.value ?? ""))
        }
        return result
    }

    func value(_ name: String) -> String? { items.first { $0.name == name }.map { $0.value ?? "" } }

    /// `base` with each `utm_*` parameter present (and not empty) in the query put over it.
    func utm(over base: UTMParameters) -> UTMParameters {
        var utm = base
        func take(_ name: String) -> String? { value(name).flatMap { $0.isEmpty ? nil : $0 } }
        if let v = take("utm_source") { utm.source = v }
        if let v = take("utm_medium") { utm.medium = v }
        if let v = take("utm_campaign") { utm.campaign = v }
        if let v = take("utm_content") { utm.content = v }
        if let v = take("utm_term") { utm.term = v }
        return utm
    }
}
