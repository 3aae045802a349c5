import Foundation

/// Deferred deep links: the link clicked before the install, asked for once on the first launch.
extension Ferry {
    /// The link clicked before this app was installed, on the install's first launch; nil when there was none.
    ///
    /// The first call sends the device's signals to the server once; its answer, link or not, is kept in storage, and
    /// every later call (this launch or any other, from any instance on the same storage) returns it at once without
    /// a network call. Calls made while the request is under way share it. When the request fails, nothing is kept
    /// and the next call asks again, for as long as the app's attribution window lasts after the first launch.
    ///
    /// Cancelling the task that awaits it makes the call throw ``FerryError/Code/cancelled`` at once; the request
    /// goes on for the other callers, and its answer is stored all the same.
    ///
    /// - Throws: ``FerryError`` when the server could not be asked (after retries) or refused the key, or
    ///   ``FerryError/Code/cancelled`` when the calling task was cancelled.
    public func checkDeferredDeepLink() async throws(FerryError) -> DeepLink? {
        // Before the device's first unlock, nothing stored can be read: not even whether this was asked already.
        guard await launchDecided() else { throw FerryError(.cancelled, "the deferred deep link check was cancelled") }
        if let cached = storage.value(CachedMatch.self, forKey: StorageKey.deferred) { return cached.link }
        guard isEnabled else { return nil }
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

    /// ``takeDeferredDeepLink()-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func takeDeferredDeepLink(completion: @escaping Completion<DeepLink?>) {
        complete(completion) { ferry throws(FerryError) in try await ferry.takeDeferredDeepLink() }
    }

    /// ``takeDeferredDeepLink()-swift.method`` on the shared instance.
    public static func takeDeferredDeepLink() async throws(FerryError) -> DeepLink? {
        try await requireShared("takeDeferredDeepLink").takeDeferredDeepLink()
    }

    /// ``takeDeferredDeepLink(completion:)-swift.method`` on the shared instance; without one, the completion gets
    /// ``FerryError/Code/notConfigured``.
    public static func takeDeferredDeepLink(completion: @escaping Completion<DeepLink?>) {
        completeOnShared("takeDeferredDeepLink", completion) { ferry throws(FerryError) in try await ferry.takeDeferredDeepLink() }
    }

    /// ``checkDeferredDeepLink()-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func checkDeferredDeepLink(completion: @escaping @MainActor @Sendable (Result<DeepLink?, FerryError>) -> Void) {
        complete(completion) { ferry throws(FerryError) in try await ferry.checkDeferredDeepLink() }
    }

    func matchInstall() async throws(FerryError) -> DeepLink? {
        if let cached = storage.value(CachedMatch.self, forKey: StorageKey.deferred) { return cached.link }
        let firstLaunch = storage.value(Date.self, forKey: StorageKey.firstLaunch) ?? now()
        let window = known.withLock { $0.attributionWindow } ?? Self.defaultDeferredDeadline
        if now().timeIntervalSince(firstLaunch) > window {
            logger.category(.deferred).info("the first launch was longer ago than the attribution window: no deferred deep link")
            storage.setValue(CachedMatch(checkedAt: now(), link: nil), forKey: StorageKey.deferred)
            return nil
        }
        let installID = await identity.id()
        let policy = options.deviceSignals
        let signals = policy == .none ? DeviceSignals() : policy.apply(to: await signalsProvider.signals())
        // A token read from the pasteboard is kept until the server has answered: the pasteboard may be gone by the retry.
        var token = storage.value(String.self, forKey: StorageKey.clickToken)
        if token == nil, let read = await options.clickTokenProvider?.clickToken() {
            logger.category(.deferred).debug("read click token \(read) from the pasteboard")
            token = read
            storage.setValue(read, forKey: StorageKey.clickToken)
        }
        let installationID = await identity.installationID()
        let request = MatchRequest(installID: installID, installationID: installationID.isEmpty ? nil : installationID, signals: signals,
                                   clickToken: token, minConfidence: options.minimumMatchConfidence)
        let answer = try await client.post(FerryRoutes.attributionMatch, body: request, as: MatchResponse.self)
        let link: DeepLink? = if answer.matched, let data = answer.link { DeepLink(link: data, openedURL: nil, deferred: answer) } else { nil }
        storage.setValue(CachedMatch(checkedAt: now(), link: link), forKey: StorageKey.deferred)
        if let token {
            // Only the token sent: one pasted meanwhile is for its caller to see unused.
            if storage.value(String.self, forKey: StorageKey.clickToken) == token { storage.setData(nil, forKey: StorageKey.clickToken) }
            await options.clickTokenProvider?.clickTokenUsed(token)
        }
        if let link {
            logger.category(.deferred).info(
                "install \(installID) matched to link \(link.linkID ?? "?") \(link.url.absoluteString) (\(link.matchType?.rawValue ?? "?", privacy: .public), confidence \(link.confidence ?? 0))")
            publish(FerryEvent(name: .deferredDeepLinkMatched, parameters: FerryEvent.parameters(for: link), timestamp: now()))
            didOpen(link)
        } else {
            logger.category(.deferred).info("no link led to install \(installID)")
        }
        return link
    }
}
