import Foundation

/// Share links: short links the app creates on the device, for its users to send to others.
extension Ferry {
    /// Creates a short link for a user to share, and returns its URL.
    ///
    /// ```swift
    /// var link = LinkBuilder(destination: URL(string: "https://example.com/recipes/42")!)
    /// link.iosURL = URL(string: "example://recipes/42")
    /// link.referrer = user.id
    /// let url = try await Ferry.shortLink(for: link)   // https://go.example.com/k3v9x2q
    /// ```
    ///
    /// The server creates it for the app's publishable key only when the app has client links on
    /// (`ferry app update APP --client-links on`, or the dashboard's settings), and only to URLs inside the app's
    /// allowed URL patterns (`--allow-url-pattern`). Asking again with the same builder within 24 hours returns the
    /// same link, so a request that failed on the way is retried like the others (no answer, a timeout or a 5xx).
    ///
    /// - Throws: ``FerryError``: ``FerryError/Code/invalidArgument`` naming the ``FerryError/field`` for what FerryKit
    ///   refuses before sending anything; otherwise what the server answered, with its ``FerryError/serverCode``,
    ///   ``FerryError/field`` and message: ``FerryError/Code/forbidden`` with ``APIErrorCode/clientLinksOff`` when
    ///   the app has not turned client links on, ``FerryError/Code/badRequest`` with ``APIErrorCode/urlNotAllowed``
    ///   for a URL outside the allowed patterns or ``APIErrorCode/invalidField`` for a value the server refuses,
    ///   ``FerryError/Code/rateLimited`` and ``FerryError/Code/unauthorized`` as for every call.
    public func shortLink(for builder: LinkBuilder) async throws(FerryError) -> URL {
        try await createLink(for: builder).url
    }

    /// Creates a short link for a user to share, as ``shortLink(for:)-swift.method`` does, and returns the whole link:
    /// its id (the ``DeepLink/linkID`` it is opened with), URL, domain and slug.
    public func createLink(for builder: LinkBuilder) async throws(FerryError) -> ShortLink {
        let request = try builder.request(now: now())
        let link: ShortLink
        do {
            link = try await client.post(FerryRoutes.links, body: request, as: ShortLink.self)
        } catch {
            throw Self.explained(error)
        }
        guard let scheme = link.url.scheme?.lowercased(), scheme == "https" || scheme == "http", link.url.host != nil else {
            throw FerryError(.invalidResponse, "the server answered POST \(FerryRoutes.links) with a link URL that is not http or https")
        }
        logger.category(.links).info("created short link \(link.id) \(link.url.absoluteString)")
        return link
    }

    /// ``shortLink(for:)-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func shortLink(for builder: LinkBuilder, completion: @escaping @MainActor @Sendable (Result<URL, FerryError>) -> Void) {
        complete(completion) { ferry throws(FerryError) in try await ferry.shortLink(for: builder) }
    }

    /// ``createLink(for:)-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func createLink(for builder: LinkBuilder, completion: @escaping Completion<ShortLink>) {
        complete(completion) { ferry throws(FerryError) in try await ferry.createLink(for: builder) }
    }

    /// ``createLink(for:completion:)-swift.method`` on the shared instance; without one, the completion gets
    /// ``FerryError/Code/notConfigured``.
    public static func createLink(for builder: LinkBuilder, completion: @escaping Completion<ShortLink>) {
        completeOnShared("createLink", completion) { ferry throws(FerryError) in try await ferry.createLink(for: builder) }
    }

    /// The server's refusal of a new link, with what the app's developer can do about it when the fix is a setting.
    static func explained(_ error: FerryError) -> FerryError {
        let hint = switch error.serverCode {
        case .clientLinksOff?: " (turn client links on: ferry app update APP --client-links on, or the dashboard's settings)"
        case .urlNotAllowed?: " (allow it: ferry app update APP --allow-url-pattern REGEX, or the dashboard's settings)"
        default: ""
        }
        if hint.isEmpty { return error }
        return FerryError(error.code, error.message + hint, httpStatus: error.httpStatus, serverCode: error.serverCode, field: error.field,
                          underlying: error.underlying)
    }
}
