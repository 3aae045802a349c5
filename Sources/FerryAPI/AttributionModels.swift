import Foundation

/// What a device can say about itself, as the SDK (or, for a click, the interstitial page) sends it.
///
/// ```json
/// {"platform": "ios", "osVersion": "18.1", "model": "iPhone16,1", "screenWidth": 393, "screenHeight": 852,
///  "screenScale": 3, "timeZone": "America/New_York", "timeZoneOffsetSeconds": -18000, "languages": ["en-US"]}
/// ```
public struct DeviceSignals: Codable, Sendable, Hashable {
    /// `ios` or `android` (or what a browser reports, such as `iPhone`).
    public var platform: String?
    /// The OS version, such as `18.1`.
    public var osVersion: String?
    /// The hardware model, such as `iPhone16,1` (browsers cannot tell it).
    public var model: String?
    /// Screen width in points (CSS pixels in a browser), portrait.
    public var screenWidth: Int?
    /// Screen height in points, portrait.
    public var screenHeight: Int?
    /// Pixels per point (`devicePixelRatio`).
    public var screenScale: Double?
    /// IANA time zone, such as `Europe/Paris`.
    public var timeZone: String?
    /// Offset from UTC in seconds, east positive (Paris in winter: 3600).
    public var timeZoneOffsetSeconds: Int?
    /// Preferred languages, most preferred first (`["fr-FR", "en-US"]`).
    public var languages: [String]?

    /// Creates signals.
    public init(
        platform: String? = nil, osVersion: String? = nil, model: String? = nil, screenWidth: Int? = nil, screenHeight: Int? = nil,
        screenScale: Double? = nil, timeZone: String? = nil, timeZoneOffsetSeconds: Int? = nil, languages: [String]? = nil
    ) {
        self.platform = platform
        self.osVersion = osVersion
        self.model = model
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.screenScale = screenScale
        self.timeZone = timeZone
        self.timeZoneOffsetSeconds = timeZoneOffsetSeconds
        self.languages = languages
    }
}

/// The body of `POST /v1/attribution/match`: a first launch asking which click led to its install.
package struct MatchRequest: Codable, Sendable, Hashable {
    /// A stable id of this install (the IDFV on iOS), which FerryKit also keeps where deleting the app leaves it (the
    /// keychain), so that a re-install goes by the same id.
    package var installID: String
    /// A new id for each installation of the app (kept where deleting the app removes it): the same `installID` with
    /// another installation id is a re-install, answered afresh; with the same one, a first launch asking again.
    /// Optional: without one, every request of an install id gets its first answer.
    package var installationID: String?
    /// What the device says about itself.
    package var signals: DeviceSignals
    /// A click token the app read from the pasteboard ("copy to open"), if any.
    package var clickToken: String?
    /// The Play Store install referrer string, on Android.
    package var referrer: String?
    /// The least confidence a probabilistic match must state to be given (``minConfidenceRange``; 1: deterministic
    /// matches only); nil for the app's default, else the server's own rule.
    package var minConfidence: Double?

    /// The minimum confidences a request (and an app's default) may ask for: from 0.4 to 1.
    package static let minConfidenceRange: ClosedRange<Double> = 0.4...1

    /// Creates a match request.
    package init(installID: String, installationID: String? = nil, signals: DeviceSignals, clickToken: String? = nil, referrer: String? = nil,
                 minConfidence: Double? = nil) {
        self.installID = installID
        self.installationID = installationID
        self.signals = signals
        self.clickToken = clickToken
        self.referrer = referrer
        self.minConfidence = minConfidence
    }

    private enum CodingKeys: String, CodingKey { case installID, installationID, signals, clickToken, referrer, minConfidence }

    /// Encodes every key, `clickToken` and `referrer` as `null` when absent, as the SDK documents the body;
    /// `installationID` and `minConfidence` only when set.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(installID, forKey: .installID)
        try c.encodeIfPresent(installationID, forKey: .installationID)
        try c.encode(signals, forKey: .signals)
        try c.encode(clickToken, forKey: .clickToken)
        try c.encode(referrer, forKey: .referrer)
        try c.encodeIfPresent(minConfidence, forKey: .minConfidence)
    }
}

/// How an install was tied to a click.
public enum MatchType: String, Codable, Sendable, Hashable {
    /// By a click token, a Play Store referrer, an install already bound, or (for a re-install) a click from a browser
    /// that led this device to the app before: certain.
    case deterministic
    /// By device and network signals: `confidence` says how sure.
    case probabilistic
}

/// The link data an app needs to route a user: what a resolve or a match hands over.
package struct LinkData: Codable, Sendable, Hashable {
    /// The link's id.
    package var id: String
    /// Its slug.
    package var slug: String
    /// The full short URL.
    package var url: String
    /// The web destination.
    package var destination: String
    /// The iOS deep link.
    package var iosURL: String?
    /// The Android deep link.
    package var androidURL: String?
    /// Data for the app.
    package var params: [String: String]
    /// Campaign parameters.
    package var utm: UTMParameters
    /// Campaign name.
    package var campaign: String?
    /// Who shared the link.
    package var referrer: String?
    /// The lowest version of the iOS app that can open the link, when the link names one.
    package var iosMinimumVersion: String?
    /// The lowest Android version code that can open the link, when the link names one.
    package var androidMinimumVersionCode: Int?

    /// Creates link data.
    package init(
        id: String, slug: String, url: String, destination: String, iosURL: String?, androidURL: String?,
        params: [String: String], utm: UTMParameters, campaign: String?, referrer: String?,
        iosMinimumVersion: String? = nil, androidMinimumVersionCode: Int? = nil
    ) {
        self.iosMinimumVersion = iosMinimumVersion
        self.androidMinimumVersionCode = androidMinimumVersionCode
        self.id = id
        self.slug = slug
        self.url = url
        self.destination = destination
        self.iosURL = iosURL
        self.androidURL = androidURL
        self.params = params
        self.utm = utm
        self.campaign = campaign
        self.referrer = referrer
    }

    private enum CodingKeys: String, CodingKey {
        case id, slug, url, destination, iosURL, androidURL, params, utm, campaign, referrer, iosMinimumVersion, androidMinimumVersionCode
    }

    /// Encodes every key, unset ones as `null`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(slug, forKey: .slug)
        try c.encode(url, forKey: .url)
        try c.encode(destination, forKey: .destination)
        try c.encode(iosURL, forKey: .iosURL)
        try c.encode(androidURL, forKey: .androidURL)
        try c.encode(params, forKey: .params)
        try c.encode(utm, forKey: .utm)
        try c.encode(campaign, forKey: .campaign)
        try c.encode(referrer, forKey: .referrer)
        try c.encode(iosMinimumVersion, forKey: .iosMinimumVersion)
        try c.encode(androidMinimumVersionCode, forKey: .androidMinimumVersionCode)
    }
}

/// The answer of `POST /v1/attribution/match`.
///
/// ```json
/// {"matched": true, "matchType": "probabilistic", "confidence": 0.94, "isDeferred": true, "link": {…}}
/// ```
/// or `{"matched": false}`.
package struct MatchResponse: Codable, Sendable, Hashable {
    /// Whether a click was found.
    package var matched: Bool
    /// How it was found.
    package var matchType: MatchType?
    /// How sure the server is, 0…1 (1 for deterministic matches).
    package var confidence: Double?
    /// Always true for a match: the link is delivered after the install.
    package var isDeferred: Bool?
    /// The link clicked.
    package var link: LinkData?

    /// Creates an answer.
    package init(matched: Bool, matchType: MatchType? = nil, confidence: Double? = nil, isDeferred: Bool? = nil, link: LinkData? = nil) {
        self.matched = matched
        self.matchType = matchType
        self.confidence = confidence
        self.isDeferred = isDeferred
        self.link = link
    }

    /// No click matched.
    package static let notMatched = MatchResponse(matched: false)
}

/// The answer of `GET /v1/links/resolve/{slug}`: the link behind a Universal Link the app was opened with.
package struct ResolveResponse: Codable, Sendable, Hashable {
    /// The link.
    package var link: LinkData
    /// Always false: the app was opened by the link itself.
    package var isDeferred: Bool

    /// Creates an answer.
    package init(link: LinkData, isDeferred: Bool = false) {
        self.link = link
        self.isDeferred = isDeferred
    }
}

/// The answer of `POST /v1/sdk/validate`: the settings the SDK needs.
public struct SDKValidateResponse: Codable, Sendable, Hashable {
    /// Whether the key is good (a bad key gets a 401 instead).
    public var valid: Bool
    /// The app's id.
    public var appID: String
    /// The app's name.
    public var appName: String
    /// Link domains the SDK should treat as Ferry's.
    public var domains: [String]
    /// The key's environment.
    public var environment: APIEnvironment
    /// The app's custom URL scheme, if any.
    public var urlScheme: String?
    /// How long after a click an install may still be attributed to it, in seconds.
    public var attributionWindowSeconds: Int

    /// Creates an answer.
    public init(valid: Bool, appID: String, appName: String, domains: [String], environment: APIEnvironment, urlScheme: String?, attributionWindowSeconds: Int) {
        self.valid = valid
        self.appID = appID
        self.appName = appName
        self.domains = domains
        self.environment = environment
        self.urlScheme = urlScheme
        self.attributionWindowSeconds = attributionWindowSeconds
    }
}

/// One SDK event.
package struct SDKEvent: Codable, Sendable, Hashable {
    /// `install`, `open`, `reinstall`, or a custom name (`[a-z0-9_.-]`, at most 64 characters).
    package var name: String
    /// The install that sent it.
    package var installID: String
    /// When it happened on the device (the server's time when absent).
    package var timestamp: Date?
    /// The link involved, when there is one.
    package var linkID: String?
    /// Small string properties.
    package var properties: [String: String]?

    /// Creates an event.
    package init(name: String, installID: String, timestamp: Date? = nil, linkID: String? = nil, properties: [String: String]? = nil) {
        self.name = name
        self.installID = installID
        self.timestamp = timestamp
        self.linkID = linkID
        self.properties = properties
    }
}

/// The body of `POST /v1/events`: up to 100 events.
package struct EventsRequest: Codable, Sendable, Hashable {
    /// The events.
    package var events: [SDKEvent]

    /// Creates a batch.
    package init(events: [SDKEvent]) { self.events = events }
}

/// The answer of `POST /v1/events`.
package struct EventsResponse: Codable, Sendable, Hashable {
    /// How many events were stored.
    package var accepted: Int

    /// Creates an answer.
    package init(accepted: Int) { self.accepted = accepted }
}

/// The body of `POST /v1/attribution/user`: binds an install's attribution to the app's own user id.
package struct AttributeUserRequest: Codable, Sendable, Hashable {
    /// The install.
    package var installID: String
    /// The app's user id (at most 128 characters).
    package var userID: String

    /// Creates a request.
    package init(installID: String, userID: String) {
        self.installID = installID
        self.userID = userID
    }
}

/// The body of `POST /v1/attribution/user-tokens`: the user id whose click token is asked for.
package struct UserClickTokenRequest: Codable, Sendable, Hashable {
    /// The app's user id (at most 128 characters).
    package var userID: String

    /// Creates a request.
    package init(userID: String) {
        self.userID = userID
    }
}

/// The answer of `POST /v1/attribution/user-tokens`: the token to add to the links shown to the signed-in person, as
/// `parameter=token` in each link's query. The same user id always gets the same token.
package struct UserClickTokenResponse: Codable, Sendable, Hashable {
    /// The user id.
    package var userID: String
    /// `fu_` and 32 hexadecimal digits.
    package var token: String
    /// The query parameter that carries it: `ferry_user`.
    package var parameter: String

    /// Creates an answer.
    package init(userID: String, token: String, parameter: String) {
        self.userID = userID
        self.token = token
        self.parameter = parameter
    }
}

/// The answer of `POST /v1/attribution/user`: the attribution now bound to the user (the same every time).
///
/// With a publishable key, an install is shown the user's attribution only when the user is bound to that install:
/// when the user id is bound to another install, `boundToThisInstall` is false and nothing of the other install's
/// attribution is given (`attributed` false). A secret key is always shown the binding.
package struct AttributeUserResponse: Codable, Sendable, Hashable {
    /// The user id.
    package var userID: String
    /// Whether the user's install was attributed to a link.
    package var attributed: Bool
    /// How, when attributed.
    package var matchType: MatchType?
    /// How sure, when attributed.
    package var confidence: Double?
    /// The link, when attributed.
    package var link: LinkData?
    /// Whether the user is bound to the install the request named (false: to another install, bound first or by
    /// the app's backend). True when a server leaves it out.
    package var boundToThisInstall: Bool

    /// Creates an answer.
    package init(userID: String, attributed: Bool, matchType: MatchType? = nil, confidence: Double? = nil, link: LinkData? = nil,
                boundToThisInstall: Bool = true) {
        self.userID = userID
        self.attributed = attributed
        self.matchType = matchType
        self.confidence = confidence
        self.link = link
        self.boundToThisInstall = boundToThisInstall
    }

    private enum CodingKeys: String, CodingKey { case userID, attributed, matchType, confidence, link, boundToThisInstall }

    /// Decodes an answer; one without `boundToThisInstall` (from an earlier server) is bound to this install.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userID = try container.decode(String.self, forKey: .userID)
        attributed = try container.decode(Bool.self, forKey: .attributed)
        matchType = try container.decodeIfPresent(MatchType.self, forKey: .matchType)
        confidence = try container.decodeIfPresent(Double.self, forKey: .confidence)
        link = try container.decodeIfPresent(LinkData.self, forKey: .link)
        boundToThisInstall = try container.decodeIfPresent(Bool.self, forKey: .boundToThisInstall) ?? true
    }
}
