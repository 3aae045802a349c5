import Foundation

/// Users and key validation: binding a signed-in user to the install, and checking the key with the server.
extension Ferry {
    /// The id FerryKit knows this install by: made on the first launch and kept in storage, sent with every match,
    /// open and event.
    ///
    /// Send it to your backend at sign-up, so that your backend binds the user to this install with a secret key
    /// (`POST /v1/attribution/user`): that binding is the one nobody else can claim first, and ``identify(userID:)``
    /// reports it afterwards.
    ///
    /// Before the device's first unlock it waits until protected data is available (the stored id cannot be read
    /// before); a task cancelled meanwhile gets an empty string.
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
        guard await launchDecided() else { throw FerryError(.cancelled, "identify was cancelled") }
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
        logger.category(.users).info("user \(userID) bound to install \(installID): \(result.attributed ? "attributed" : "not attributed", privacy: .public)")
        return result
    }

    /// ``installID()-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func installID(completion: @escaping @MainActor @Sendable (String) -> Void) {
        Task {
            let id = await installID()
            await completion(id)
        }
    }

    /// ``installID()-swift.method`` of the shared instance.
    ///
    /// - Throws: ``FerryError/Code/notConfigured`` before ``configure(apiKey:options:)``.
    public static func installID() async throws(FerryError) -> String {
        try await requireShared("installID").installID()
    }

    /// ``installID()-swift.method`` of the shared instance for code that is not async; without one, the completion
    /// gets ``FerryError/Code/notConfigured``.
    public static func installID(completion: @escaping Completion<String>) {
        completeOnShared("installID", completion) { ferry in await ferry.installID() }
    }

    /// ``identify(userID:)-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func identify(userID: String, completion: @escaping Completion<UserAttribution>) {
        complete(completion) { ferry throws(FerryError) in try await ferry.identify(userID: userID) }
    }

    /// ``identify(userID:completion:)-swift.method`` on the shared instance; without one, the completion gets
    /// ``FerryError/Code/notConfigured``.
    public static func identify(userID: String, completion: @escaping Completion<UserAttribution>) {
        completeOnShared("identify", completion) { ferry throws(FerryError) in try await ferry.identify(userID: userID) }
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
            // Not written before the first unlock: the next launch validates again.
            if isLaunchDecided {
                storage.setValue(CachedValidation(keyFingerprint: CachedValidation.fingerprint(of: apiKey), validatedAt: now(), settings: settings),
                                 forKey: StorageKey.validation)
            }
            known.withLock { $0 = KnownLinks(options: options, validated: settings) }
            logger.category(.users).debug(
                "key valid for app \(settings.appName, privacy: .public) (\(settings.environment.rawValue, privacy: .public)); link domains \(settings.domains, privacy: .public)")
            return settings
        } catch {
            if error.code == .unauthorized || error.code == .forbidden {
                logger.category(.users).error("the server refused the API key: \(error.message, privacy: .public)")
            }
            throw error
        }
    }

    /// ``validateKey()-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func validateKey(completion: @escaping Completion<SDKValidateResponse>) {
        complete(completion) { ferry throws(FerryError) in try await ferry.validateKey() }
    }

    /// ``validateKey()-swift.method`` on the shared instance.
    @discardableResult
    public static func validateKey() async throws(FerryError) -> SDKValidateResponse {
        try await requireShared("validateKey").validateKey()
    }

    /// ``validateKey(completion:)-swift.method`` on the shared instance; without one, the completion gets
    /// ``FerryError/Code/notConfigured``.
    public static func validateKey(completion: @escaping Completion<SDKValidateResponse>) {
        completeOnShared("validateKey", completion) { ferry throws(FerryError) in try await ferry.validateKey() }
    }

    /// What the server said when it last validated the key (kept for 24 hours before asking again), or nil.
    public var validation: SDKValidateResponse? { known.withLock { $0.validated } }
}
