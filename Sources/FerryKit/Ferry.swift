import Foundation

/// FerryKit's entry point: configure once at launch, then hand it the URLs your app is opened with and ask it,
/// on the first launch, for the link clicked before the install.
///
/// ```swift
/// // application(_:didFinishLaunchingWithOptions:)
/// try Ferry.configure(apiKey: "fk_live_…", options: FerryOptions(serverURL: URL(string: "https://links.example.com")!))
/// Task {
///     if let link = try await Ferry.checkDeferredDeepLink() { router.open(link) }
/// }
///
/// // application(_:continue:restorationHandler:) or .onOpenURL
/// Task {
///     if let link = try await Ferry.handleDeepLink(url) { router.open(link) }
/// }
/// ```
///
/// The static members work on the instance ``configure(apiKey:options:)`` made (``shared``); an app that wants
/// more than one, or a test, creates instances with ``init(apiKey:options:)`` and calls the same members on them.
/// Everything here is safe to call from any thread.
public final class Ferry: Sendable {
    /// This FerryKit's version, sent in the `User-Agent` of its requests.
    public static let sdkVersion = "0.5.0"

    /// The options this instance was made with.
    public let options: FerryOptions
    /// The key's environment: `live` or `test`.
    public let environment: APIEnvironment
    /// First and last touch: the campaign parameters of the links that opened the app.
    public let attribution: AttributionStore

    let apiKey: String
    let client: APIClient
    let storage: any FerryStorage
    let logger: FerryLogger
    let signalsProvider: any DeviceSignalsProvider
    let identity: InstallIdentity
    let uploader: EventUploader
    let handlers = EventHandlers()
    /// Whether this launch is the install's first, once FerryKit could read its storage to tell.
    let launch = Locked(LaunchState.pending(shared: false))
    let deferredRequest = SharedRequest<DeepLink?>()
    let known: Locked<KnownLinks>
    let validationTask = Locked<Task<Void, Never>?>(nil)
    /// The sending of the opens kept in storage, while it runs.
    let openSender = Locked<Task<Void, Never>?>(nil)
    let takeLock = Locked(0)
    let now: @Sendable () -> Date

    /// How long keys are trusted after the server last said they were good.
    static let validationLifetime: TimeInterval = 24 * 3600
    /// How long after the first launch a deferred link is still asked for, when the server has not said its window.
    static let defaultDeferredDeadline: TimeInterval = 7 * 86400

    // MARK: Setting up

    /// Makes an instance: checks the key's format (a secret `fs_` key is refused), sets up the transport, storage
    /// and logger, notes whether this is the install's first launch, and, unless told not to, checks the key with
    /// the server in the background (a success is trusted for 24 hours).
    ///
    /// - Throws: ``FerryError`` with ``FerryError/Code/invalidAPIKey``, ``FerryError/Code/secretKeyInApp`` or
    ///   ``FerryError/Code/invalidConfiguration``; never for network trouble, which only shows in later calls.
    public init(apiKey: String, options: FerryOptions) throws(FerryError) {
        let key = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let format = APIKeyFormat(parsing: key) else {
            throw FerryError(.invalidAPIKey, "the API key is not a Ferry publishable key: expected fk_live_ or fk_test_ followed by 32 letters and digits")
        }
        guard format.kind == .publishable else {
            throw FerryError(.secretKeyInApp, "\(format.prefix)… is a secret server key: never ship it in an app, where anyone can read it. "
                + "Revoke it if it was ever in a build, and give FerryKit a publishable key (ferry key create --kind publishable)")
        }
        guard let scheme = options.serverURL.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = options.serverURL.host, !host.isEmpty else {
            throw FerryError(.invalidConfiguration, "the server URL must be an http or https URL with a host, such as https://links.example.com")
        }
        guard options.networkTimeout > 0, options.networkTimeout.isFinite else {
            throw FerryError(.invalidConfiguration, "the network timeout must be a positive number of seconds")
        }
        guard options.linkResolutionTimeout > 0, options.linkResolutionTimeout <= 60 else {
            throw FerryError(.invalidConfiguration, "the link resolution timeout must be more than 0 and at most 60 seconds")
        }
        if let minimum = options.minimumMatchConfidence, !(minimum.isFinite && MatchRequest.minConfidenceRange.contains(minimum)) {
            let range = MatchRequest.minConfidenceRange
            throw FerryError(.invalidConfiguration, "the minimum match confidence must be from \(range.lowerBound) to \(range.upperBound)",
                             field: "minimumMatchConfidence")
        }
        self.apiKey = key
        self.options = options
        environment = format.environment
        storage = options.storage
        now = options.now
        logger = FerryLogger(level: options.logLevel, handler: options.logHandler, recorder: options.logRecorder)
        #if canImport(UIKit) && !os(watchOS)
        signalsProvider = options.deviceSignalsProvider ?? UIKitDeviceSignalsProvider()
        #else
        signalsProvider = options.deviceSignalsProvider ?? PortableDeviceSignalsProvider()
        #endif
        client = APIClient(
            baseURL: options.serverURL, apiKey: key, transport: options.transport ?? URLSessionTransport(timeout: options.networkTimeout),
            retryPolicy: options.retryPolicy, timeout: options.networkTimeout,
            userAgent: Self.userAgent(sending: options.deviceSignals),
            logger: logger.category(.network), isEnabled: { [storage] in Self.isEnabled(in: storage) })
        attribution = AttributionStore(storage: storage, now: options.now)
        identity = InstallIdentity(storage: storage, provider: signalsProvider, lasting: InstallIdentity.lastingStorage(for: options))
        // False before the device's first unlock: the first-launch decision then waits (see startLaunch).
        let storageReady = storage.isAvailable
        uploader = EventUploader(client: client, storage: storage, logger: logger.category(.events), flushDelay: options.eventFlushDelay, now: options.now,
                                 isEnabled: client.isEnabled, storageIsReady: storageReady)

        let cachedValidation = storage.value(CachedValidation.self, forKey: StorageKey.validation).flatMap { $0.keyFingerprint == CachedValidation.fingerprint(of: key) ? $0 : nil }
        known = Locked(KnownLinks(options: options, validated: cachedValidation?.settings))

        if options.validatesKeyOnLaunch, Self.isEnabled(in: storage),
           cachedValidation.map({ options.now().timeIntervalSince($0.validatedAt) >= Self.validationLifetime || $0.validatedAt > options.now() }) ?? true {
            validationTask.withLock { task in
                task = Task { [weak self] in _ = try? await self?.validateKey() }
            }
        }
        startLaunch(storageReady: storageReady)
        // Opens of links that could not be resolved on an earlier launch.
        sendPendingOpensSoon()
    }

    // MARK: The shared instance

    private static let current = Locked<Ferry?>(nil)
    static let globalHandlers = EventHandlers()

    /// The instance ``configure(apiKey:options:)`` made, or nil before it is called.
    public static var shared: Ferry? { current.withLock { $0 } }

    /// Sets FerryKit up for the app; call it once, early in `application(_:didFinishLaunchingWithOptions:)` or your
    /// `App`'s `init`. See ``init(apiKey:options:)`` for what it does and throws.
    ///
    /// ```swift
    /// try Ferry.configure(apiKey: "fk_live_…", options: FerryOptions(serverURL: URL(string: "https://links.example.com")!))
    /// ```
    @discardableResult
    public static func configure(apiKey: String, options: FerryOptions) throws(FerryError) -> Ferry {
        let made: Result<Ferry, FerryError> = $publishesLaunchEvents.withValue(false) {
            do throws(FerryError) { return .success(try Ferry(apiKey: apiKey, options: options)) } catch { return .failure(error) }
        }
        let ferry = try made.get()
        let previous = current.withLock { current -> Ferry? in
            defer { current = ferry }
            return current
        }
        ferry.becameShared()
        if previous != nil { ferry.logger.warning("Ferry.configure was called again; the new configuration replaces the old one") }
        return ferry
    }

    static func requireShared(_ call: String) throws(FerryError) -> Ferry {
        guard let ferry = shared else {
            throw FerryError(.notConfigured, "Ferry.\(call) was called before Ferry.configure(apiKey:options:)")
        }
        return ferry
    }

    /// ``handleDeepLink(_:)-swift.method`` on the shared instance.
    public static func handleDeepLink(_ url: URL) async throws(FerryError) -> DeepLink? {
        try await requireShared("handleDeepLink").handleDeepLink(url)
    }

    /// ``handleDeepLink(_:completion:)-swift.method`` on the shared instance; without one, the completion gets
    /// ``FerryError/Code/notConfigured``.
    public static func handleDeepLink(_ url: URL, completion: @escaping @MainActor @Sendable (Result<DeepLink?, FerryError>) -> Void) {
        do { try requireShared("handleDeepLink").handleDeepLink(url, completion: completion) } catch {
            Task { @MainActor in completion(.failure(error)) }
        }
    }

    /// ``checkDeferredDeepLink()-swift.method`` on the shared instance.
    public static func checkDeferredDeepLink() async throws(FerryError) -> DeepLink? {
        try await requireShared("checkDeferredDeepLink").checkDeferredDeepLink()
    }

    /// ``checkDeferredDeepLink(completion:)-swift.method`` on the shared instance.
    public static func checkDeferredDeepLink(completion: @escaping @MainActor @Sendable (Result<DeepLink?, FerryError>) -> Void) {
        do { try requireShared("checkDeferredDeepLink").checkDeferredDeepLink(completion: completion) } catch {
            Task { @MainActor in completion(.failure(error)) }
        }
    }

    /// ``shortLink(for:)-swift.method`` on the shared instance.
    public static func shortLink(for builder: LinkBuilder) async throws(FerryError) -> URL {
        try await requireShared("shortLink").shortLink(for: builder)
    }

    /// ``shortLink(for:completion:)-swift.method`` on the shared instance; without one, the completion gets
    /// ``FerryError/Code/notConfigured``.
    public static func shortLink(for builder: LinkBuilder, completion: @escaping @MainActor @Sendable (Result<URL, FerryError>) -> Void) {
        do { try requireShared("shortLink").shortLink(for: builder, completion: completion) } catch {
            Task { @MainActor in completion(.failure(error)) }
        }
    }

    /// ``createLink(for:)-swift.method`` on the shared instance.
    public static func createLink(for builder: LinkBuilder) async throws(FerryError) -> ShortLink {
        try await requireShared("createLink").createLink(for: builder)
    }

    /// ``identify(userID:)-swift.method`` on the shared instance.
    @discardableResult
    public static func identify(userID: String) async throws(FerryError) -> UserAttribution {
        try await requireShared("identify").identify(userID: userID)
    }

    /// First and last touch of the shared instance; before ``configure(apiKey:options:)``, the same store on the
    /// default storage, so what it reads is what the configured instance will read.
    public static var attribution: AttributionStore {
        shared?.attribution ?? fallbackAttribution
    }
    private static let fallbackAttribution = AttributionStore(storage: UserDefaultsStorage())

    /// Subscribes `handler` to the events of every instance, including one configured later. A handler that
    /// subscribes after ``configure(apiKey:options:)`` first hears that launch's `install` (on a first launch) and
    /// `open` events. It hears every event published from the moment it subscribes, once and in order (one
    /// published while it is still being handed the launch events comes right after them). The handler is called on
    /// the thread that produced the event; hop to the main actor yourself if you need it.
    @discardableResult
    public static func onEvent(_ handler: @escaping @Sendable (FerryEvent) -> Void) -> FerryEventSubscription {
        globalHandlers.add(handler)
    }

    /// Sends the shared instance's queued events now (for example when the app goes to the background).
    public static func flushEvents() async {
        await shared?.flushEvents()
    }

    /// The main path and sub path of a link, for apps that route on path segments:
    /// `https://go.example.com/link/product/42` and `myapp://product/42` both give `product` and `42`.
    public static func parsePathParams(from url: URL) -> PathParams { PathParams(url: url) }
}
