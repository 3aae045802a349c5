import Foundation

/// Links the app is opened with: universal links and the app's URL scheme.
extension Ferry {
    /// Turns a URL the app was opened with into a ``DeepLink``, never taking longer than
    /// ``FerryOptions/linkResolutionTimeout`` (3 seconds by default).
    ///
    /// - A Universal Link on one of the app's link domains (`https://go.example.com/summer`,
    ///   `https://promo.go.example.com/link/summer`, a slug of several segments such as
    ///   `https://go.example.com/promo/spring-26`, or a link under the domain's path prefix such as
    ///   `https://example.com/links/summer`) is resolved with the server, which records the open.
    /// - A Firebase Dynamic Links long link on a link domain (`https://go.example.com/?link=…&ibi=…`, or under the
    ///   domain's path prefix) is resolved the same way: the ``DeepLink`` carries its `link` as
    ///   ``DeepLink/destination`` (what the app routes on) and its other parameters (campaign, `gclid`, the minimum
    ///   app version) as the server read them.
    /// - A URL in one of the app's custom schemes is read on the device.
    /// - Any other URL on one of the app's link domains (not a subdomain) is one of the app's own Universal Links,
    ///   such as `https://go.example.com/?dl_target=paywall&utm_source=newsletter` or a path no slug can be: it is
    ///   read on the device, without a network call, as a complete link (``DeepLink/isResolved`` true) of source
    ///   ``DeepLink/Source/universalLink`` with the query's params and `utm_*`, and no slug or link id. Its path
    ///   and query are what ``DeepLinkRouter`` routes on.
    /// - Any other URL gives nil, as does a link the server does not know (or no longer serves).
    ///
    /// When the server cannot be asked in time (no network, a timeout, the deadline, a 5xx, a 429, an answer that
    /// cannot be read, or a 400), a short or long link is not lost: the call returns the link as read from its URL,
    /// with ``DeepLink/isResolved`` false (see there for what it then holds), so that the app can still route.
    /// Unless the server refused the request as malformed (400), the open is kept in storage (the latest 20, for a
    /// week) and the link resolved again later, which records the open on the server: when a request that was still
    /// under way answers after all, when another link resolves, at the next launch, and on
    /// ``flushEvents()-swift.method``. Once resolved, the link's data replaces the open's touch where it is still the
    /// first or last touch.
    ///
    /// Every link returned is recorded as last touch (and as first touch the first time) and produces a
    /// ``FerryEvent/Name/deepLinkOpened`` event.
    ///
    /// - Throws: ``FerryError`` only for what the app must fix: ``FerryError/Code/unauthorized`` (HTTP 401, a wrong or
    ///   revoked key) and ``FerryError/Code/forbidden`` (HTTP 403); and ``FerryError/Code/cancelled`` when the calling
    ///   task is cancelled.
    public func handleDeepLink(_ url: URL) async throws(FerryError) -> DeepLink? {
        let deadline = Deadline(in: options.linkResolutionTimeout)
        var kind = classify(url)
        if kind == .notFerry, !isOnLinkDomain(url), let pending = validationTask.withLock({ $0 }) {
            // The app may be opened by a link before the key check has told FerryKit the app's domains:
            // wait for it, but not for long, since most URLs that are not Ferry's are the app's own.
            _ = await Self.value(of: pending, within: min(deadline.remaining, options.networkTimeout))
            kind = classify(url)
        }
        let link: DeepLink
        switch kind {
        case .notFerry:
            guard isOnLinkDomain(url) else {
                logger.debug("\(url.absoluteString.prefix(200)) is not a Ferry link")
                return nil
            }
            link = DeepLink(linkDomainURL: url)
        case .customScheme:
            link = DeepLink(customSchemeURL: url)
        case .shortLink(_, let slug) where !isEnabled:
            link = DeepLink(unresolvedURL: url, slug: slug)
        case .longLink where !isEnabled:
            link = DeepLink(unresolvedURL: url, slug: nil)
        case .shortLink(let domain, let slug):
            return try await open(LinkRequest(url: url, domain: domain, slug: slug), by: deadline)
        case .longLink(let domain):
            return try await open(LinkRequest(url: url, domain: domain, slug: nil), by: deadline)
        }
        return opened(link)
    }

    /// ``handleDeepLink(_:)-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func handleDeepLink(_ url: URL, completion: @escaping @MainActor @Sendable (Result<DeepLink?, FerryError>) -> Void) {
        Task {
            let result: Result<DeepLink?, FerryError>
            do throws(FerryError) { result = .success(try await handleDeepLink(url)) } catch { result = .failure(error) }
            await completion(result)
        }
    }

    /// Whether `url` is a link FerryKit would handle (a short or long link on the app's domains, another URL on one of
    /// them, or a custom-scheme URL), decided on the device without a network call.
    public func canHandle(_ url: URL) -> Bool { classify(url) != .notFerry || isOnLinkDomain(url) }

    /// The value of `task`, or nil when it has not ended within `seconds`; the task is not cancelled, and goes on.
    static func value<T: Sendable>(of task: Task<T, Never>, within seconds: TimeInterval) async -> T? {
        let resumed = Locked(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            @Sendable func resumeOnce(_ value: T?) {
                if resumed.withLock({ done in defer { done = true }; return !done }) { continuation.resume(returning: value) }
            }
            let timer = Task {
                try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                resumeOnce(nil)
            }
            Task {
                let value = await task.value
                timer.cancel()
                resumeOnce(value)
            }
        }
    }

    func classify(_ url: URL) -> LinkURL {
        let (domains, schemes) = known.withLock { ($0.domains, $0.schemes) }
        return LinkURL(url, domains: domains, schemes: schemes)
    }

    /// Whether `url` is on one of the app's link domains itself (see ``LinkURL/linkDomain(of:in:)``), link or not.
    func isOnLinkDomain(_ url: URL) -> Bool {
        LinkURL.linkDomain(of: url, in: known.withLock { $0.domains }) != nil
    }

    /// `link`, once logged, recorded as a touch (`touch`, or the link's touch now) and published.
    func opened(_ link: DeepLink, touch: AttributionTouch? = nil) -> DeepLink {
        logger.info("opened by link \(link.slug ?? link.url.absoluteString)\(link.isResolved ? "" : " (not resolved)")")
        didOpen(link, touch: touch)
        return link
    }

    /// Records `link` as a touch (`touch`, or the link's touch now) and publishes its events; returns the touch.
    @discardableResult
    func didOpen(_ link: DeepLink, touch: AttributionTouch? = nil) -> AttributionTouch {
        let touch = touch ?? AttributionTouch(deepLink: link, at: now())
        let parameters = FerryEvent.parameters(for: link)
        let isFirstTouch = attribution.record(touch)
        publish(FerryEvent(name: .deepLinkOpened, parameters: parameters, timestamp: now()))
        if isFirstTouch { publish(FerryEvent(name: .firstTouchAttributed, parameters: parameters, timestamp: now())) }
        return touch
    }
}

/// A short or long link the app was opened with, as FerryKit asks the server about it.
struct LinkRequest: Sendable {
    /// The URL the app was opened with.
    var url: URL
    /// The link domain it is on.
    var domain: String
    /// A short link's slug (its path, as the server reads it); nil for a long link, asked about by its whole URL.
    var slug: String?
}

/// Asking the server about the links the app is opened with.
extension Ferry {
    /// The link `request` names, resolved by the server within `deadline`, or read from its URL when the server could
    /// not be asked in time (its open then kept to be sent later); nil when the server has no such link. A link
    /// returned is recorded and published.
    func open(_ request: LinkRequest, by deadline: Deadline) async throws(FerryError) -> DeepLink? {
        let asking = Task { await self.resolve(request, deadline: deadline) }
        let answer = await withTaskCancellationHandler {
            await Self.value(of: asking, within: deadline.remaining)
        } onCancel: {
            asking.cancel()
        }
        let failure: FerryError
        var inFlight: Task<Result<DeepLink, FerryError>, Never>?
        switch answer {
        case .success(let link)?:
            // The server answers again: opens kept from earlier can go.
            sendPendingOpensSoon()
            return opened(link)
        case nil:
            inFlight = asking
            // The request goes on: if it gets through, the server records the open all the same.
            failure = FerryError(.timeout, "the server did not resolve the link within \(options.linkResolutionTimeout) s")
        case .failure(let error)?:
            switch error.code {
            case .notFound,
                 .badRequest where request.slug == nil:  // a long link the server will not follow
                logger.info(request.slug.map { "the server has no active link '\($0)' on \(request.domain)" }
                            ?? "the server does not follow this long link on \(request.domain)")
                return nil
            case .unauthorized, .forbidden, .cancelled, .invalidConfiguration:
                throw error
            default:
                failure = error
            }
        }
        let link = DeepLink(unresolvedURL: request.url, slug: request.slug)
        // A failure that may pass keeps the open for later; a 400 will not pass by itself, and is worth a developer's look.
        guard inFlight != nil || [.network, .timeout, .server, .rateLimited, .invalidResponse].contains(failure.code) else {
            logger.error("\(failure.message); the link is read from its URL instead")
            return opened(link)
        }
        logger.warning("\(failure.message); the link is read from its URL instead, and its open sent to the server later")
        let touch = AttributionTouch(deepLink: link, at: now())
        let kept = PendingOpen(request, touch: touch)
        _ = opened(link, touch: kept.touch)
        keepOpen(kept, inFlight: inFlight)
        return link
    }

    /// Asks the server for the link `request` names; the server records the open.
    func resolve(_ request: LinkRequest, deadline: Deadline?) async -> Result<DeepLink, FerryError> {
        // The install id (the IDFV) goes in a header, out of the URLs proxies and server logs keep.
        let headers = [FerryRoutes.installIDHeader: await identity.id()]
        do throws(FerryError) {
            let answer: ResolveResponse
            if let slug = request.slug {
                answer = try await client.get(FerryRoutes.resolve(slug: slug), query: [URLQueryItem(name: "domain", value: request.domain)],
                                              headers: headers, deadline: deadline, as: ResolveResponse.self)
            } else {
                answer = try await client.get(FerryRoutes.resolveURL, query: [URLQueryItem(name: "url", value: request.url.absoluteString)],
                                              headers: headers, deadline: deadline, as: ResolveResponse.self)
            }
            return .success(DeepLink(link: answer.link, openedURL: request.url, deferred: nil, openedQueryIsTheLink: request.slug == nil))
        } catch {
            return .failure(error)
        }
    }
}
