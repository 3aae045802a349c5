#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import HTTPTypes
import Hummingbird

/// `Strict-Transport-Security` on every answer for a host that is not this machine's: link domains are shared as
/// `https://` URLs, and the dashboard and API are reached over https in production, behind a TLS-terminating proxy.
/// A browser that saw it once over https goes to the host over https only, so a network between it and the proxy
/// cannot downgrade a later visit to plain http. Browsers ignore it on answers that came over plain http (RFC 6797
/// §8.1), so it costs nothing there; loopback hosts go without it, so that a developer's `localhost` is never pinned
/// to https. No `includeSubDomains`: a link domain's neighbours are not Ferry's to pin.
enum StrictTransportSecurity {
    static let field = HTTPField.Name("Strict-Transport-Security")!
    /// A year.
    static let value = "max-age=31536000"

    /// Whether answers for a request's host (lookup form) carry the header.
    static func applies(toHost host: String?) -> Bool {
        guard let host else { return false }
        return !DomainName.isLoopback(host)
    }
}

/// Adds `Strict-Transport-Security` to whatever the router answers, errors included, for hosts it applies to.
struct StrictTransportSecurityMiddleware: RouterMiddleware {
    typealias Context = FerryRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard StrictTransportSecurity.applies(toHost: EdgeController.host(of: request)) else { return try await next(request, context) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[StrictTransportSecurity.field] = StrictTransportSecurity.value
        return response
    }
}
#endif
