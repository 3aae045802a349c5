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
        /// A Universal Link on one of the app's link domains, resolved with the server.
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

    /// Creates a deep link (apps rarely need to; tests and previews do).
    public init(
        url: URL, slug: String? = nil, linkID: String? = nil, destination: URL? = nil, iosURL: URL? = nil,
        params: [String: String] = [:], utm: UTMParameters = UTMParameters(), campaign: String? = nil, referrer: String? = nil,
        isDeferred: Bool = false, matchType: MatchType? = nil, confidence: Double? = nil, source: Source, minimumAppVersion: String? = nil
    ) {
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
        let query = URLQuery(url)
        var params: [String: String] = [:]
        for (name, value) in query.firstValues where !DeepLinkParameter.utm.contains(name) { params[name] = value }
        let utm = query.utm(over: UTMParameters())
        self.init(url: url, iosURL: url, params: params, utm: utm, campaign: utm.campaign, source: .customScheme)
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
