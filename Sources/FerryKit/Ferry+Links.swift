import Foundation

/// Links the app is opened with: universal links and the app's URL scheme.
extension Ferry {
    /// Turns a URL the app was opened with into a ``DeepLink``.
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
        case .shortLink(_, let slug) where !isEnabled:
            link = DeepLink(unresolvedURL: url, slug: slug)
        case .longLink where !isEnabled:
            link = DeepLink(unresolvedURL: url, slug: nil)
        case .shortLink(let domain, let slug):
            let installID = await identity.id()
            do {
                let answer = try await client.get(
                    FerryRoutes.resolve(slug: slug),
                    query: [URLQueryItem(name: "domain", value: domain)], headers: [Self.installIDHeader: installID],
                    as: ResolveResponse.self)
                link = DeepLink(link: answer.link, openedURL: url, deferred: nil)
            } catch where error.code == .notFound {
                logger.info("the server has no active link '\(slug)' on \(domain)")
                return nil
            }
        case .longLink(let domain):
            let installID = await identity.id()
            do {
                let answer = try await client.get(
                    FerryRoutes.resolveURL,
                    query: [URLQueryItem(name: "url", value: url.absoluteString)], headers: [Self.installIDHeader: installID],
                    as: ResolveResponse.self)
                link = DeepLink(link: answer.link, openedURL: url, deferred: nil, openedQueryIsTheLink: true)
            } catch where error.code == .notFound || error.code == .badRequest {
                logger.info("the server does not follow this long link on \(domain)")
                return nil
            }
        }
        logger.info("opened by link \(link.slug ?? link.url.absoluteString)")
        didOpen(link)
        return link
    }

    /// The header that carries the install id (the IDFV) to the resolve routes, which record it with the open:
    /// out of the query string, so that it stays out of the URLs proxies and server logs keep.
    static let installIDHeader = "X-Ferry-Install-ID"

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
}
