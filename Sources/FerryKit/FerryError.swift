import Foundation

/// The one error FerryKit throws: a stable ``code`` to switch on, a sentence for logs, the HTTP status when the
/// server answered, and the error underneath when there is one.
///
/// "No link" is never an error: ``Ferry/handleDeepLink(_:)`` and ``Ferry/checkDeferredDeepLink()`` return nil for it.
///
/// ```swift
/// do throws(FerryError) {
///     let link = try await Ferry.checkDeferredDeepLink()
/// } catch where error.code == .network || error.code == .timeout {
///     // offline: FerryKit asks again on the next call
/// } catch {
///     print(error.code, error.httpStatus ?? 0, error.message)
/// }
/// ```
public struct FerryError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that stays stable across releases (new codes may be added).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case invalidAPIKey = "invalid_api_key"
            case secretKeyInApp = "secret_key_in_app"
            case invalidConfiguration = "invalid_configuration"
            case notConfigured = "not_configured"
            case invalidArgument = "invalid_argument"
            case network = "network"
            case timeout = "timeout"
            case unauthorized = "unauthorized"
            case forbidden = "forbidden"
            case badRequest = "bad_request"
            case notFound = "not_found"
            case rateLimited = "rate_limited"
            case server = "server"
            case invalidResponse = "invalid_response"
            case cancelled = "cancelled"
            case disabled = "disabled"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The code as text, such as `secret_key_in_app`.
        public var rawValue: String { base.rawValue }
        /// The code as text.
        public var description: String { base.rawValue }

        /// The API key is not `fk_live_…`/`fk_test_…` followed by 32 letters and digits.
        public static let invalidAPIKey = Code(.invalidAPIKey)
        /// A secret `fs_…` key was given to the SDK; it must never ship in an app.
        public static let secretKeyInApp = Code(.secretKeyInApp)
        /// An option is unusable (a server URL that is not http or https, say).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A `Ferry.` call came before ``Ferry/configure(apiKey:options:)``.
        public static let notConfigured = Code(.notConfigured)
        /// An argument of the call is unusable (an empty user id, say).
        public static let invalidArgument = Code(.invalidArgument)
        /// The server could not be reached (after the retries).
        public static let network = Code(.network)
        /// The server did not answer in time (after the retries).
        public static let timeout = Code(.timeout)
        /// The server does not know the key, or it was revoked (HTTP 401).
        public static let unauthorized = Code(.unauthorized)
        /// The key may not do this (HTTP 403).
        public static let forbidden = Code(.forbidden)
        /// The server refused the request as malformed (HTTP 400, 413, 415, 422…).
        public static let badRequest = Code(.badRequest)
        /// The server has no such thing (HTTP 404 or 410) where one was required.
        public static let notFound = Code(.notFound)
        /// Too many requests (HTTP 429).
        public static let rateLimited = Code(.rateLimited)
        /// The server failed (HTTP 5xx, after the retries).
        public static let server = Code(.server)
        /// The server's answer could not be read.
        public static let invalidResponse = Code(.invalidResponse)
        /// The task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// FerryKit is turned off (``Ferry/setEnabled(_:)-swift.method``), so the request was not sent.
        public static let disabled = Code(.disabled)
    }

    /// What went wrong.
    public let code: Code
    /// A sentence saying what went wrong and, where it helps, what to do.
    public let message: String
    /// The HTTP status of the server's answer, when there was one.
    public let httpStatus: Int?
    /// The server's own error code (`invalid_field`, `unauthorized`…), when its answer carried one.
    public let serverCode: APIErrorCode?
    /// The request field the error is about, as the server names it (`destination`, `routing.iosFallbackURL`,
    /// `social.title`): the server's `error.field`, or the field FerryKit refused before sending anything.
    public let field: String?
    /// The error underneath (a `URLError`, a `DecodingError`…), when there is one.
    public let underlying: (any Error)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, httpStatus: Int? = nil, serverCode: APIErrorCode? = nil, field: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.serverCode = serverCode
        self.field = field
        self.underlying = underlying
    }

    /// `FerryError(code): message [HTTP status]`.
    public var description: String {
        var text = "FerryError(\(code)): \(message)"
        if let httpStatus { text += " [HTTP \(httpStatus)]" }
        return text
    }
}

extension FerryError: LocalizedError {
    /// The message, for `localizedDescription`.
    public var errorDescription: String? { message }
}
