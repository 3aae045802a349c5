#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird

/// Deferred deep links and attribution: the match, resolve, SDK validation, events and user binding routes.
struct AttributionController: Sendable {
    let attributor: Attributor
    let opener: LinkOpener
    let authenticator: KeyAuthenticator
    let addresses: ClientAddressResolver
    let maxBodyBytes: Int

    func register(on router: Router<FerryRequestContext>) {
        router.post(RouterPath(FerryRoutes.attributionMatch)) { request, context in try await match(request, context: context) }
        router.post(RouterPath(FerryRoutes.attributionUser)) { request, _ in try await bindUser(request) }
        router.post(RouterPath(FerryRoutes.attributionUserTokens)) { request, _ in try await userToken(request) }
        router.post(RouterPath(FerryRoutes.sdkValidate)) { request, _ in try await validate(request) }
        router.post(RouterPath(FerryRoutes.events)) { request, _ in try await events(request) }
        // The slug, or the link's path as the app was opened with it: one segment or several (`promo/spring-26`,
        // `links/promo` on a domain with the path prefix `/links`).
        router.get(RouterPath(Self.resolvePath)) { request, _ in
            try await resolve(request, path: String(request.uri.path.dropFirst(Self.resolvePrefix.count)))
        }
        router.get(RouterPath(FerryRoutes.resolveURL)) { request, _ in try await resolveURL(request) }
    }

    func match(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, scope: .attributionWrite)
        let body = try await JSONBody.decode(MatchRequest.self, from: request, limit: maxBodyBytes)
        let address = addresses.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[values: EdgeController.forwardedFor])
        return try JSONBody.response(try await attributor.match(body, app: auth.app, environment: auth.key.environment, address: address))
    }

    func bindUser(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, scope: .attributionWrite)
        let body = try await JSONBody.decode(AttributeUserRequest.self, from: request, limit: maxBodyBytes)
        return try JSONBody.response(try await attributor.bindUser(body, app: auth.app, key: auth.key))
    }

    /// A user id's click token. Only the app's backend (a secret key) may ask: anyone who could get the token of any
    /// user id could make clicks that label another person's install.
    func userToken(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .attributionWrite)
        let body = try await JSONBody.decode(UserClickTokenRequest.self, from: request, limit: maxBodyBytes)
        let userID = try AttributionRules.validateIdentifier(body.userID, field: "userID", max: AttributionRules.maxUserIDLength)
        let token = attributor.userClickToken(userID: userID, appID: auth.app.id, environment: auth.key.environment)
        return try JSONBody.response(UserClickTokenResponse(userID: userID, token: token, parameter: UserClickToken.parameter))
    }

    func validate(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .publishable, scope: nil)
        let app = auth.app
        return try JSONBody.response(SDKValidateResponse(
            valid: true, appID: app.id, appName: app.name, domains: app.domains, environment: auth.key.environment,
            urlScheme: app.ios.urlScheme, attributionWindowSeconds: Int(app.attribution.window)))
    }

    func events(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, scope: .attributionWrite)
        let body = try await JSONBody.decode(EventsRequest.self, from: request, limit: maxBodyBytes)
        return try JSONBody.response(EventsResponse(accepted: try await opener.record(body, app: auth.app, environment: auth.key.environment)))
    }

    /// `GET /v1/links/resolve/{slug…}`.
    static let resolvePath = "\(FerryRoutes.links)/resolve/**"
    static let resolvePrefix = "\(FerryRoutes.links)/resolve/"

    func resolve(_ request: Request, path: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, scope: .linksRead)
        let query = request.uri.queryParameters
        let link = try await opener.open(slug: path, domain: query["domain"].map(String.init), installID: try Self.installID(request),
                                         app: auth.app, environment: auth.key.environment)
        return try JSONBody.response(ResolveResponse(link: link.data(in: auth.app)))
    }

    func resolveURL(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, scope: .linksRead)
        let query = request.uri.queryParameters
        guard let url = query["url"].map(String.init) else { throw APIError(.missingField, message: "url is required", field: "url") }
        let link = try await opener.open(url: url, installID: try Self.installID(request), app: auth.app, environment: auth.key.environment)
        return try JSONBody.response(ResolveResponse(link: link.data(in: auth.app)))
    }

    static let installIDHeader = HTTPField.Name(FerryRoutes.installIDHeader)!

    /// The install that opened a link: the `X-Ferry-Install-ID` header FerryKit sends (an identifier has no place in a
    /// URL, which proxies and logs keep), else the `installID` query parameter older SDKs send. Each one sent must
    /// follow the identifier rule, even when the header makes the query parameter unneeded.
    static func installID(_ request: Request) throws -> String? {
        let query = try request.uri.queryParameters["installID"].map { text throws(ValidationError) in
            try AttributionRules.validateIdentifier(String(text), field: "installID", max: AttributionRules.maxInstallIDLength)
        }
        guard let header = request.headers[installIDHeader] else { return query }
        return try AttributionRules.validateIdentifier(header, field: FerryRoutes.installIDHeader, max: AttributionRules.maxInstallIDLength)
    }
}
#endif
