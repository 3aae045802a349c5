/// The machine-readable code of an error answer: `error.code` in ``ErrorResponse``.
///
/// Every code the server answers with is a static member here, with the one HTTP status it comes with; docs/openapi.yaml
/// lists the same set. A client meeting a code it does not know (a newer server) keeps it as it is and should treat
/// it like its HTTP status.
///
/// ```swift
/// if error.serverCode == .rateLimited { … }
/// ```
public struct APIErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code as sent, such as `invalid_field`.
    public let rawValue: String
    /// The HTTP status every answer with this code has; nil for a code this build does not know.
    public let httpStatus: Int?

    private init(_ rawValue: String, status: Int?) {
        self.rawValue = rawValue
        self.httpStatus = status
    }

    /// A code as sent: one of the static members when this build knows it.
    public init(rawValue: String) {
        self = Self.all.first { $0.rawValue == rawValue } ?? APIErrorCode(rawValue, status: nil)
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (lhs: APIErrorCode, rhs: APIErrorCode) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }

    /// 400: The body is empty, malformed or too deeply nested JSON.
    public static let invalidJSON = APIErrorCode("invalid_json", status: 400)
    /// 400: A field has the wrong type or breaks a rule (`field` names it; `null` for a body that is JSON but not an object).
    public static let invalidField = APIErrorCode("invalid_field", status: 400)
    /// 400: A required field is absent.
    public static let missingField = APIErrorCode("missing_field", status: 400)
    /// 400: The request names two hosts: two `Host` fields, or an absolute-form target on another host than `Host`.
    public static let conflictingHost = APIErrorCode("conflicting_host", status: 400)
    /// 400: A dashboard form that is not UTF-8 text.
    public static let invalidForm = APIErrorCode("invalid_form", status: 400)
    /// 400: The dashboard's Verify of a domain whose proof is not found yet.
    public static let domainNotVerified = APIErrorCode("domain_not_verified", status: 400)
    /// 400: A link made with a publishable key leads somewhere the app's allowed URL patterns do not allow (`field` names it).
    public static let urlNotAllowed = APIErrorCode("url_not_allowed", status: 400)
    /// 400: A request the framework could not read before any route saw it.
    public static let badRequest = APIErrorCode("bad_request", status: 400)
    /// 401: No key, a malformed, unknown or revoked key.
    public static let unauthorized = APIErrorCode("unauthorized", status: 401)
    /// 403: A key of the wrong kind for the route (publishable where a secret key is needed, or the reverse).
    public static let forbidden = APIErrorCode("forbidden", status: 403)
    /// 403: A secret key limited to scopes on a route none of them covers (the message names the scope it needs).
    public static let missingScope = APIErrorCode("missing_scope", status: 403)
    /// 403: A test secret key on a route that changes the app's settings.
    public static let liveKeyRequired = APIErrorCode("live_key_required", status: 403)
    /// 403: A publishable key creating a link for an app that has not turned client links on.
    public static let clientLinksOff = APIErrorCode("client_links_off", status: 403)
    /// 403: The operator keeps adding link domains to itself.
    public static let domainSelfServiceOff = APIErrorCode("domain_self_service_off", status: 403)
    /// 404: No such link, route, app on this host or click; or a well-formed name of something the key's app does not have.
    public static let notFound = APIErrorCode("not_found", status: 404)
    /// 404: A link that is expired or disabled (404, not 410: a change can bring it back).
    public static let gone = APIErrorCode("gone", status: 404)
    /// 405: A method the route does not have (with an `Allow` header).
    public static let methodNotAllowed = APIErrorCode("method_not_allowed", status: 405)
    /// 409: The slug is taken on that domain, or the app lacks what the request needs.
    public static let conflict = APIErrorCode("conflict", status: 409)
    /// 409: The app has as many webhooks in the key's environment as it may.
    public static let tooManyWebhooks = APIErrorCode("too_many_webhooks", status: 409)
    /// 409: The domain, a parent or a subdomain of it belongs to another app.
    public static let domainTaken = APIErrorCode("domain_taken", status: 409)
    /// 409: No app may own the domain (a single label, a public suffix, this machine).
    public static let domainUnavailable = APIErrorCode("domain_unavailable", status: 409)
    /// 409: Dropping an app's only link domain.
    public static let lastDomain = APIErrorCode("last_domain", status: 409)
    /// 409: The app has as many domains waiting for their proof as it may.
    public static let tooManyPendingDomains = APIErrorCode("too_many_pending_domains", status: 409)
    /// 413: The body is over the route's limit.
    public static let bodyTooLarge = APIErrorCode("body_too_large", status: 413)
    /// 415: The body is not sent as `application/json`.
    public static let unsupportedMediaType = APIErrorCode("unsupported_media_type", status: 415)
    /// 422: A link's short URL does not fit in a QR code at the error correction asked for.
    public static let tooLong = APIErrorCode("too_long", status: 422)
    /// 429: Too many requests of one kind from one address or with one key (with `Retry-After`).
    public static let rateLimited = APIErrorCode("rate_limited", status: 429)
    /// 500: An unexpected failure; details are in the server's log.
    public static let `internal` = APIErrorCode("internal", status: 500)
    /// 503: The server's database cannot be reached; retry shortly.
    public static let databaseUnavailable = APIErrorCode("database_unavailable", status: 503)

    /// Every code the server answers with, in the order of the table in docs/openapi.yaml.
    public static let all: [APIErrorCode] = [
        .invalidJSON, .invalidField, .missingField, .conflictingHost, .invalidForm, .domainNotVerified, .urlNotAllowed,
        .badRequest, .unauthorized, .forbidden, .missingScope, .liveKeyRequired, .clientLinksOff, .domainSelfServiceOff, .notFound, .gone, .methodNotAllowed, .conflict,
        .tooManyWebhooks, .domainTaken, .domainUnavailable, .lastDomain, .tooManyPendingDomains, .bodyTooLarge,
        .unsupportedMediaType, .tooLong, .rateLimited, .internal, .databaseUnavailable
    ]
}
