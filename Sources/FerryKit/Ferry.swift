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
    public static let sdkVersion = "0.4.0"

    /// The options this instance was made with.
    public let options: FerryOptions
    /// The key's environment: `live` or `test`.
    public let environment: APIEnvironment
    /// First and last touch: the campaign parameters of the links that opened the app.
    public let attribution: AttributionStore
    /// True when this process is the first launch of the install (nothing of FerryKit's was in storage).
    public let isFirstLaunch: Bool

    let apiKey: String
    let client: APIClient
    let storage: any FerryStorage
    let logger: FerryLogger
    let signalsProvider: any DeviceSignalsProvider
    let identity: InstallIdentity
    let uploader: EventUploader
    let handlers = EventHandlers()
    /// The install and open events of this launch, replayed to handlers that subscribe after `configure`.
    let launchEvents: [FerryEvent]
    let deferredRequest = SharedRequest<DeepLink?>()
    let known: Locked<KnownLinks>
    let validationTask = Locked<Task<Void, Never>?>(nil)
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
        self.apiKey = key
        self.options = options
        environment = format.environment
        storage = options.storage
        now = options.now
        logger = FerryLogger(level: options.logLevel, handler: options.logHandler)
        #if canImport(UIKit) && !os(watchOS)
        signalsProvider = options.deviceSignalsProvider ?? UIKitDeviceSignalsProvider()
        #else
        signalsProvider = options.deviceSignalsProvider ?? PortableDeviceSignalsProvider()
        #endif
        client = APIClient(
            baseURL: options.serverURL, apiKey: key, transport: options.transport ?? URLSessionTransport(timeout: options.networkTimeout),
            retryPolicy: options.retryPolicy, timeout: options.networkTimeout,
            userAgent: "FerryKit/\(Self.sdkVersion) (\(PortableDeviceSignalsProvider.currentPlatform) \(DeviceInfo.osVersion); \(DeviceInfo.hardwareModel ?? "unknown"))",
            logger: logger)
        attribution = AttributionStore(storage: storage, now: options.now)
        identity = InstallIdentity(storage: storage, provider: signalsProvider)
        uploader = EventUploader(client: client, storage: storage, logger: logger, flushDelay: options.eventFlushDelay, now: options.now)

        let cachedValidation = storage.value(CachedValidation.self, forKey: StorageKey.validation).flatMap { $0.keyFingerprint == CachedValidation.fingerprint(of: key) ? $0 : nil }
        known = Locked(KnownLinks(options: options, validated: cachedValidation?.settings))

        if let firstLaunch = storage.value(Date.self, forKey: StorageKey.firstLaunch) {
            isFirstLaunch = false
            logger.debug("launch of an install first seen \(FerryJSON.formatDate(firstLaunch))")
        } else {
            storage.setValue(options.now(), forKey: StorageKey.firstLaunch)
            isFirstLaunch = true
            logger.info("first launch of this install")
        }

        let launched = options.now()
        launchEvents = (isFirstLaunch ? [FerryEvent.Name.install, .open] : [.open]).map { FerryEvent(name: $0, timestamp: launched) }

        if options.validatesKeyOnLaunch,
           cachedValidation.map({ options.now().timeIntervalSince($0.validatedAt) >= Self.validationLifetime || $0.validatedAt > options.now() }) ?? true {
            validationTask.withLock { task in
                task = Task { [weak self] in _ = try? await self?.validateKey() }
            }
        }
        for event in launchEvents { record(event) }
    }

    // MARK: The shared instance

    private static let current = Locked<Ferry?>(nil)
    private static let globalHandlers = EventHandlers()

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
        let ferry = try Ferry(apiKey: apiKey, options: options)
        let previous = current.withLock { current -> Ferry? in
            defer { current = ferry }
            return current
        }
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
    /// `open` events. The handler is called on the thread that produced the event; hop to the main actor yourself
    /// if you need it.
    @discardableResult
    public static func onEvent(_ handler: @escaping @Sendable (FerryEvent) -> Void) -> FerryEventSubscription {
        globalHandlers.add(handler, replaying: shared?.launchEvents ?? [])
    }

    /// Sends the shared instance's queued events now (for example when the app goes to the background).
    public static func flushEvents() async {
        await shared?.flushEvents()
    }

    /// The main path and sub path of a link, for apps that route on path segments:
    /// `https://go.example.com/link/product/42` and `myapp://product/42` both give `product` and `42`.
    public static func parsePathParams(from url: URL) -> PathParams { PathParams(url: url) }

    // MARK: Links the app is opened with

    /// Turns a URL the app was opened with into a ``DeepLink``.
    ///
    /// - A Universal Link on one of the app's link domains (`https://go.example.com/summer`, or
    ///   `https://promo.go.example.com/link/summer`) is resolved with the server, which records the open.
    /// - A URL in one of the app's custom schemes is read on the device.
    /// - Any other URL gives nil, as does a link the server does not know (or no longer serves).
    ///
    /// Every link returned is recorded as last touch (and as first touch the first time) and produces a
    /// ``FerryEvent/Name/deepLinkOpened`` event.
    ///
    /// - Throws: ``FerryError`` when the server could not be asked (after retries) or refused the key.
    public func handleDeepLink(_ url: URL) async throws(FerryError) -> DeepLink? {
        var kind = classify(url)
        if kind == .notFerry, let pending = validationTask.withLock({ $0 }) {
            // The app may be opened by a link before the key check has told FerryKit the app's domains:
            // wait for it, but not for long, since most URLs that are not Ferry's are the app's own.
            await Self.wait(for: pending, atMost: min(3, options.networkTimeout))
            kind = classify(url)
        }
        let link: DeepLink
        switch kind {
        case .notFerry:
            logger.debug("\(url.absoluteString.prefix(200)) is not a Ferry link")
            return nil
        case .customScheme:
            link = DeepLink(customSchemeURL: url)
        case .shortLink(let domain, let slug):
            let installID = await identity.id()
            do {
                let answer = try await client.get(
                    FerryRoutes.resolve(slug: slug),
                    query: [URLQueryItem(name: "domain", value: domain), URLQueryItem(name: "installID", value: installID)],
                    as: ResolveResponse.self)
                link = DeepLink(link: answer.link, openedURL: url, deferred: nil)
            } catch where error.code == .notFound {
                logger.info("the server has no active link '\(slug)' on \(domain)")
                return nil
            }
        }
        logger.info("opened by link \(link.slug ?? link.url.absoluteString)")
        didOpen(link)
        return link
    }

    /// ``handleDeepLink(_:)-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func handleDeepLink(_ url: URL, completion: @escaping @MainActor @Sendable (Result<DeepLink?, FerryError>) -> Void) {
        Task {
            let result: Result<DeepLink?, FerryError>
            do throws(FerryError) { result = .success(try await handleDeepLink(url)) } catch { result = .failure(error) }
            await completion(result)
        }
    }

    /// Whether `url` is a link FerryKit would handle (a short link on the app's domains or a custom-scheme URL),
    /// decided on the device without a network call.
    public func canHandle(_ url: URL) -> Bool { classify(url) != .notFerry }

    /// Waits until `task` ends or `seconds` pass, whichever comes first (the task is not cancelled).
    static func wait(for task: Task<Void, Never>, atMost seconds: TimeInterval) async {
        let resumed = Locked(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            @Sendable func resumeOnce() {
                if resumed.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            let timer = Task {
                try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                resumeOnce()
            }
            Task {
                await task.value
                timer.cancel()
                resumeOnce()
            }
        }
    }

    func classify(_ url: URL) -> LinkURL {
        let (domains, schemes) = known.withLock { ($0.domains, $0.schemes) }
        return LinkURL(url, domains: domains, schemes: schemes)
    }

    func didOpen(_ link: DeepLink) {
        let parameters = FerryEvent.parameters(for: link)
        let isFirstTouch = attribution.record(link)
        publish(FerryEvent(name: .deepLinkOpened, parameters: parameters, timestamp: now()))
        if isFirstTouch { publish(FerryEvent(name: .firstTouchAttributed, parameters: parameters, timestamp: now())) }
    }

    // MARK: Deferred deep links

    /// The link clicked before this app was installed, on the install's first launch; nil when there was none.
    ///
    /// The first call sends the device's signals to the server once; its answer, link or not, is kept in storage, and
    /// every later call (this launch or any other, from any instance on the same storage) returns it at once without
    /// a network call. Calls made while the request is under way share it. When the request fails, nothing is kept
    /// and the next call asks again, for as long as the app's attribution window lasts after the first launch.
    ///
    /// - Throws: ``FerryError`` when the server could not be asked (after retries) or refused the key.
    public func checkDeferredDeepLink() async throws(FerryError) -> DeepLink? {
        if let cached = storage.value(CachedMatch.self, forKey: StorageKey.deferred) { return cached.link }
        do {
            return try await deferredRequest.run { [self] in try await self.matchInstall() }
        } catch let error as FerryError {
            throw error
        } catch {
            throw FerryError(.cancelled, "the deferred deep link check was cancelled", underlying: error)
        }
    }

    /// The deferred deep link, handed over once: the first call that finds one returns it, every later call
    /// (in this launch or another) returns nil. For apps that route to the link and must not do it twice.
    ///
    /// ```swift
    /// if let link = try await Ferry.shared?.takeDeferredDeepLink() { router.open(link) }
    /// ```
    public func takeDeferredDeepLink() async throws(FerryError) -> DeepLink? {
        guard let link = try await checkDeferredDeepLink() else { return nil }
        let first = takeLock.withLock { _ -> Bool in
            guard storage.value(Bool.self, forKey: StorageKey.deferredTaken) != true else { return false }
            storage.setValue(true, forKey: StorageKey.deferredTaken)
            return true
        }
        return first ? link : nil
    }

    /// ``checkDeferredDeepLink()-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func checkDeferredDeepLink(completion: @escaping @MainActor @Sendable (Result<DeepLink?, FerryError>) -> Void) {
        Task {
            let result: Result<DeepLink?, FerryError>
            do throws(FerryError) { result = .success(try await checkDeferredDeepLink()) } catch { result = .failure(error) }
            await completion(result)
        }
    }

    func matchInstall() async throws(FerryError) -> DeepLink? {
        if let cached = storage.value(CachedMatch.self, forKey: StorageKey.deferred) { return cached.link }
        let firstLaunch = storage.value(Date.self, forKey: StorageKey.firstLaunch) ?? now()
        let window = known.withLock { $0.attributionWindow } ?? Self.defaultDeferredDeadline
        if now().timeIntervalSince(firstLaunch) > window {
            logger.info("the first launch was longer ago than the attribution window: no deferred deep link")
            storage.setValue(CachedMatch(checkedAt: now(), link: nil), forKey: StorageKey.deferred)
            return nil
        }
        let installID = await identity.id()
        let signals = await signalsProvider.signals()
        // A token read from the pasteboard is kept until the server has answered: the pasteboard may be gone by the retry.
        var token = storage.value(String.self, forKey: StorageKey.clickToken)
        if token == nil, let read = await options.clickTokenProvider?.clickToken() {
            token = read
            storage.setValue(read, forKey: StorageKey.clickToken)
        }
        let answer = try await client.post(
            FerryRoutes.attributionMatch, body: MatchRequest(installID: installID, signals: signals, clickToken: token), as: MatchResponse.self)
        let link: DeepLink? = if answer.matched, let data = answer.link { DeepLink(link: data, openedURL: nil, deferred: answer) } else { nil }
        storage.setValue(CachedMatch(checkedAt: now(), link: link), forKey: StorageKey.deferred)
        storage.setData(nil, forKey: StorageKey.clickToken)
        if let link {
            logger.info("install matched to link \(link.slug ?? "?") (\(link.matchType?.rawValue ?? "?"), confidence \(link.confidence ?? 0))")
            publish(FerryEvent(name: .deferredDeepLinkMatched, parameters: FerryEvent.parameters(for: link), timestamp: now()))
            didOpen(link)
        } else {
            logger.info("no link led to this install")
        }
        return link
    }

    // MARK: Users

    /// The id FerryKit knows this install by: made on the first launch and kept in storage, sent with every match,
    /// open and event.
    ///
    /// Send it to your backend at sign-up, so that your backend binds the user to this install with a secret key
    /// (`POST /v1/attribution/user`): that binding is the one nobody else can claim first, and ``identify(userID:)``
    /// reports it afterwards.
    ///
    /// ```swift
    /// let installID = await Ferry.shared?.installID()
    /// try await api.signUp(email: email, password: password, ferryInstallID: installID)
    /// ```
    public func installID() async -> String {
        await identity.id()
    }

    /// Binds this install's attribution to your user id after sign-up or log-in, so the server can tell which link
    /// brought the user. Idempotent: the same user id gets the same answer, from storage after the first time.
    ///
    /// When the install's deferred deep link check has not run yet, it runs first, because the server binds the user
    /// to what the install was matched to; if that check fails, `identify` fails with it rather than bind the user
    /// as not attributed for good.
    ///
    /// - Throws: ``FerryError/Code/invalidArgument`` for a user id that is empty, longer than 128 characters or has
    ///   spaces or control characters; otherwise as the network calls do.
    @discardableResult
    public func identify(userID: String) async throws(FerryError) -> UserAttribution {
        guard (1...128).contains(userID.utf8.count), userID.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw FerryError(.invalidArgument, "userID must be 1 to 128 printable ASCII characters without spaces")
        }
        if let cached = storage.value(UserAttribution.self, forKey: StorageKey.identifiedUser), cached.userID == userID { return cached }
        if storage.data(forKey: StorageKey.deferred) == nil { _ = try await checkDeferredDeepLink() }
        let installID = await identity.id()
        let answer = try await client.post(FerryRoutes.attributionUser, body: AttributeUserRequest(installID: installID, userID: userID),
                                           as: AttributeUserResponse.self)
        let result = UserAttribution(
            userID: answer.userID, attributed: answer.attributed, matchType: answer.matchType, confidence: answer.confidence,
            link: answer.link.map { DeepLink(link: $0, openedURL: nil, deferred: MatchResponse(matched: true, matchType: answer.matchType, confidence: answer.confidence, isDeferred: true, link: $0)) },
            boundToThisInstall: answer.boundToThisInstall)
        storage.setValue(result, forKey: StorageKey.identifiedUser)
        return result
    }

    // MARK: Key validation

    /// Asks the server whether the key is good and learns the app's link domains, custom scheme and attribution
    /// window. `configure` does this in the background at most once every 24 hours; call it to find out now.
    ///
    /// - Throws: ``FerryError/Code/unauthorized`` for an unknown or revoked key, or a network error.
    @discardableResult
    public func validateKey() async throws(FerryError) -> SDKValidateResponse {
        do {
            let settings = try await client.post(FerryRoutes.sdkValidate, body: EmptyBody(), as: SDKValidateResponse.self)
            storage.setValue(CachedValidation(keyFingerprint: CachedValidation.fingerprint(of: apiKey), validatedAt: now(), settings: settings),
                             forKey: StorageKey.validation)
            known.withLock { $0 = KnownLinks(options: options, validated: settings) }
            logger.debug("key valid for app \(settings.appName) (\(settings.environment.rawValue)); link domains \(settings.domains)")
            return settings
        } catch {
            if error.code == .unauthorized || error.code == .forbidden {
                logger.error("the server refused the API key: \(error.message)")
            }
            throw error
        }
    }

    /// What the server said when it last validated the key (kept for 24 hours before asking again), or nil.
    public var validation: SDKValidateResponse? { known.withLock { $0.validated } }

    // MARK: Events

    /// Subscribes `handler` to this instance's events, starting with this launch's `install` (on a first launch)
    /// and `open` events, which happened when the instance was made. The handler is called on the thread that
    /// produced the event.
    @discardableResult
    public func onEvent(_ handler: @escaping @Sendable (FerryEvent) -> Void) -> FerryEventSubscription {
        handlers.add(handler, replaying: launchEvents)
    }

    /// Sends queued install and open events now instead of after ``FerryOptions/eventFlushDelay``.
    public func flushEvents() async {
        await uploader.flush()
    }

    /// Install and open events not yet accepted by the server.
    public var pendingEventCount: Int {
        get async { await uploader.pendingCount }
    }

    func publish(_ event: FerryEvent) {
        handlers.publish(event)
        Self.globalHandlers.publish(event)
    }

    /// Publishes an install or open event to the subscribers of every instance and queues it for the server.
    func record(_ event: FerryEvent) {
        Self.globalHandlers.publish(event)
        let identity = identity, uploader = uploader
        Task {
            let installID = await identity.id()
            await uploader.enqueue(SDKEvent(name: event.name.rawValue, installID: installID, timestamp: event.timestamp))
        }
    }
}

/// What a user's attribution is, as ``Ferry/identify(userID:)`` reports it.
public struct UserAttribution: Sendable, Hashable, Codable {
    /// The user id.
    public var userID: String
    /// Whether the user's install was attributed to a link.
    public var attributed: Bool
    /// How the install was tied to the link, when attributed.
    public var matchType: MatchType?
    /// How sure the server is, when attributed.
    public var confidence: Double?
    /// The link, when attributed.
    public var link: DeepLink?
    /// Whether the user is bound to this install. False when the user id was bound to another install first (the
    /// user signed up on another device, or the app's backend bound it): the server then tells this install nothing
    /// of that attribution, and `attributed` is false. Bind from your backend with a secret key to settle which
    /// install a user belongs to.
    public var boundToThisInstall: Bool

    /// Creates an attribution.
    public init(userID: String, attributed: Bool, matchType: MatchType? = nil, confidence: Double? = nil, link: DeepLink? = nil,
                boundToThisInstall: Bool = true) {
        self.userID = userID
        self.attributed = attributed
        self.matchType = matchType
        self.confidence = confidence
        self.link = link
        self.boundToThisInstall = boundToThisInstall
    }

    private enum CodingKeys: String, CodingKey { case userID, attributed, matchType, confidence, link, boundToThisInstall }

    /// Decodes a stored attribution; one kept before `boundToThisInstall` existed was bound to this install.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userID = try container.decode(String.self, forKey: .userID)
        attributed = try container.decode(Bool.self, forKey: .attributed)
        matchType = try container.decodeIfPresent(MatchType.self, forKey: .matchType)
        confidence = try container.decodeIfPresent(Double.self, forKey: .confidence)
        link = try container.decodeIfPresent(DeepLink.self, forKey: .link)
        boundToThisInstall = try container.decodeIfPresent(Bool.self, forKey: .boundToThisInstall) ?? true
    }
}

/// Keys of what FerryKit keeps in ``FerryStorage``.
enum StorageKey {
    static let firstLaunch = "install.firstLaunch"
    static let installID = "install.id"
    static let deferred = "deferred.result"
    static let validation = "key.validation"
    static let identifiedUser = "user.attribution"
    static let clickToken = "deferred.clickToken"
    static let deferredTaken = "deferred.taken"
}

/// The deferred deep link answer, link or not, kept so the match is asked for once per install.
struct CachedMatch: Codable {
    var checkedAt: Date
    var link: DeepLink?
}

/// The last successful key validation, for the key with that fingerprint.
struct CachedValidation: Codable {
    var keyFingerprint: String
    var validatedAt: Date
    var settings: SDKValidateResponse

    /// A 64-bit FNV-1a hash of the key: enough to tell keys apart without keeping the key itself.
    static func fingerprint(of key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// The link domains and schemes FerryKit recognises: the options' and the server's.
struct KnownLinks: Sendable {
    var domains: Set<String>
    var schemes: Set<String>
    var validated: SDKValidateResponse?

    init(options: FerryOptions, validated: SDKValidateResponse?) {
        var domains = Set(options.linkDomains.compactMap(LinkURL.normalizeDomain))
        var schemes = Set(options.urlSchemes.map { $0.lowercased().replacingOccurrences(of: "://", with: "") }.filter { !$0.isEmpty })
        if let validated {
            domains.formUnion(validated.domains.compactMap(LinkURL.normalizeDomain))
            if let scheme = validated.urlScheme?.lowercased(), !scheme.isEmpty { schemes.insert(scheme) }
        }
        schemes.subtract(["http", "https"])
        self.domains = domains
        self.schemes = schemes
        self.validated = validated
    }

    var attributionWindow: TimeInterval? { validated.map { TimeInterval($0.attributionWindowSeconds) } }
}

/// The id this install goes by on the server: the provider's (the IDFV) the first time, then always the same one.
actor InstallIdentity {
    let storage: any FerryStorage
    let provider: any DeviceSignalsProvider
    private var cached: String?

    init(storage: any FerryStorage, provider: any DeviceSignalsProvider) {
        self.storage = storage
        self.provider = provider
    }

    func id() async -> String {
        if let cached { return cached }
        if let stored = storage.value(String.self, forKey: StorageKey.installID), !stored.isEmpty {
            cached = stored
            return stored
        }
        let fresh = await provider.installIdentifier().flatMap { id -> String? in
            (1...128).contains(id.utf8.count) && id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) ? id : nil
        } ?? UUID().uuidString
        if let raced = cached { return raced }
        cached = fresh
        storage.setValue(fresh, forKey: StorageKey.installID)
        return fresh
    }
}

/// One request shared by every caller that asks while it is under way.
actor SharedRequest<Value: Sendable> {
    private var task: Task<Value, any Error>?

    func run(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let task { return try await task.value }
        let task = Task { try await operation() }
        self.task = task
        defer { self.task = nil }
        return try await task.value
    }
}

/// The empty JSON object some routes take as their body.
struct EmptyBody: Codable {}
