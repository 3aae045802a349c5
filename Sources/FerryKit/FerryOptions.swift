import Foundation

/// How much FerryKit logs.
public enum FerryLogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Everything, including each request.
    case debug
    /// Links handled, matches found.
    case info
    /// Things an app developer should look at (the default).
    case warning
    /// Failures only.
    case error
    /// Nothing.
    case none

    /// Orders levels from the most talkative to silence.
    public static func < (lhs: FerryLogLevel, rhs: FerryLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How FerryKit retries a request that failed for a reason that may pass: no answer, a timeout, or a 5xx.
///
/// A 429 (too many requests) is tried again only after the wait its `Retry-After` header asks for (in seconds), and
/// only when that wait is no longer than ``maxDelay`` (for a call with a deadline of its own, when the wait ends
/// before the deadline) and a try is left; otherwise, as a 429 without the header, it fails at once
/// with ``FerryError/Code/rateLimited``, whose message names the wait. Any other 4xx answer is never retried.
public struct RetryPolicy: Sendable, Hashable {
    /// Tries in all, the first included (1 means no retry).
    public var maxAttempts: Int
    /// The wait before the first retry, in seconds; it doubles for each further retry.
    public var initialDelay: TimeInterval
    /// The longest wait between two tries, in seconds.
    public var maxDelay: TimeInterval

    /// Creates a policy.
    public init(maxAttempts: Int = 3, initialDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 8) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = max(0, initialDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// Three tries, waiting about 0.5 s and then 1 s.
    public static let `default` = RetryPolicy()
    /// One try.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before try number `attempt + 1` (attempt counts from 1), with up to 25% taken off at random
    /// so that many devices failing together do not retry together.
    func delay(afterAttempt attempt: Int) -> TimeInterval {
        let base = min(maxDelay, initialDelay * pow(2, Double(attempt - 1)))
        return base * Double.random(in: 0.75...1)
    }
}

/// Everything ``Ferry/configure(apiKey:options:)`` can be told. Only the server URL is required.
///
/// ```swift
/// var options = FerryOptions(serverURL: URL(string: "https://links.example.com")!)
/// options.linkDomains = ["go.example.com"]
/// options.logLevel = .info
/// try Ferry.configure(apiKey: "fk_live_…", options: options)
/// ```
public struct FerryOptions: Sendable {
    /// Where your Ferry server answers API calls, such as `https://links.example.com`.
    public var serverURL: URL
    /// Hosts whose links are Ferry's short links (`go.example.com`). The domains the server reports when it
    /// validates the key are added to these; links on a subdomain are recognised in the `/link/{slug}` form.
    public var linkDomains: [String]
    /// The app's custom URL schemes (`myapp`), read on the device without a network call. The scheme the
    /// server reports for the app is added to these.
    public var urlSchemes: [String]
    /// How much to log. Default: ``FerryLogLevel/warning``.
    public var logLevel: FerryLogLevel
    /// Where log lines go, each whole. Without one, FerryKit writes to the unified log through `os.Logger`
    /// (subsystem `dev.ferry.sdk`, categories `general`, `deferred`, `events`, `network`, `users` and `links`), where
    /// URLs, install ids, user ids, link ids and slugs are private, and to standard error where there is no `os`.
    public var logHandler: (@Sendable (FerryLogLevel, String) -> Void)?
    /// Sees every line that passes ``logLevel``, with its category and privacy (for tests).
    var logRecorder: FerryLogger.Recorder?
    /// Stands in for the general pasteboard (for tests).
    var pasteboardAccess: (any PasteboardAccess)?
    /// Seconds to wait for each request. Default: 10.
    public var networkTimeout: TimeInterval
    /// Retries of failed requests. Default: ``RetryPolicy/default``.
    public var retryPolicy: RetryPolicy
    /// The longest ``Ferry/handleDeepLink(_:)`` takes to resolve a link with the server, in seconds, every try and
    /// wait included; more than 0 and at most 60. Default: 3. Past it, the call returns the link as read from its
    /// URL (``DeepLink/isResolved`` false), and its open is sent to the server later.
    public var linkResolutionTimeout: TimeInterval
    /// Where FerryKit keeps its state. Default: a `UserDefaults` suite of its own (``UserDefaultsStorage``).
    public var storage: any FerryStorage
    /// Where FerryKit keeps the install id so that it outlives the app: a re-install then goes by the same install id,
    /// its first launch sends `reinstall` rather than `install`, and the server answers its deferred deep link afresh,
    /// certain of a click made in a browser that led this device to the app before. Default: nil, which means the
    /// keychain (``KeychainStorage``) on Apple platforms when ``storage`` is FerryKit's own ``UserDefaultsStorage``,
    /// and nothing otherwise; see ``recognizesReinstalls`` to turn it off.
    public var lastingStorage: (any FerryStorage)?
    /// Whether FerryKit keeps the install id in ``lastingStorage`` to recognise re-installs. Default: true.
    public var recognizesReinstalls: Bool
    /// What sends requests. Default: ``URLSessionTransport`` with ``networkTimeout``.
    public var transport: (any FerryTransport)?
    /// What tells the device's signals for deferred deep links. Default: ``UIKitDeviceSignalsProvider`` where
    /// UIKit has a device (iOS, iPadOS, Mac Catalyst, tvOS, visionOS), ``PortableDeviceSignalsProvider`` elsewhere.
    public var deviceSignalsProvider: (any DeviceSignalsProvider)?
    /// Which of the device's signals the deferred deep link match sends: ``DeviceSignalsPolicy/all`` (the default),
    /// ``DeviceSignalsPolicy/minimal`` (platform, OS version, first language) or ``DeviceSignalsPolicy/none``. Fewer
    /// signals match fewer installs (docs/ios-integration.md gives what each choice costs); the `User-Agent` of
    /// FerryKit's requests names no more of the device than the choice allows.
    public var deviceSignals: DeviceSignalsPolicy
    /// What reads a click token ("copy to open") on the first launch. Default: none, because reading the
    /// pasteboard shows iOS's paste prompt; see ``PasteboardClickTokenProvider`` (not on tvOS and watchOS, which
    /// have no pasteboard), or offer a paste button and call ``Ferry/checkDeferredDeepLink(pasted:)-swift.method``.
    public var clickTokenProvider: (any ClickTokenProvider)?
    /// The least confidence a probabilistic deferred deep link match must state to be given to the app, from 0.4 to 1
    /// (1: only deterministic matches, by a click token or the Play Store referrer). Default: nil, the app's setting on
    /// the server (`ferry app update --min-confidence`), else the server's own threshold.
    ///
    /// A lower minimum gives more installs their link, and more of them the wrong one: a match stated at 0.6 is meant
    /// to be wrong about four times in ten (docs/deferred-deep-links.md). The server answers an install once; asking
    /// again with another minimum does not find another click.
    ///
    /// ```swift
    /// options.minimumMatchConfidence = 0.6  // a welcome screen, where a wrong guess costs little
    /// ```
    public var minimumMatchConfidence: Double?
    /// Whether `configure` checks the key with the server in the background (at most once a day). Default: true.
    public var validatesKeyOnLaunch: Bool
    /// Seconds events wait before they are sent together. Default: 5.
    public var eventFlushDelay: TimeInterval
    /// The clock; tests move it.
    public var now: @Sendable () -> Date

    /// Options for the Ferry server at `serverURL`.
    public init(serverURL: URL, linkDomains: [String] = [], urlSchemes: [String] = []) {
        self.serverURL = serverURL
        self.linkDomains = linkDomains
        self.urlSchemes = urlSchemes
        logLevel = .warning
        logHandler = nil
        networkTimeout = 10
        retryPolicy = .default
        linkResolutionTimeout = 3
        storage = UserDefaultsStorage()
        lastingStorage = nil
        recognizesReinstalls = true
        transport = nil
        deviceSignalsProvider = nil
        deviceSignals = .all
        clickTokenProvider = nil
        minimumMatchConfidence = nil
        validatesKeyOnLaunch = true
        eventFlushDelay = 5
        now = { Date() }
    }
}
