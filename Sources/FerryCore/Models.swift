import FerryAPI
import Foundation

/// iOS settings of an app: what its association file and App Store redirects are built from.
public struct IOSSettings: Sendable, Hashable, Codable {
    /// The Apple developer team id (10 characters), such as `ABCDE12345`.
    public var teamID: String?
    /// Bundle ids of the apps that open this app's links.
    public var bundleIDs: [String]
    /// The numeric App Store id, for `https://apps.apple.com/app/id…`.
    public var appStoreID: String?
    /// The app's custom URL scheme (without `://`), for "Open in app" where Universal Links are blocked.
    public var urlScheme: String?

    /// Creates iOS settings.
    public init(teamID: String? = nil, bundleIDs: [String] = [], appStoreID: String? = nil, urlScheme: String? = nil) {
        self.teamID = teamID
        self.bundleIDs = bundleIDs
        self.appStoreID = appStoreID
        self.urlScheme = urlScheme
    }

    /// `TEAMID.bundle.id` for every bundle id, as the association file lists them.
    public var appIDs: [String] {
        guard let teamID else { return [] }
        return bundleIDs.map { "\(teamID).\($0)" }
    }

    /// The App Store page of the app, when its id is known.
    public var appStoreURL: String? { appStoreID.map { "https://apps.apple.com/app/id\($0)" } }
}

/// Android settings of an app.
public struct AndroidSettings: Sendable, Hashable, Codable {
    /// The application id, such as `com.example.app`.
    public var packageName: String?
    /// SHA-256 fingerprints of the signing certificates, as `AB:CD:…` (32 bytes).
    public var sha256Fingerprints: [String]

    /// Creates Android settings.
    public init(packageName: String? = nil, sha256Fingerprints: [String] = []) {
        self.packageName = packageName
        self.sha256Fingerprints = sha256Fingerprints
    }
}

/// How an app attributes installs to clicks.
public struct AttributionSettings: Sendable, Hashable, Codable {
    /// Shortest window allowed: one hour.
    public static let minimumWindow: TimeInterval = 3600
    /// Longest window allowed: seven days.
    public static let maximumWindow: TimeInterval = 7 * 86400

    /// How long after a click an install may still be attributed to it (default 24 hours).
    public var window: TimeInterval
    /// Whether the interstitial offers "copy and open", putting a click token on the pasteboard for the app to read.
    public var copyToOpen: Bool

    /// Creates settings.
    public init(window: TimeInterval = 86400, copyToOpen: Bool = false) {
        self.window = window
        self.copyToOpen = copyToOpen
    }
}

/// An app: the owner of link domains, keys and links.
public struct App: Sendable, Hashable {
    /// `app_…`.
    public var id: String
    /// A name for people.
    public var name: String
    /// Link hosts (`go.example.com`, or `localhost:8080` in development), first one the default. A host belongs to one app.
    public var domains: [String]
    /// iOS settings.
    public var ios: IOSSettings
    /// Android settings.
    public var android: AndroidSettings
    /// Where the domain's root and store-less iOS visitors go.
    public var fallbackURL: String?
    /// Preview fields used where a link has none of its own.
    public var social: SocialMetadata
    /// Attribution settings.
    public var attribution: AttributionSettings
    /// When the app was created.
    public var createdAt: Date

    /// Creates an app.
    public init(
        id: String, name: String, domains: [String], ios: IOSSettings = IOSSettings(), android: AndroidSettings = AndroidSettings(),
        fallbackURL: String? = nil, social: SocialMetadata = SocialMetadata(), attribution: AttributionSettings = AttributionSettings(),
        createdAt: Date
    ) {
        self.attribution = attribution
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
    public func linkDomain(forHost host: String) -> String? {
        if domains.contains(host) { return host }
        let bare = String(DomainName.hostPart(of: host))
        if domains.contains(bare) { return bare }
        return domains.filter { bare.hasSuffix("." + $0) || host.hasSuffix("." + $0) }.max { $0.count < $1.count }
    }

    /// The domains a host may be a subdomain of, nearest first: `a.b.example.com` gives `b.example.com`, `example.com`
    /// and `com` (at most `limit`; `abc.localhost` gives `localhost`). None for IP addresses.
    public static func parentDomains(of host: String, limit: Int = 4) -> [String] {
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
public struct Link: Sendable, Hashable {
    /// `lnk_…`.
    public var id: String
    /// The owning app.
    public var appID: String
    /// Live or test, from the key that created it.
    public var environment: APIEnvironment
    /// The link host.
    public var domain: String
    /// Lowercase slug.
    public var slug: String
    /// Web destination.
    public var destination: String
    /// iOS deep link.
    public var iosURL: String?
    /// Android deep link.
    public var androidURL: String?
    /// Data for the app.
    public var params: [String: String]
    /// Campaign parameters.
    public var utm: UTMParameters
    /// Campaign name.
    public var campaign: String?
    /// Who shared it.
    public var referrer: String?
    /// Preview fields of the link itself.
    public var social: SocialMetadata
    /// Expiry.
    public var expiresAt: Date?
    /// Disabled links answer 404.
    public var disabled: Bool
    /// Creation time.
    public var createdAt: Date
    /// Last change.
    public var updatedAt: Date

    /// Creates a link.
    public init(
        id: String, appID: String, environment: APIEnvironment, domain: String, slug: String, destination: String,
        iosURL: String? = nil, androidURL: String? = nil, params: [String: String] = [:], utm: UTMParameters = UTMParameters(),
        campaign: String? = nil, referrer: String? = nil, social: SocialMetadata = SocialMetadata(), expiresAt: Date? = nil,
        disabled: Bool = false, createdAt: Date, updatedAt: Date
    ) {
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
    public enum Status: Sendable, Hashable {
        case active, expired, disabled
    }

    /// The status at a given instant.
    public func status(at now: Date) -> Status {
        if disabled { return .disabled }
        if let expiresAt, expiresAt <= now { return .expired }
        return .active
    }

    /// The full short URL of the link.
    public var shortURL: String { ShortURL.make(domain: domain, slug: slug) }

    /// What an app is handed for this link.
    public var data: LinkData {
        LinkData(
            id: id, slug: slug, url: shortURL, destination: destination, iosURL: iosURL, androidURL: androidURL,
            params: params, utm: utm, campaign: campaign, referrer: referrer
        )
    }

    /// The API representation.
    public var response: LinkResponse {
        LinkResponse(
            id: id, url: shortURL, domain: domain, slug: slug, environment: environment, destination: destination,
            iosURL: iosURL, androidURL: androidURL, params: params, utm: utm, campaign: campaign, referrer: referrer,
            social: social, expiresAt: expiresAt, disabled: disabled, createdAt: createdAt, updatedAt: updatedAt
        )
    }
}

/// Builds short URLs: `https://` for real hosts, `http://` for loopback development hosts.
public enum ShortURL {
    /// The scheme a link host is served on.
    public static func scheme(forDomain domain: String) -> String {
        let host = DomainName.hostPart(of: domain)
        if host == "localhost" || host.hasSuffix(".localhost") || IPAddress(host)?.isLoopback == true {
            return "http"
        }
        return "https"
    }

    /// `scheme://domain/slug`.
    public static func make(domain: String, slug: String) -> String {
        "\(scheme(forDomain: domain))://\(domain)/\(slug)"
    }
}

/// A stored API key (only its hash is kept).
public struct APIKeyRecord: Sendable, Hashable {
    /// `key_…`.
    public var id: String
    /// The owning app.
    public var appID: String
    /// Publishable or secret.
    public var kind: APIKeyKind
    /// Live or test.
    public var environment: APIEnvironment
    /// Hex SHA-256 of the key text.
    public var hash: String
    /// The first characters of the key, for people to recognise it (`fs_live_AbCd…`).
    public var hint: String
    /// Creation time.
    public var createdAt: Date
    /// Set once the key is revoked.
    public var revokedAt: Date?

    /// Creates a key record.
    public init(id: String, appID: String, kind: APIKeyKind, environment: APIEnvironment, hash: String, hint: String, createdAt: Date, revokedAt: Date? = nil) {
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
public struct Click: Sendable, Hashable {
    /// `clk_…`: unguessable, handed to stores and pages.
    public var id: String
    /// The link clicked.
    public var linkID: String
    /// Its app.
    public var appID: String
    /// Its environment.
    public var environment: APIEnvironment
    /// When.
    public var createdAt: Date
    /// Keyed hash of the client address; never the address itself.
    public var ipHash: String?
    /// Keyed hash of the client's network prefix (/24 or /64), for grouping devices on one network.
    public var networkHash: String?
    /// The User-Agent, bounded.
    public var userAgent: String?
    /// The client platform decided at the click.
    public var platform: ClientPlatform
    /// The Referer header, bounded.
    public var referer: String?
    /// The click's own query string, bounded.
    public var query: String?
    /// Accept-Language, bounded.
    public var acceptLanguage: String?
    /// OS version read from the user agent.
    public var osVersion: String?
    /// `iphone`, `ipad` or `ipod`, from the user agent.
    public var appleDevice: String?

    /// Creates a click.
    public init(
        id: String, linkID: String, appID: String, environment: APIEnvironment, createdAt: Date, ipHash: String?, networkHash: String?,
        userAgent: String?, platform: ClientPlatform, referer: String?, query: String?, acceptLanguage: String?,
        osVersion: String? = nil, appleDevice: String? = nil
    ) {
        self.osVersion = osVersion
        self.appleDevice = appleDevice
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
public struct DomainClaim: Sendable, Hashable {
    /// The app that asked.
    public var appID: String
    /// The domain (validated, lowercase).
    public var domain: String
    /// The secret the proof must show: in a DNS TXT record or a file on the domain's web server.
    public var token: String
    /// When it was asked for.
    public var createdAt: Date

    /// Creates a claim.
    public init(appID: String, domain: String, token: String, createdAt: Date) {
        self.appID = appID
        self.domain = domain
        self.token = token
        self.createdAt = createdAt
    }

    /// The DNS name of the TXT record that proves control: `_ferry-challenge.` and the host (without a port).
    public var dnsName: String { "_ferry-challenge." + DomainName.hostPart(of: domain) }
    /// The value that record (or the file) must hold.
    public var proof: String { "ferry-verification=" + token }
    /// Where the file that proves control is read, on the domain's current web server.
    public var httpURL: String { "\(ShortURL.scheme(forDomain: domain))://\(domain)/.well-known/ferry-verification.txt" }
}
