import FerryAPI
import Foundation

/// iOS settings of an app: what its association file and App Store redirects are built from.
package struct IOSSettings: Sendable, Hashable, Codable {
    /// The Apple developer team id (10 characters), such as `ABCDE12345`.
    package var teamID: String?
    /// Bundle ids of the apps that open this app's links.
    package var bundleIDs: [String]
    /// The numeric App Store id, for `https://apps.apple.com/app/id…`.
    package var appStoreID: String?
    /// The app's custom URL scheme (without `://`), for "Open in app" where Universal Links are blocked.
    package var urlScheme: String?

    /// Creates iOS settings.
    package init(teamID: String? = nil, bundleIDs: [String] = [], appStoreID: String? = nil, urlScheme: String? = nil) {
        self.teamID = teamID
        self.bundleIDs = bundleIDs
        self.appStoreID = appStoreID
        self.urlScheme = urlScheme
    }

    /// `TEAMID.bundle.id` for every bundle id, as the association file lists them.
    package var appIDs: [String] {
        guard let teamID else { return [] }
        return bundleIDs.map { "\(teamID).\($0)" }
    }

    /// The App Store page of the app, when its id is known.
    package var appStoreURL: String? { appStoreID.map { "https://apps.apple.com/app/id\($0)" } }
}

/// Android settings of an app.
package struct AndroidSettings: Sendable, Hashable, Codable {
    /// The application id, such as `com.example.app`.
    package var packageName: String?
    /// SHA-256 fingerprints of the signing certificates, as `AB:CD:…` (32 bytes).
    package var sha256Fingerprints: [String]

    /// Creates Android settings.
    package init(packageName: String? = nil, sha256Fingerprints: [String] = []) {
        self.packageName = packageName
        self.sha256Fingerprints = sha256Fingerprints
    }
}

/// How an app attributes installs to clicks.
package struct AttributionSettings: Sendable, Hashable, Codable {
    /// Shortest window allowed: one hour.
    package static let minimumWindow: TimeInterval = 3600
    /// Longest window allowed: seven days.
    package static let maximumWindow: TimeInterval = 7 * 86400

    /// How long after a click an install may still be attributed to it (default 24 hours).
    package var window: TimeInterval
    /// Whether the interstitial offers "copy and open", putting a click token on the pasteboard for the app to read.
    package var copyToOpen: Bool
    /// The least confidence a probabilistic match must state for match requests that name none
    /// (`MatchRequest.minConfidenceRange`); nil: the matcher's own threshold.
    package var minConfidence: Double?
    /// Which model the probabilistic matcher answers with (default `fixed`).
    package var model: Model

    /// The probabilistic matcher's model.
    package enum Model: String, Sendable, Hashable, Codable, CaseIterable {
        /// The numbers every app shares, measured on simulated populations.
        case fixed
        /// A model learnt from the app's own installs (its deterministic matches and the installs the matcher
        /// answered), refitted every few hours; the shared starting point until the first one is fitted.
        case learned
    }

    /// Creates settings.
    package init(window: TimeInterval = 86400, copyToOpen: Bool = false, minConfidence: Double? = nil, model: Model = .fixed) {
        self.window = window
        self.copyToOpen = copyToOpen
        self.minConfidence = minConfidence
        self.model = model
    }

    private enum CodingKeys: String, CodingKey { case window, copyToOpen, minConfidence, model }

    /// Settings written before `minConfidence` or `model` existed read as none and `fixed`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(window: try container.decode(TimeInterval.self, forKey: .window), copyToOpen: try container.decode(Bool.self, forKey: .copyToOpen),
                  minConfidence: try container.decodeIfPresent(Double.self, forKey: .minConfidence),
                  model: try container.decodeIfPresent(Model.self, forKey: .model) ?? .fixed)
    }
}

/// An app: the owner of link domains, keys and links.
package struct App: Sendable, Hashable {
    /// `app_…`.
    package var id: String
    /// A name for people.
    package var name: String
    /// Link hosts (`go.example.com`, or `localhost:8080` in development), first one the default. A host belongs to one app.
    package var domains: [String]
    /// iOS settings.
    package var ios: IOSSettings
    /// Android settings.
    package var android: AndroidSettings
    /// Where the domain's root and store-less iOS visitors go.
    package var fallbackURL: String?
    /// Preview fields used where a link has none of its own.
    package var social: SocialMetadata
    /// Attribution settings.
    package var attribution: AttributionSettings
    /// Regular expressions a long link's deep link and fallbacks must match in whole (Firebase Dynamic Links'
    /// "allowlist URL patterns"); empty, a long link may lead only to the app's own hosts (see `URLAllowlist`). Links
    /// its installs make (`clientLinks`) follow the same list.
    package var allowedURLPatterns: [String]
    /// Whether the app's publishable keys may create links (share links made in the app), within `ClientLinkRules`.
    package var clientLinks: Bool
    /// Path prefixes of link domains, domain → prefix (`go.example.com` → `/links`): on such a domain links are
    /// `/links/{slug}` and the rest of the domain is the team's own (see `LinkPath`). Domains without one are not keys.
    package var pathPrefixes: [String: String]
    /// When the app was created.
    package var createdAt: Date

    /// Creates an app.
    package init(
        id: String, name: String, domains: [String], ios: IOSSettings = IOSSettings(), android: AndroidSettings = AndroidSettings(),
        fallbackURL: String? = nil, social: SocialMetadata = SocialMetadata(), attribution: AttributionSettings = AttributionSettings(),
        allowedURLPatterns: [String] = [], clientLinks: Bool = false, pathPrefixes: [String: String] = [:], createdAt: Date
    ) {
        self.allowedURLPatterns = allowedURLPatterns
        self.clientLinks = clientLinks
        self.attribution = attribution
        self.pathPrefixes = pathPrefixes
        self.id = id
        self.name = name
        self.domains = domains
        self.ios = ios
        self.android = android
        self.fallbackURL = fallbackURL
        self.social = social
        self.createdAt = createdAt
    }
}

extension App {
    /// The domain of this app a request host stands for: the host itself, the host without its port (an app on
    /// `localhost` answers on any port), or, for a subdomain (`abc123.go.example.com`, where links are reached in the
    /// `/link/{slug}` form), the longest of the app's domains it is under; nil when the host is not one of the app's.
    package func linkDomain(forHost host: String) -> String? {
        if domains.contains(host) { return host }
        let bare = String(DomainName.hostPart(of: host))
        if domains.contains(bare) { return bare }
        return domains.filter { bare.hasSuffix("." + $0) || host.hasSuffix("." + $0) }.max { $0.count < $1.count }
    }

    /// The path prefix of the app's domain a request host stands for (`linkDomain(forHost:)`), or nil.
    package func pathPrefix(forHost host: String) -> String? {
        guard !pathPrefixes.isEmpty, let domain = linkDomain(forHost: host) else { return nil }
        return pathPrefixes[domain]
    }

    /// The domains a host may be a subdomain of, nearest first: `a.b.example.com` gives `b.example.com`, `example.com`
    /// and `com` (at most `limit`; `abc.localhost` gives `localhost`). None for IP addresses.
    package static func parentDomains(of host: String, limit: Int = 4) -> [String] {
        let bare = DomainName.hostPart(of: host)
        guard !bare.hasPrefix("["), !bare.allSatisfy({ $0.isNumber || $0 == "." }) else { return [] }
        var labels = bare.split(separator: ".")
        var parents: [String] = []
        while labels.count > 1, parents.count < limit {
            labels.removeFirst()
            parents.append(labels.joined(separator: "."))
        }
        return parents
    }
}

/// A short link as stored.
package struct Link: Sendable, Hashable {
    /// `lnk_…`.
    package var id: String
    /// The owning app.
    package var appID: String
    /// Live or test, from the key that created it.
    package var environment: APIEnvironment
    /// The link host.
    package var domain: String
    /// Lowercase slug.
    package var slug: String
    /// Web destination.
    package var destination: String
    /// iOS deep link.
    package var iosURL: String?
    /// Android deep link.
    package var androidURL: String?
    /// Data for the app.
    package var params: [String: String]
    /// Campaign parameters.
    package var utm: UTMParameters
    /// Campaign name.
    package var campaign: String?
    /// Who shared it.
    package var referrer: String?
    /// Preview fields of the link itself.
    package var social: SocialMetadata
    /// Expiry.
    package var expiresAt: Date?
    /// Disabled links answer 404.
    package var disabled: Bool
    /// Per-link routing, over the app's settings.
    package var routing: LinkRouting
    /// For a long link (`https://domain/?link=…`), its canonical query (without `?`); nil for a short link.
    package var longLink: String?
    /// Whether an install of the app made it with a publishable key (see `ClientLinkRules`).
    package var createdInApp: Bool
    /// Creation time.
    package var createdAt: Date
    /// Last change.
    package var updatedAt: Date

    /// Creates a link.
    package init(
        id: String, appID: String, environment: APIEnvironment, domain: String, slug: String, destination: String,
        iosURL: String? = nil, androidURL: String? = nil, params: [String: String] = [:], utm: UTMParameters = UTMParameters(),
        campaign: String? = nil, referrer: String? = nil, social: SocialMetadata = SocialMetadata(), expiresAt: Date? = nil,
        disabled: Bool = false, routing: LinkRouting = LinkRouting(), longLink: String? = nil, createdInApp: Bool = false,
        createdAt: Date, updatedAt: Date
    ) {
        self.routing = routing
        self.longLink = longLink
        self.createdInApp = createdInApp
        self.id = id
        self.appID = appID
        self.environment = environment
        self.domain = domain
        self.slug = slug
        self.destination = destination
        self.iosURL = iosURL
        self.androidURL = androidURL
        self.params = params
        self.utm = utm
        self.campaign = campaign
        self.referrer = referrer
        self.social = social
        self.expiresAt = expiresAt
        self.disabled = disabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the link still sends visitors on.
    package enum Status: Sendable, Hashable {
        case active, expired, disabled
    }

    /// The status at a given instant.
    package func status(at now: Date) -> Status {
        if disabled { return .disabled }
        if let expiresAt, expiresAt <= now { return .expired }
        return .active
    }

    /// The full URL of the link on a domain without a path prefix: `https://domain/slug`, or for a long link
    /// `https://domain/?link=…`.
    package var shortURL: String { shortURL(prefix: nil) }

    /// The full short URL of the link, with its domain's path prefix on `app` (the link's app).
    package func shortURL(in app: App) -> String { shortURL(prefix: app.pathPrefixes[domain]) }

    /// The full URL of the link under a path prefix (nil: none).
    private func shortURL(prefix: String?) -> String {
        if let longLink { return "\(ShortURL.scheme(forDomain: domain))://\(domain)\(prefix ?? "")/?\(longLink)" }
        return ShortURL.make(domain: domain, slug: slug, prefix: prefix)
    }

    /// What an app is handed for this link, on a domain without a path prefix.
    package var data: LinkData { data(url: shortURL) }

    /// What an app is handed for this link, its URL with its domain's path prefix on `app` (the link's app).
    package func data(in app: App) -> LinkData { data(url: shortURL(in: app)) }

    private func data(url: String) -> LinkData {
        LinkData(
            id: id, slug: slug, url: url, destination: destination, iosURL: iosURL, androidURL: androidURL,
            params: params, utm: utm, campaign: campaign, referrer: referrer,
            iosMinimumVersion: routing.iosMinimumVersion, androidMinimumVersionCode: routing.androidMinimumVersionCode
        )
    }

    /// The API representation, on a domain without a path prefix.
    package var response: LinkResponse { response(url: shortURL) }

    /// The API representation, its URL with its domain's path prefix on `app` (the link's app).
    package func response(in app: App) -> LinkResponse { response(url: shortURL(in: app)) }

    private func response(url: String) -> LinkResponse {
        LinkResponse(
            id: id, url: url, domain: domain, slug: slug, environment: environment, destination: destination,
            iosURL: iosURL, androidURL: androidURL, params: params, utm: utm, campaign: campaign, referrer: referrer,
            social: social, expiresAt: expiresAt, disabled: disabled, routing: routing, isLongLink: longLink != nil,
            createdInApp: createdInApp, createdAt: createdAt, updatedAt: updatedAt
        )
    }
}

/// Builds short URLs: `https://` for real hosts, `http://` for loopback development hosts.
package enum ShortURL {
    /// The scheme a link host is served on.
    package static func scheme(forDomain domain: String) -> String {
        let host = DomainName.hostPart(of: domain)
        if host == "localhost" || host.hasSuffix(".localhost") || IPAddress(host)?.isLoopback == true {
            return "http"
        }
        return "https"
    }

    /// `scheme://domain/slug`, or `scheme://domain/prefix/slug` on a domain with a path prefix (`/links`).
    package static func make(domain: String, slug: String, prefix: String? = nil) -> String {
        "\(scheme(forDomain: domain))://\(domain)\(prefix ?? "")/\(slug)"
    }
}

/// A stored API key (only its hash is kept).
package struct APIKeyRecord: Sendable, Hashable {
    /// `key_…`.
    package var id: String
    /// The owning app.
    package var appID: String
    /// Publishable or secret.
    package var kind: APIKeyKind
    /// Live or test.
    package var environment: APIEnvironment
    /// Hex SHA-256 of the key text.
    package var hash: String
    /// The first characters of the key, for people to recognise it (`fs_live_AbCd…`).
    package var hint: String
    /// Creation time.
    package var createdAt: Date
    /// Set once the key is revoked.
    package var revokedAt: Date?
    /// What a secret key is limited to; nil for a key that may do everything its kind can (`APIKeyScope`).
    package var scopes: Set<APIKeyScope>?

    /// Creates a key record.
    package init(id: String, appID: String, kind: APIKeyKind, environment: APIEnvironment, hash: String, hint: String, createdAt: Date,
                 revokedAt: Date? = nil, scopes: Set<APIKeyScope>? = nil) {
        self.scopes = scopes
        self.id = id
        self.appID = appID
        self.kind = kind
        self.environment = environment
        self.hash = hash
        self.hint = hint
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// One visit of a short link, as the click recorder stores it.
package struct Click: Sendable, Hashable {
    /// `clk_…`: unguessable, handed to stores and pages.
    package var id: String
    /// The link clicked.
    package var linkID: String
    /// Its app.
    package var appID: String
    /// Its environment.
    package var environment: APIEnvironment
    /// When.
    package var createdAt: Date
    /// Keyed hash of the client address; never the address itself.
    package var ipHash: String?
    /// Keyed hash of the client's network prefix (/24 or /64), for grouping devices on one network.
    package var networkHash: String?
    /// The User-Agent, bounded.
    package var userAgent: String?
    /// The client platform decided at the click.
    package var platform: ClientPlatform
    /// The Referer header, bounded.
    package var referer: String?
    /// The click's own query string, bounded.
    package var query: String?
    /// Accept-Language, bounded.
    package var acceptLanguage: String?
    /// OS version read from the user agent.
    package var osVersion: String?
    /// `iphone`, `ipad` or `ipod`, from the user agent.
    package var appleDevice: String?
    /// The signed-in person's pseudonym the click's URL carried (`UserClickToken`), kept apart from its query.
    package var userToken: String?
    /// Who made it: only a person's click is counted and attributed.
    package var traffic: ClickTraffic

    /// Creates a click.
    package init(
        id: String, linkID: String, appID: String, environment: APIEnvironment, createdAt: Date, ipHash: String?, networkHash: String?,
        userAgent: String?, platform: ClientPlatform, referer: String?, query: String?, acceptLanguage: String?,
        osVersion: String? = nil, appleDevice: String? = nil, userToken: String? = nil, traffic: ClickTraffic? = nil
    ) {
        // A bot's user agent is a bot's whatever the caller says; otherwise a person unless told.
        self.traffic = traffic ?? (platform == .bot ? .bot : .person)
        self.osVersion = osVersion
        self.appleDevice = appleDevice
        self.userToken = userToken
        self.id = id
        self.linkID = linkID
        self.appID = appID
        self.environment = environment
        self.createdAt = createdAt
        self.ipHash = ipHash
        self.networkHash = networkHash
        self.userAgent = userAgent
        self.platform = platform
        self.referer = referer
        self.query = query
        self.acceptLanguage = acceptLanguage
    }
}

/// A link domain an app asked for and has not yet proved it controls: nothing is served on it, and other apps may
/// claim it too (the first to prove control gets it).
package struct DomainClaim: Sendable, Hashable {
    /// The app that asked.
    package var appID: String
    /// The domain (validated, lowercase).
    package var domain: String
    /// The secret the proof must show: in a DNS TXT record or a file on the domain's web server.
    package var token: String
    /// When it was asked for.
    package var createdAt: Date

    /// Creates a claim.
    package init(appID: String, domain: String, token: String, createdAt: Date) {
        self.appID = appID
        self.domain = domain
        self.token = token
        self.createdAt = createdAt
    }

    /// The DNS name of the TXT record that proves control: `_ferry-challenge.` and the host (without a port).
    package var dnsName: String { "_ferry-challenge." + DomainName.hostPart(of: domain) }
    /// The value that record (or the file) must hold.
    package var proof: String { "ferry-verification=" + token }
    /// Where the file that proves control is read, on the domain's current web server.
    package var httpURL: String { "\(ShortURL.scheme(forDomain: domain))://\(domain)/.well-known/ferry-verification.txt" }
}
