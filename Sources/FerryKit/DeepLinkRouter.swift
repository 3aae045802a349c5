import Foundation

/// A URL or a ``DeepLink`` taken apart for routing: its normalised path, its query, its `dl_target` and `screenName`.
///
/// The path is percent-decoded and lowercased, so `https://app.example.com/PayWall/` and `https://app.example.com/paywall`
/// give the same request. For a URL in a custom scheme (anything but `http` and `https`) the host is the first segment:
/// `myapp://product/42` has the path `/product/42`.
///
/// ```swift
/// let request = DeepLinkRequest(url: URL(string: "myapp://Product/42?dl_target=Paywall")!)
/// request.path          // "/product/42"
/// request.pathSegments  // ["product", "42"]
/// request.target        // "paywall"
/// ```
public struct DeepLinkRequest: Sendable, Hashable {
    /// The URL routed on: the URL itself, or ``DeepLink/routingURL`` for a deep link.
    public var url: URL
    /// The path: percent-decoded, lowercased, with a leading `/` and no trailing `/`; `/` when empty.
    ///
    /// It is ``pathSegments`` joined with `/`, so empty segments (`//`) are gone. For a custom-scheme URL the host
    /// is the first segment.
    public var path: String
    /// The non-empty segments of the path, each percent-decoded on its own (an encoded `%2F` stays inside its
    /// segment) and lowercased. A segment whose percent-encoding is not valid UTF-8 is kept as written.
    public var pathSegments: [String]
    /// The query parameters, the first value of a repeated name winning (a name without `=` has the empty value).
    ///
    /// For a deep link: the link's ``DeepLink/params``, with the query of its routing URL on top.
    /// Names are case-sensitive, as in the URL.
    public var query: [String: String]
    /// The `dl_target` parameter, trimmed and lowercased; nil when absent or empty.
    public var target: String?
    /// The `screenName` parameter as written; nil when absent or empty. Looked up case-insensitively in
    /// ``DeepLinkRouter/screens``.
    public var screenName: String?
    /// The deep link the request was made from; nil for a plain URL.
    public var deepLink: DeepLink?
    /// What the matching path pattern captured (`id` for `/product/:id`, `*` for a trailing wildcard).
    /// Empty until the router hands the request to a pattern rule. Captured values keep the case they had in the URL.
    public var pathParameters: [String: String]

    /// The segments with their case as written, for captures (IDs and codes are often case-sensitive).
    private var originalSegments: [String]

    /// A request for `url`: path and query from the URL.
    ///
    /// ```swift
    /// let request = DeepLinkRequest(url: URL(string: "https://app.example.com/YouTube?utm_source=x")!)
    /// request.path  // "/youtube"
    /// ```
    public init(url: URL) {
        self.init(url: url, query: Self.firstValues(of: url), deepLink: nil)
    }

    /// A request for a deep link: routes on ``DeepLink/routingURL``, with the link's ``DeepLink/params`` and that
    /// URL's query on top; `dl_target` and `screenName` are looked up in the merged parameters.
    ///
    /// ```swift
    /// let request = DeepLinkRequest(deepLink: link)  // link.iosURL = myapp://product/42
    /// request.path  // "/product/42"
    /// ```
    public init(deepLink: DeepLink) {
        let url = deepLink.routingURL
        var query = deepLink.params
        for (name, value) in Self.firstValues(of: url) { query[name] = value }
        self.init(url: url, query: query, deepLink: deepLink)
    }

    private init(url: URL, query: [String: String], deepLink: DeepLink?) {
        let original = Self.segments(of: url)
        let lowered = original.map { $0.lowercased() }
        self.url = url
        self.originalSegments = original
        self.pathSegments = lowered
        self.path = "/" + lowered.joined(separator: "/")
        self.query = query
        self.target = Self.normalizedTarget(query[DeepLinkParameter.target])
        self.screenName = query[DeepLinkParameter.screenName].flatMap { $0.isEmpty ? nil : $0 }
        self.deepLink = deepLink
        self.pathParameters = [:]
    }

    /// Segment `index` as written in the URL, or the lowercased segment when the request was edited since.
    func originalSegment(at index: Int) -> String {
        let lowered = pathSegments[index]
        if index < originalSegments.count, originalSegments[index].lowercased() == lowered { return originalSegments[index] }
        return lowered
    }

    /// Original segments `start...` joined with `/` (the part a trailing wildcard matched).
    func originalRemainder(from start: Int) -> String {
        guard start < pathSegments.count else { return "" }
        return (start..<pathSegments.count).map(originalSegment(at:)).joined(separator: "/")
    }

    static func normalizedTarget(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed.lowercased()
    }

    static func firstValues(of url: URL) -> [String: String] {
        var query: [String: String] = [:]
        for (name, value) in URLQuery(url).firstValues { query[name] = value }
        return query
    }

    /// The non-empty, percent-decoded segments of the URL's path, case as written; for a custom scheme the host first.
    static func segments(of url: URL) -> [String] {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let encodedPath = components?.percentEncodedPath ?? url.path
        var segments = splitDecoding(encodedPath)
        let scheme = url.scheme?.lowercased()
        if let scheme, scheme != "http", scheme != "https",
           let host = components?.percentEncodedHost ?? url.host, !host.isEmpty {
            segments.insert(contentsOf: splitDecoding(host), at: 0)
        }
        return segments
    }

    /// Splits on `/`, drops empty parts, percent-decodes each part (keeping it as written when that fails).
    static func splitDecoding(_ encoded: String) -> [String] {
        encoded.split(separator: "/", omittingEmptySubsequences: true).compactMap { part in
            let text = String(part)
            let decoded = text.removingPercentEncoding ?? text
            return decoded.isEmpty ? nil : decoded
        }
    }
}

/// Turns a URL or a ``DeepLink`` into a route of the app, with rules that may depend on the app's state.
///
/// Register rules for paths (`/paywall`, `/product/:id`, `/invite/*`), for `dl_target` values, for query parameters
/// of the app's own (`?page=settings`), and a table of `screenName` values; then ask for the route of each link the app
/// is opened with.
///
/// ```swift
/// struct AppState { var isLoggedIn: Bool; var hasSeenOnboarding: Bool }
/// enum Route: Sendable { case paywall, dashboard, onboarding, product(String); indirect case login(then: Route) }
///
/// var router = DeepLinkRouter<AppState, Route>()
/// router.on(paths: ["/paywall"], targets: ["paywall"]) { _, state in
///     state.isLoggedIn ? .paywall : .login(then: .paywall)
/// }
/// router.on(paths: ["/", "/youtube", "/instagram"], targets: ["dashboard"]) { _, state in
///     if state.isLoggedIn { return .dashboard }
///     return state.hasSeenOnboarding ? .login(then: .dashboard) : .onboarding
/// }
/// router.on(target: "onboarding") { _, _ in .onboarding }
/// router.on(path: "/product/:id") { request, _ in request.pathParameters["id"].map(Route.product) }
/// router.screens = ["Settings": .dashboard]
///
/// let route = router.route(link, state: AppState(isLoggedIn: false, hasSeenOnboarding: true))
/// ```
///
/// ## Precedence
///
/// The candidates for a request are tried in this order, and the first non-nil route wins:
/// 1. rules for the request's ``DeepLinkRequest/target`` (`dl_target`), in registration order;
/// 2. ``screens``, for the request's ``DeepLinkRequest/screenName`` (case-insensitive; an exact-case key first);
/// 3. query rules (``on(query:value:_:)``) whose parameter the request carries, in registration order;
/// 4. exact path rules (patterns without captures or wildcards) for the path, in registration order;
/// 5. pattern rules that match the path, in registration order;
/// 6. the ``otherwise(_:)`` rule.
///
/// A rule that returns nil lets the next candidate try, so a rule can decline a request it cannot serve
/// (`/product/:id` with an id it does not know, say).
///
/// ## Patterns
///
/// Patterns are normalised like paths: percent-decoded, lowercased, a trailing `/` ignored, so matching is
/// case-insensitive. A segment `:name` captures one segment into ``DeepLinkRequest/pathParameters`` (the name keeps
/// its case, the value the case it had in the URL). A `*` as the last segment matches the rest of the path, **including
/// nothing**: `/invite/*` matches `/invite`, `/invite/abc` and `/invite/abc/def`, and captures the rest as `*`
/// (`""`, `abc`, `abc/def`). A `*` elsewhere matches exactly one segment.
public struct DeepLinkRouter<State, Route> {
    /// A rule: the route for a request in a given state, or nil to let the next candidate try.
    public typealias Rule = @Sendable (DeepLinkRequest, State) -> Route?

    private var targetRules: [String: [Rule]] = [:]
    private var queryRules: [(name: String, value: String?, rule: Rule)] = []
    private var exactRules: [[String]: [Rule]] = [:]
    private var patternRules: [(pattern: PathPattern, rule: Rule)] = []
    private var fallback: Rule?

    /// The app's route table for the `screenName` parameter: screen name → route.
    ///
    /// Lookup is case-insensitive (`screenName=settings` finds the key `Settings`); a key of exactly the same case wins.
    /// An unknown name lets the path rules try.
    public var screens: [String: Route] = [:]

    /// An empty router: every request falls through to nil.
    public init() {}

    /// Routes a path pattern (`/paywall`, `/product/:id`, `/invite/*`; see the type's documentation).
    ///
    /// ```swift
    /// router.on(path: "/product/:id") { request, _ in request.pathParameters["id"].map(Route.product) }
    /// ```
    public mutating func on(path pattern: String, _ rule: @escaping Rule) {
        let parsed = PathPattern(pattern)
        if let exact = parsed.exactSegments {
            exactRules[exact, default: []].append(rule)
        } else {
            patternRules.append((parsed, rule))
        }
    }

    /// Routes several path patterns and `dl_target` values with one rule.
    ///
    /// ```swift
    /// router.on(paths: ["/paywall"], targets: ["paywall"]) { _, state in
    ///     state.isLoggedIn ? .paywall : .login(then: .paywall)
    /// }
    /// ```
    public mutating func on(paths: [String], targets: [String] = [], _ rule: @escaping Rule) {
        for path in paths { on(path: path, rule) }
        for target in targets { on(target: target, rule) }
    }

    /// Routes a `dl_target` value (compared trimmed and case-insensitively). Target rules come before every other rule.
    ///
    /// ```swift
    /// router.on(target: "onboarding") { _, _ in .onboarding }
    /// ```
    public mutating func on(target: String, _ rule: @escaping Rule) {
        guard let key = DeepLinkRequest.normalizedTarget(target) else { return }
        targetRules[key, default: []].append(rule)
    }

    /// Routes requests that carry the query parameter `name` (case-sensitive, as in the URL) with a value that is not
    /// empty, or, when `value` is given, with that value (compared trimmed and case-insensitively). Query rules come
    /// after ``screens`` and before path rules, so that a parameter of the app's own wins over a rule for the path:
    /// `https://go.example.com/?page=settings`, a URL on a link domain that is no link, has the path `/`.
    ///
    /// ```swift
    /// router.on(query: "page", value: "settings") { _, _ in .settings }
    /// router.on(query: "product") { request, _ in request.query["product"].map(Route.product) }
    /// ```
    public mutating func on(query name: String, value: String? = nil, _ rule: @escaping Rule) {
        queryRules.append((name, value.flatMap(DeepLinkRequest.normalizedTarget), rule))
    }

    /// The rule for requests no other candidate routed; registering it again replaces it.
    ///
    /// ```swift
    /// router.otherwise { _, state in state.isLoggedIn ? .dashboard : nil }
    /// ```
    public mutating func otherwise(_ rule: @escaping Rule) {
        fallback = rule
    }

    /// The route for a URL, or nil when no rule gives one.
    public func route(_ url: URL, state: State) -> Route? {
        route(DeepLinkRequest(url: url), state: state)
    }

    /// The route for a deep link (routed on its ``DeepLink/routingURL``, with its params), or nil when no rule gives one.
    public func route(_ link: DeepLink, state: State) -> Route? {
        route(DeepLinkRequest(deepLink: link), state: state)
    }

    /// The route for a request, trying the candidates in the order given in the type's documentation.
    public func route(_ request: DeepLinkRequest, state: State) -> Route? {
        var plain = request
        plain.pathParameters = [:]

        if let target = request.target, let rules = targetRules[target] {
            for rule in rules {
                if let route = rule(plain, state) { return route }
            }
        }
        if let name = request.screenName, let route = screen(named: name) {
            return route
        }
        for (name, value, rule) in queryRules {
            guard let actual = DeepLinkRequest.normalizedTarget(request.query[name]), value == nil || value == actual else { continue }
            if let route = rule(plain, state) { return route }
        }
        if let rules = exactRules[request.pathSegments] {
            for rule in rules {
                if let route = rule(plain, state) { return route }
            }
        }
        for (pattern, rule) in patternRules {
            guard let captures = pattern.match(request) else { continue }
            var matched = request
            matched.pathParameters = captures
            if let route = rule(matched, state) { return route }
        }
        return fallback?(plain, state)
    }

    private func screen(named name: String) -> Route? {
        if let route = screens[name] { return route }
        let lowered = name.lowercased()
        // Sorted so that the answer does not depend on dictionary order when two keys differ only in case.
        return screens.keys.sorted().first { $0.lowercased() == lowered }.flatMap { screens[$0] }
    }
}

extension DeepLinkRouter where State == Void {
    /// The route for a URL, for a router whose rules need no state.
    ///
    /// ```swift
    /// var router = DeepLinkRouter<Void, String>()
    /// router.on(path: "/paywall") { _, _ in "paywall" }
    /// router.route(URL(string: "https://app.example.com/PayWall")!)  // "paywall"
    /// ```
    public func route(_ url: URL) -> Route? { route(url, state: ()) }

    /// The route for a deep link, for a router whose rules need no state.
    public func route(_ link: DeepLink) -> Route? { route(link, state: ()) }
}

extension DeepLinkRouter: Sendable where Route: Sendable {}

/// A parsed path pattern.
struct PathPattern: Sendable, Hashable {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case capture(String?)
        case rest
    }

    let segments: [Segment]

    init(_ pattern: String) {
        let parts = DeepLinkRequest.splitDecoding(pattern)
        segments = parts.enumerated().map { index, part in
            if part == "*" { return index == parts.count - 1 ? .rest : .capture(nil) }
            if part.hasPrefix(":") {
                let name = String(part.dropFirst())
                return .capture(name.isEmpty ? nil : name)
            }
            return .literal(part.lowercased())
        }
    }

    /// The lowercased segments when the pattern has neither captures nor wildcards.
    var exactSegments: [String]? {
        var result: [String] = []
        for segment in segments {
            guard case .literal(let text) = segment else { return nil }
            result.append(text)
        }
        return result
    }

    /// The captures when `request`'s path matches, else nil.
    func match(_ request: DeepLinkRequest) -> [String: String]? {
        let path = request.pathSegments
        var captures: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                captures["*"] = request.originalRemainder(from: index)
                return captures
            case .literal(let text):
                guard index < path.count, path[index] == text else { return nil }
            case .capture(let name):
                guard index < path.count else { return nil }
                if let name { captures[name] = request.originalSegment(at: index) }
            }
        }
        return path.count == segments.count ? captures : nil
    }
}
