// Objective-C has a runtime only on Apple platforms: elsewhere (Linux) this file compiles to nothing. Everything it
// needs that is not Objective-C itself (errors as NSError, links as dictionaries, options) is in
// ObjectiveCBridge.swift, which every platform builds and tests.
#if canImport(ObjectiveC)
import Foundation

/// FerryKit for Objective-C: the shared instance's calls, with completion blocks called on the main thread.
///
/// ```objc
/// @import FerryKit;
///
/// FRYOptions *options = [[FRYOptions alloc] initWithServerURL:[NSURL URLWithString:@"https://links.example.com"]];
/// options.linkDomains = @[@"go.example.com"];
/// NSError *error = nil;
/// if (![FRYFerry configureWithAPIKey:@"fk_live_…" options:options error:&error]) { NSLog(@"%@", error); }
///
/// [FRYFerry handleDeepLink:url completion:^(FRYDeepLink *link, NSError *error) {
///     if (link) { [router open:link.routingURL]; }
/// }];
/// ```
@objc(FRYFerry)
public final class FerryObjC: NSObject {
    /// FerryKit's version.
    @objc public static var sdkVersion: String { Ferry.sdkVersion }

    /// The `NSError` domain of FerryKit's errors (`dev.ferry.FerryKit`); the codes are ``FerryObjCErrorCode``.
    @objc public static var errorDomain: String { FerryError.errorDomain }

    /// Whether ``configure(apiKey:options:)`` has been called.
    @objc public static var isConfigured: Bool { Ferry.shared != nil }

    /// Whether this launch is the install's first (false before configure, and before the device's first unlock).
    @objc public static var isFirstLaunch: Bool { Ferry.shared?.isFirstLaunch ?? false }

    /// Sets FerryKit up (``Ferry/configure(apiKey:options:)``). Objective-C: `configureWithAPIKey:options:error:`,
    /// which returns NO and sets the error for a key or option FerryKit refuses.
    @objc(configureWithAPIKey:options:error:)
    public static func configure(apiKey: String, options: FerryObjCOptions) throws {
        try Ferry.configure(apiKey: apiKey, options: options.values.ferryOptions())
    }

    /// Sets FerryKit up with the server URL alone. Objective-C: `configureWithAPIKey:serverURL:error:`.
    @objc(configureWithAPIKey:serverURL:error:)
    public static func configure(apiKey: String, serverURL: URL) throws {
        try configure(apiKey: apiKey, options: FerryObjCOptions(serverURL: serverURL))
    }

    /// ``Ferry/handleDeepLink(_:completion:)-swift.type.method``: the link, nil (not a Ferry link), or an error.
    @objc(handleDeepLink:completion:)
    public static func handleDeepLink(_ url: URL, completion: @escaping @Sendable (FerryObjCDeepLink?, NSError?) -> Void) {
        Ferry.handleDeepLink(url) { result in deliver(result, completion) }
    }

    /// Whether FerryKit would handle `url`, decided on the device (false before configure).
    @objc(canHandleURL:)
    public static func canHandle(_ url: URL) -> Bool {
        Ferry.shared?.canHandle(url) ?? false
    }

    /// ``Ferry/checkDeferredDeepLink(completion:)-swift.type.method``: the link clicked before the install, or nil.
    @objc(checkDeferredDeepLinkWithCompletion:)
    public static func checkDeferredDeepLink(completion: @escaping @Sendable (FerryObjCDeepLink?, NSError?) -> Void) {
        Ferry.checkDeferredDeepLink { result in deliver(result, completion) }
    }

    /// ``Ferry/checkDeferredDeepLink(pasted:completion:)-swift.type.method``: with the strings of a paste button.
    @objc(checkDeferredDeepLinkWithPastedStrings:completion:)
    public static func checkDeferredDeepLink(pasted strings: [String], completion: @escaping @Sendable (FerryObjCDeepLink?, NSError?) -> Void) {
        Ferry.checkDeferredDeepLink(pasted: strings) { result in deliver(result, completion) }
    }

    /// ``Ferry/takeDeferredDeepLink(completion:)-swift.type.method``: the deferred link, handed over once per install.
    @objc(takeDeferredDeepLinkWithCompletion:)
    public static func takeDeferredDeepLink(completion: @escaping @Sendable (FerryObjCDeepLink?, NSError?) -> Void) {
        Ferry.takeDeferredDeepLink { result in deliver(result, completion) }
    }

    /// ``Ferry/identify(userID:completion:)-swift.type.method``: binds the install's attribution to your user id.
    @objc(identifyUserID:completion:)
    public static func identify(userID: String, completion: @escaping @Sendable (FerryObjCUserAttribution?, NSError?) -> Void) {
        Ferry.identify(userID: userID) { result in
            switch result {
            case .success(let attribution): completion(FerryObjCUserAttribution(attribution), nil)
            case .failure(let error): completion(nil, error as NSError)
            }
        }
    }

    /// ``Ferry/installID(completion:)-swift.type.method``: the id this install goes by, or an error before configure.
    @objc(installIDWithCompletion:)
    public static func installID(completion: @escaping @Sendable (String?, NSError?) -> Void) {
        Ferry.installID { result in
            switch result {
            case .success(let id): completion(id, nil)
            case .failure(let error): completion(nil, error as NSError)
            }
        }
    }

    /// ``Ferry/sendEvent(_:properties:linkID:)-swift.type.method``: queues an event of the app's own. Objective-C:
    /// `sendEvent:properties:linkID:error:`, which returns NO and sets the error for a name or property the server
    /// would refuse (nothing is queued then) or before configure.
    @objc(sendEvent:properties:linkID:error:)
    public static func sendEvent(_ name: String, properties: [String: String]?, linkID: String?) throws {
        try Ferry.sendEvent(FerryEvent.Name(rawValue: name), properties: properties ?? [:], linkID: linkID)
    }

    /// ``Ferry/isEnabled-swift.type.property``: whether FerryKit may send anything (kept across launches).
    @objc public static var isEnabled: Bool { Ferry.isEnabled }

    /// ``Ferry/setEnabled(_:)-swift.type.method``: turns FerryKit off (nothing is sent, events are dropped) or on again.
    @objc(setEnabled:)
    public static func setEnabled(_ enabled: Bool) {
        Ferry.setEnabled(enabled)
    }

    /// ``Ferry/reset()-swift.type.method``: forgets the install, its touches, the stored deferred answer and the
    /// queued events, as if the app had just been installed (for QA).
    @objc public static func reset() {
        Ferry.reset()
    }

    /// ``Ferry/flushEvents(completion:)-swift.type.method``: sends the queued events now.
    @objc(flushEventsWithCompletion:)
    public static func flushEvents(completion: (@Sendable () -> Void)?) {
        Ferry.flushEvents { completion?() }
    }

    /// Hands `result` to an Objective-C completion block; called on the main actor, so on the main thread.
    @MainActor
    private static func deliver(_ result: Result<DeepLink?, FerryError>, _ completion: @Sendable (FerryObjCDeepLink?, NSError?) -> Void) {
        switch result {
        case .success(let link): completion(link.map(FerryObjCDeepLink.init), nil)
        case .failure(let error): completion(nil, error as NSError)
        }
    }
}

/// What ``FerryObjC`` is configured with; only the server URL is required (``FerryOptions`` in Swift).
@objc(FRYOptions)
public final class FerryObjCOptions: NSObject {
    /// Where your Ferry server answers API calls.
    @objc public var serverURL: URL
    /// Hosts whose links are Ferry's short links (`go.example.com`).
    @objc public var linkDomains: [String] = []
    /// The app's custom URL schemes (`myapp`).
    @objc public var urlSchemes: [String] = []
    /// How much FerryKit logs. Default: warning.
    @objc public var logLevel: FerryObjCLogLevel = .warning
    /// Seconds to wait for each request. Default: 10.
    @objc public var networkTimeout: TimeInterval = 10
    /// Whether configure checks the key with the server in the background. Default: YES.
    @objc public var validatesKeyOnLaunch = true
    /// Whether the first launch reads a "copy to open" token from the pasteboard (``PasteboardClickTokenProvider``,
    /// which may show iOS's paste prompt). Default: NO. Ignored where there is no pasteboard (tvOS, watchOS).
    @objc public var readsPasteboardClickToken = false
    /// The least confidence a probable match of the deferred check must state (0.4 to 1; 1: certain matches only), or
    /// nil for the server's default (``FerryOptions/minimumMatchConfidence``). Objective-C: `@(0.6)`.
    @objc public var minimumMatchConfidence: NSNumber?
    /// Whether FerryKit keeps the install id in the keychain to recognise re-installs
    /// (``FerryOptions/recognizesReinstalls``). Default: YES.
    @objc public var recognizesReinstalls = true

    /// Options for the Ferry server at `serverURL`. Objective-C: `initWithServerURL:`.
    @objc(initWithServerURL:)
    public init(serverURL: URL) {
        self.serverURL = serverURL
        super.init()
    }

    var values: ObjectiveCOptions {
        ObjectiveCOptions(serverURL: serverURL, linkDomains: linkDomains, urlSchemes: urlSchemes, logLevel: logLevel.rawValue,
                          networkTimeout: networkTimeout, validatesKeyOnLaunch: validatesKeyOnLaunch,
                          readsPasteboardClickToken: readsPasteboardClickToken, minimumMatchConfidence: minimumMatchConfidence?.doubleValue,
                          recognizesReinstalls: recognizesReinstalls)
    }
}

/// How much FerryKit logs (``FerryLogLevel`` in Swift, with the same raw values).
@objc(FRYLogLevel)
public enum FerryObjCLogLevel: Int, Sendable {
    /// Everything, including each request.
    case debug = 0
    /// Links handled, matches found.
    case info = 1
    /// Things an app developer should look at.
    case warning = 2
    /// Failures only.
    case error = 3
    /// Nothing.
    case none = 4
}

/// The codes of FerryKit's `NSError`s (domain ``FerryObjC/errorDomain``): ``FerryError/Code/number`` in Swift.
@objc(FRYErrorCode)
public enum FerryObjCErrorCode: Int, Sendable {
    /// The API key is not a publishable key.
    case invalidAPIKey = 1
    /// A secret key was given to the SDK.
    case secretKeyInApp = 2
    /// An option is unusable.
    case invalidConfiguration = 3
    /// A call came before configure.
    case notConfigured = 4
    /// An argument of the call is unusable (`FerryField` in userInfo names it).
    case invalidArgument = 5
    /// The server could not be reached.
    case network = 6
    /// The server did not answer in time.
    case timeout = 7
    /// The server does not know the key (HTTP 401).
    case unauthorized = 8
    /// The key may not do this (HTTP 403).
    case forbidden = 9
    /// The server refused the request (HTTP 4xx).
    case badRequest = 10
    /// No such thing (HTTP 404, 410).
    case notFound = 11
    /// Too many requests (HTTP 429).
    case rateLimited = 12
    /// The server failed (HTTP 5xx).
    case server = 13
    /// The server's answer could not be read.
    case invalidResponse = 14
    /// The call was cancelled.
    case cancelled = 15
    /// FerryKit is turned off (``FerryObjC/setEnabled(_:)``).
    case disabled = 16
}

/// A link the app was opened with, or the link that led to its install (``DeepLink`` in Swift).
@objc(FRYDeepLink)
public final class FerryObjCDeepLink: NSObject, Sendable {
    /// The link as Swift sees it.
    public let deepLink: DeepLink

    /// Wraps a Swift link.
    public init(_ deepLink: DeepLink) {
        self.deepLink = deepLink
        super.init()
    }

    /// The URL the app was opened with; for a deferred link, the short URL that was clicked.
    @objc public var url: URL { deepLink.url }
    /// The URL that says where to go: the iOS deep link, else the web destination, else ``url``.
    @objc public var routingURL: URL { deepLink.routingURL }
    /// The web destination of the link.
    @objc public var destination: URL? { deepLink.destination }
    /// The iOS deep link of the link.
    @objc public var iosURL: URL? { deepLink.iosURL }
    /// The link's slug; nil for a custom-scheme URL.
    @objc public var slug: String? { deepLink.slug }
    /// The link's id on the server (`lnk_…`); nil for a custom-scheme URL.
    @objc public var linkID: String? { deepLink.linkID }
    /// Data for the app: the link's params with the opened URL's query on top.
    @objc public var params: [String: String] { deepLink.params }
    /// `utm_source`.
    @objc public var utmSource: String? { deepLink.utm.source }
    /// `utm_medium`.
    @objc public var utmMedium: String? { deepLink.utm.medium }
    /// `utm_campaign`.
    @objc public var utmCampaign: String? { deepLink.utm.campaign }
    /// `utm_content`.
    @objc public var utmContent: String? { deepLink.utm.content }
    /// `utm_term`.
    @objc public var utmTerm: String? { deepLink.utm.term }
    /// The link's campaign name.
    @objc public var campaign: String? { deepLink.campaign }
    /// Who shared the link.
    @objc public var referrer: String? { deepLink.referrer }
    /// The `dl_target` parameter, lowercased.
    @objc public var target: String? { deepLink.target }
    /// True when the link was clicked before the install and delivered on the first launch.
    @objc public var isDeferred: Bool { deepLink.isDeferred }
    /// `deterministic` or `probabilistic` for a deferred link; nil otherwise.
    @objc public var matchType: String? { deepLink.matchType?.rawValue }
    /// How sure the server is of a deferred link, 0…1 (a double); nil otherwise.
    @objc public var confidence: NSNumber? { deepLink.confidence.map { NSNumber(value: $0) } }
    /// `universalLink`, `customScheme` or `deferred`.
    @objc public var source: String { deepLink.source.rawValue }
    /// The lowest app version the link's owner says can open it.
    @objc public var minimumAppVersion: String? { deepLink.minimumAppVersion }
    /// Everything above in one dictionary of strings, numbers and dictionaries, ready for JSON.
    @objc public var dictionaryRepresentation: [String: Any] { ObjectiveCBridge.dictionary(for: deepLink) }

    /// The link's URL and slug.
    public override var description: String { "FRYDeepLink(\(deepLink.url.absoluteString), slug: \(deepLink.slug ?? "-"))" }

    /// Equal when the links are.
    public override func isEqual(_ object: Any?) -> Bool {
        (object as? FerryObjCDeepLink)?.deepLink == deepLink
    }

    /// The link's hash.
    public override var hash: Int { deepLink.hashValue }
}

/// What a user's attribution is, as identify reports it (``UserAttribution`` in Swift).
@objc(FRYUserAttribution)
public final class FerryObjCUserAttribution: NSObject, Sendable {
    /// The attribution as Swift sees it.
    public let attribution: UserAttribution

    /// Wraps a Swift attribution.
    public init(_ attribution: UserAttribution) {
        self.attribution = attribution
        super.init()
    }

    /// The user id.
    @objc public var userID: String { attribution.userID }
    /// Whether the user's install was attributed to a link.
    @objc public var attributed: Bool { attribution.attributed }
    /// Whether the user is bound to this install.
    @objc public var boundToThisInstall: Bool { attribution.boundToThisInstall }
    /// `deterministic` or `probabilistic`, when attributed.
    @objc public var matchType: String? { attribution.matchType?.rawValue }
    /// How sure the server is (a double), when attributed.
    @objc public var confidence: NSNumber? { attribution.confidence.map { NSNumber(value: $0) } }
    /// The link, when attributed.
    @objc public var link: FerryObjCDeepLink? { attribution.link.map(FerryObjCDeepLink.init) }
    /// Everything above in one dictionary, ready for JSON.
    @objc public var dictionaryRepresentation: [String: Any] { ObjectiveCBridge.dictionary(for: attribution) }
}
#endif
