#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// Firebase Dynamic Links' REST API, answered by Ferry: an app or a server that called
/// `firebasedynamiclinks.googleapis.com` moves by changing the host and the key.
///
/// - `POST /v1/shortLinks?key=KEY` makes a short link from `{"longDynamicLink": …}` or from
///   `{"dynamicLinkInfo": {…}}` (each field is the long link parameter FDL documents for it), with
///   `{"suffix": {"option": "SHORT" | "UNGUESSABLE"}}`, and answers `{"shortLink", "previewLink", "warning"}`. A
///   publishable key makes a link in the app (`ClientLinkRules`); a secret key any link of its app (and a `CUSTOM`
///   suffix). The same request within a day answers the same short link, as FDL did.
/// - `GET /v1/{shortLink}/linkStats?durationDays=N` (the short link percent-encoded as one path segment) answers
///   FDL's `linkEventStats`, with a secret key.
///
/// Errors come in Google's shape, `{"error": {"code": 400, "message": …, "status": "INVALID_ARGUMENT"}}`.
struct FirebaseRESTController: Sendable {
    static let shortLinks = "/v1/shortLinks"

    let links: LinkEditor
    let reports: Reports
    let authenticator: KeyAuthenticator
    let errors: ErrorMiddleware
    let maxBodyBytes: Int
    let now: @Sendable () -> Date

    func register(on router: Router<FerryRequestContext>) {
        router.post(RouterPath(Self.shortLinks)) { request, context in
            try await FirebaseEnvelope.wrap(request, errors: errors) { try await create(request, context: context) }
        }
    }

    /// The short link of a `/v1/{shortLink}/linkStats` path. The router cannot hold that route beside the API's
    /// catch-all for unknown `/v1/` paths, so the catch-all asks this first (see `apiFallback`).
    static func linkStatsSegment(_ path: String) -> Substring? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if parts.last == "" { parts = parts.dropLast() }
        guard parts.count == 3, parts.first == "v1", parts.last == "linkStats", !parts[parts.startIndex + 1].isEmpty else { return nil }
        return parts[parts.startIndex + 1]
    }

    /// What an unknown `/v1/` path gets: `GET /v1/{shortLink}/linkStats` is answered, any other method there 405, and
    /// every other path 404.
    func apiFallback(_ request: Request) async throws -> Response {
        guard let shortLink = Self.linkStatsSegment(request.uri.path) else { throw APIError(.notFound, message: "no such API route") }
        guard request.method == .get || request.method == .head else {
            throw APIError(.methodNotAllowed, message: "use GET on this route", headers: [.allow: "GET"])
        }
        return try await FirebaseEnvelope.wrap(request, errors: errors) { try await stats(request, shortLink: String(shortLink)) }
    }

    /// The key of a request: `?key=` as FDL took it, or a header as the rest of the API does.
    func authenticate(_ request: Request, requiring kind: APIKeyKind? = nil, scope: APIKeyScope?) async throws -> AuthenticatedKey {
        guard let text = RequestLimits.presentedKey(request) else {
            throw APIError(.unauthorized, message: "send a Ferry API key as the 'key' query parameter, 'Authorization: Bearer KEY' or 'x-api-key: KEY'")
        }
        return try await authenticator.authenticate(key: text, requiring: kind, scope: scope)
    }

    func create(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticate(request, scope: .linksWrite)
        let publishable = auth.key.kind == .publishable
        let limit = publishable ? min(maxBodyBytes, ClientLinkLimits.maxBodyBytes) : maxBodyBytes
        let body = try await JSONBody.decode(JSONValue.self, from: request, limit: limit)
        var shortLink = try FirebaseShortLinkRequest(body)
        let target = try shortLink.target(app: auth.app)
        var create = try shortLink.createRequest(app: auth.app)
        create.domain = target.domain
        let made: (link: Link, created: Bool)
        switch shortLink.suffix {
        case .custom(let slug):
            guard !publishable else {
                throw APIError(.invalidField, message: "a CUSTOM suffix needs a secret key; an app's key makes SHORT or UNGUESSABLE links", field: "suffix.option")
            }
            create.slug = slug
            made = try await links.createOnce(create, app: auth.app, environment: auth.key.environment, inApp: false,
                                              by: authenticator.actor(auth, request: request, context: context))
        case .generated(let length):
            made = try await links.createOnce(create, app: auth.app, environment: auth.key.environment, slugLength: length, inApp: publishable,
                                              by: authenticator.actor(auth, request: request, context: context))
        }
        let url = made.link.shortURL(in: auth.app)
        return try JSONBody.response(FirebaseShortLinkResponse(shortLink: url, previewLink: url + "?d=1", warning: shortLink.warnings))
    }

    func stats(_ request: Request, shortLink encoded: String) async throws -> Response {
        let auth = try await authenticate(request, requiring: .secret, scope: .statsRead)
        // Percent-encoded once as FDL's clients send it; twice by clients that encode the segment again.
        var text = encoded
        for _ in 0..<2 where !text.contains("://") { text = text.removingPercentEncoding ?? text }
        guard text.utf8.count <= 2048, let url = URLComponents(string: text), let host = url.host?.lowercased(), url.scheme != nil else {
            throw APIError(.invalidField, message: "the short link must be a whole URL such as https://go.example.com/abc, percent-encoded as one path segment", field: "shortLink")
        }
        let port = url.port.map { ":\($0)" } ?? ""
        guard let domain = auth.app.linkDomain(forHost: host + port), auth.app.domains.contains(domain) else {
            throw APIError(.forbidden, message: "this key's app does not own the link domain \(host.prefix(253))")
        }
        var days = 30
        if let value = request.uri.queryParameters["durationDays"] {
            guard value.utf8.count <= 4, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let number = Int(String(value)), (1...StatsRange.maxDays).contains(number) else {
                throw APIError(.invalidField, message: "durationDays must be a whole number from 1 to \(StatsRange.maxDays)", field: "durationDays")
            }
            days = number
        }
        // The link under its slug (after the domain's path prefix); an unknown one has no events, as FDL answered.
        var path = Substring(url.path)
        if let prefix = auth.app.pathPrefixes[domain] {
            guard path.hasPrefix(prefix + "/") else { return try JSONBody.response(FirebaseLinkStats(linkEventStats: [])) }
            path = path.dropFirst(prefix.count)
        }
        guard let slug = Slug.normalize(path.drop { $0 == "/" }), let link = try await links.existing(domain: domain, slug: slug),
              link.appID == auth.app.id, link.environment == auth.key.environment else {
            return try JSONBody.response(FirebaseLinkStats(linkEventStats: []))
        }
        let today = StatsRollup.day(of: now())
        let report = try await reports.stats(app: auth.app, environment: auth.key.environment, link: link,
                                             range: StatsRange(fromDay: today - days + 1, toDay: today))
        return try JSONBody.response(FirebaseLinkStats(report: report))
    }
}

/// A `POST /v1/shortLinks` body, read: the long link it stands for (as a query of FDL parameters), where it lives,
/// the suffix asked for, and the warnings of what was ignored.
struct FirebaseShortLinkRequest {
    /// How the short link's path is made.
    enum Suffix: Equatable {
        /// A random slug of this many characters: `SHORT` (Ferry's usual length) or `UNGUESSABLE` (FDL's 17).
        case generated(length: Int)
        /// `CUSTOM`: the slug given.
        case custom(String)
    }

    /// Where each field of `dynamicLinkInfo` goes: the long link parameter FDL documents for it.
    static let parameters: [String: [String: String]] = [
        "": ["link": "link"],
        "androidInfo": ["androidPackageName": "apn", "androidFallbackLink": "afl", "androidMinPackageVersionCode": "amv", "androidLink": "al"],
        "iosInfo": [
            "iosBundleId": "ibi", "iosFallbackLink": "ifl", "iosCustomScheme": "ius", "iosIpadFallbackLink": "ipfl", "iosIpadBundleId": "ipbi",
            "iosAppStoreId": "isi", "iosMinimumVersion": "imv",
        ],
        "navigationInfo": ["enableForcedRedirect": "efr"],
        "googlePlayAnalytics": [
            "utmSource": "utm_source", "utmMedium": "utm_medium", "utmCampaign": "utm_campaign", "utmTerm": "utm_term",
            "utmContent": "utm_content", "gclid": "gclid",
        ],
        "itunesConnectAnalytics": ["at": "at", "ct": "ct", "mt": "mt", "pt": "pt"],
        "socialMetaTagInfo": ["socialTitle": "st", "socialDescription": "sd", "socialImageLink": "si"],
        "desktopInfo": ["desktopFallbackLink": "ofl"],
    ]
    /// The length of an `UNGUESSABLE` suffix, FDL's.
    static let unguessableLength = 17

    /// The FDL parameters, as `LongLink` reads them.
    private(set) var query = QueryString("")
    /// `domainUriPrefix` (or the long link's scheme, host and path; or `https://` and `dynamicLinkDomain`).
    private(set) var prefix: String?
    /// The Android deep link (`androidInfo.androidLink`, FDL's `al`), which long links do not carry.
    private(set) var androidLink: String?
    private(set) var suffix = Suffix.generated(length: unguessableLength)
    /// What was ignored, said as FDL's warnings.
    private(set) var warnings: [FirebaseWarning] = []

    init(_ body: JSONValue) throws {
        guard case .object(let fields) = body else { throw Self.invalid("the body must be a JSON object") }
        for name in fields.keys.sorted() where !["longDynamicLink", "dynamicLinkInfo", "suffix", "sdkVersion"].contains(name) {
            warnings.append(.unrecognized(name))
        }
        switch (fields["longDynamicLink"], fields["dynamicLinkInfo"]) {
        case (.string(let long)?, nil):
            try readLongLink(long)
        case (nil, .object(let info)?):
            try readInfo(info)
        case (nil, nil):
            throw Self.invalid("send either longDynamicLink or dynamicLinkInfo")
        case (.some, .some):
            throw Self.invalid("send either longDynamicLink or dynamicLinkInfo, not both")
        default:
            throw Self.invalid("longDynamicLink must be a string and dynamicLinkInfo an object")
        }
        if let value = fields["suffix"] { try readSuffix(value) }
    }

    static func invalid(_ message: String, field: String? = nil) -> APIError {
        APIError(.invalidField, message: message, field: field)
    }

    private mutating func readLongLink(_ text: String) throws {
        guard text.utf8.count <= LongLink.maxQueryBytes, let mark = text.firstIndex(of: "?"), let url = URLComponents(string: String(text[..<mark])),
              let scheme = url.scheme, url.host != nil else {
            throw Self.invalid("Long link is not parsable: \(text.prefix(200))", field: "longDynamicLink")
        }
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        prefix = "\(scheme)://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")\(path)"
        query = QueryString(String(text[text.index(after: mark)...]), maxItems: 200, maxBytes: LongLink.maxQueryBytes)
        let known = Set(LongLink.parameters + ["al"])
        for item in query.items where !known.contains(QueryString.decode(Substring(item.name))) {
            warnings.append(.unrecognized(QueryString.decode(Substring(item.name))))
        }
        androidLink = query.value(of: "al")
    }

    private mutating func readInfo(_ info: [String: JSONValue]) throws {
        for (name, value) in info.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "domainUriPrefix":
                guard case .string(let text) = value else { throw Self.invalid("dynamicLinkInfo.domainUriPrefix must be a string", field: "dynamicLinkInfo.domainUriPrefix") }
                prefix = text
            case "dynamicLinkDomain":
                guard case .string(let text) = value else { throw Self.invalid("dynamicLinkInfo.dynamicLinkDomain must be a string", field: "dynamicLinkInfo.dynamicLinkDomain") }
                if info["domainUriPrefix"] == nil { prefix = "https://" + text }
            case "link":
                try set(name, value, parameter: "link", field: "dynamicLinkInfo.link")
            case "analyticsInfo":
                guard case .object(let groups) = value else { throw Self.invalid("dynamicLinkInfo.analyticsInfo must be an object", field: "dynamicLinkInfo.analyticsInfo") }
                for (group, fields) in groups.sorted(by: { $0.key < $1.key }) {
                    try readGroup(group, fields, field: "dynamicLinkInfo.analyticsInfo.\(group)")
                }
            default:
                try readGroup(name, value, field: "dynamicLinkInfo.\(name)")
            }
        }
        guard prefix != nil else {
            throw Self.invalid("Invalid Dynamic Link domain: send dynamicLinkInfo.domainUriPrefix, such as https://go.example.com", field: "dynamicLinkInfo.domainUriPrefix")
        }
        guard query.value(of: "link") != nil else { throw Self.invalid("dynamicLinkInfo.link is required", field: "dynamicLinkInfo.link") }
    }

    private mutating func readGroup(_ group: String, _ value: JSONValue, field: String) throws {
        guard let names = Self.parameters[group], group != "" else {
            warnings.append(.unrecognized(field))
            return
        }
        guard case .object(let fields) = value else { throw Self.invalid("\(field) must be an object", field: field) }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard let parameter = names[name] else {
                warnings.append(.unrecognized("\(field).\(name)"))
                continue
            }
            try set(name, value, parameter: parameter, field: "\(field).\(name)")
        }
    }

    /// One field as its parameter: strings as they are, `enableForcedRedirect` as `1`/`0`, a version code as a
    /// string or a number (proto3 JSON takes both).
    private mutating func set(_ name: String, _ value: JSONValue, parameter: String, field: String) throws {
        let text: String
        switch value {
        case .string(let string): text = string
        case .bool(let flag) where parameter == "efr": text = flag ? "1" : "0"
        case .number(let number) where parameter == "amv":
            // Whole numbers as digits; anything else as written, for the long link's own rule to refuse (after the
            // domain is checked, as for every parameter).
            text = number.rounded() == number && abs(number) < 9e18 ? String(Int64(number)) : String(number)
        case .null: return
        default: throw Self.invalid("\(field) must be a \(parameter == "efr" ? "boolean" : "string")", field: field)
        }
        if parameter == "al" {
            androidLink = text
        } else {
            query.set(parameter, text)
        }
    }

    private mutating func readSuffix(_ value: JSONValue) throws {
        guard case .object(let fields) = value else { throw Self.invalid("suffix must be an object", field: "suffix") }
        let option: String
        switch fields["option"] {
        case nil, .null?: option = "UNGUESSABLE"
        case .string(let text)?: option = text
        default: throw Self.invalid("suffix.option must be SHORT, UNGUESSABLE or CUSTOM", field: "suffix.option")
        }
        switch option {
        case "SHORT": suffix = .generated(length: Slug.generatedLength)
        case "UNGUESSABLE", "OPTION_UNSPECIFIED": suffix = .generated(length: Self.unguessableLength)
        case "CUSTOM":
            guard case .string(let custom)? = fields["customSuffix"], !custom.isEmpty else {
                throw Self.invalid("a CUSTOM suffix needs suffix.customSuffix", field: "suffix.customSuffix")
            }
            suffix = .custom(custom)
        default:
            throw Self.invalid("suffix.option must be SHORT, UNGUESSABLE or CUSTOM, not '\(option.prefix(40))'", field: "suffix.option")
        }
    }

    /// The app's link domain the prefix names, which must be one of its own (with its path prefix, if it has one):
    /// otherwise 404, checked before the long link's parameters.
    mutating func target(app: App) throws -> (domain: String, prefix: String?) {
        let text = prefix ?? ""
        guard let url = URLComponents(string: text), let host = url.host?.lowercased(), ["http", "https"].contains(url.scheme?.lowercased()) else {
            throw Self.invalid("Invalid Dynamic Link domain: '\(text.prefix(200))' is not a URL such as https://go.example.com", field: "dynamicLinkInfo.domainUriPrefix")
        }
        let hostAndPort = host + (url.port.map { ":\($0)" } ?? "")
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        // As for `POST /v1/links`, a well-formed domain of no link of this app is not found for this key.
        guard let domain = [hostAndPort, host].first(where: app.domains.contains), (app.pathPrefixes[domain] ?? "") == path else {
            throw APIError(.notFound, message: "Your project does not own Dynamic Links domain: \(text.prefix(200))", field: "dynamicLinkInfo.domainUriPrefix")
        }
        return (domain, app.pathPrefixes[domain])
    }

    /// The link request the long link stands for, with FDL's warnings for what Ferry does differently.
    mutating func createRequest(app: App) throws -> CreateLinkRequest {
        let longLink: LongLink
        do { longLink = try LongLink(query: query.encoded) } catch { throw Self.refusal(error) }
        var request: CreateLinkRequest
        do { request = try longLink.request(app: app) } catch { throw Self.refusal(error) }
        request.androidURL = androidLink
        if let scheme = longLink.values["ius"], scheme.lowercased() != app.ios.urlScheme?.lowercased() {
            warnings.append(FirebaseWarning(
                warningCode: "UNNECESSARY_IOS_URL_SCHEME",
                warningMessage: "iosCustomScheme is not used: the app opens with the URL scheme set in its settings (\(app.ios.urlScheme ?? "none"))"
            ))
        }
        return request
    }

    static func refusal(_ error: LongLinkRefusal) -> APIError {
        APIError(.invalidField, message: error.message, field: error.parameter)
    }
}

/// One of FDL's warnings: a code from its list and a sentence.
struct FirebaseWarning: Codable, Sendable, Hashable {
    var warningCode: String
    var warningMessage: String

    static func unrecognized(_ name: String) -> FirebaseWarning {
        FirebaseWarning(warningCode: "UNRECOGNIZED_PARAM", warningMessage: "Unrecognized param '\(name.prefix(100))' was ignored")
    }
}

/// The answer of `POST /v1/shortLinks`.
struct FirebaseShortLinkResponse: Encodable {
    var shortLink: String
    var previewLink: String
    /// Left out when empty, as FDL left out empty lists.
    var warning: [FirebaseWarning]

    private enum CodingKeys: String, CodingKey { case shortLink, previewLink, warning }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(shortLink, forKey: .shortLink)
        try c.encode(previewLink, forKey: .previewLink)
        if !warning.isEmpty { try c.encode(warning, forKey: .warning) }
    }
}

/// The answer of `GET /v1/{shortLink}/linkStats`: FDL's events, each count a string (an int64 in Google's JSON).
struct FirebaseLinkStats: Encodable {
    struct Stat: Encodable, Equatable {
        var platform: String
        var count: String
        var event: String
    }

    var linkEventStats: [Stat]

    init(linkEventStats: [Stat]) { self.linkEventStats = linkEventStats }

    /// People's clicks by platform (`CLICK`; bots, prefetches and scanners are left out, as in all of Ferry's
    /// statistics; `REDIRECT`: those sent on, all of them but, in days counted before Ferry told bots apart, a bot's,
    /// which gets the preview); installs the link brought (`APP_INSTALL` and `APP_FIRST_OPEN`: Ferry sees an install when the app
    /// first opens) and opens of the app by the link (`APP_RE_OPEN`), which Ferry counts per link but not per
    /// platform (`DYNAMIC_LINK_PLATFORM_UNSPECIFIED`). Zero counts are left out.
    init(report: StatsReport) {
        var stats: [Stat] = []
        func add(_ platform: String, _ count: Int, _ event: String) {
            if count > 0 { stats.append(Stat(platform: platform, count: String(count), event: event)) }
        }
        var clicks: [String: Int] = [:], redirects: [String: Int] = [:]
        for (name, count) in report.platforms {
            let platform = switch ClientPlatform(rawValue: name) {
            case .iOS?: "IOS"
            case .android?: "ANDROID"
            case .desktop?: "DESKTOP"
            default: "OTHER"
            }
            clicks[platform, default: 0] += count
            if name != ClientPlatform.bot.rawValue { redirects[platform, default: 0] += count }
        }
        for platform in ["ANDROID", "IOS", "DESKTOP", "OTHER"] {
            add(platform, clicks[platform] ?? 0, "CLICK")
            add(platform, redirects[platform] ?? 0, "REDIRECT")
        }
        add("DYNAMIC_LINK_PLATFORM_UNSPECIFIED", report.totals.installs, "APP_INSTALL")
        add("DYNAMIC_LINK_PLATFORM_UNSPECIFIED", report.totals.installs, "APP_FIRST_OPEN")
        add("DYNAMIC_LINK_PLATFORM_UNSPECIFIED", report.totals.opens, "APP_RE_OPEN")
        linkEventStats = stats
    }
}

/// Google's error shape, which FDL's clients read: `{"error": {"code": 400, "message": …, "status": "INVALID_ARGUMENT"}}`.
enum FirebaseEnvelope {
    struct Failure: Encodable {
        struct Detail: Encodable {
            var code: Int
            var message: String
            var status: String
        }

        var error: Detail
    }

    /// Google's status name of an HTTP status.
    static func status(_ code: Int) -> String {
        switch code {
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 409: "ALREADY_EXISTS"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        case 400..<500: "INVALID_ARGUMENT"
        default: "INTERNAL"
        }
    }

    /// Runs a handler, answering its errors (and the framework's, an outage's and anything unexpected, as `errors`
    /// classifies them) in Google's shape.
    static func wrap(_ request: Request, errors: ErrorMiddleware, _ handler: () async throws -> Response) async throws -> Response {
        do {
            return try await handler()
        } catch {
            return try response(errors.apiError(for: error, path: request.uri.path))
        }
    }

    /// An error in Google's shape, with its headers (`Retry-After`, say); the field at fault is named in the message.
    static func response(_ error: APIError) throws -> Response {
        var headers = error.headers
        headers[.cacheControl] = "no-store"
        let detail = error.body.error
        let message = detail.field.map { "\(detail.message) (\($0))" } ?? detail.message
        let code = Int(error.status.code)
        return try JSONBody.response(Failure(error: .init(code: code, message: message, status: status(code))), status: error.status, headers: headers)
    }
}
#endif
