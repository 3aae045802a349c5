#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import HTTPTypes
import Hummingbird

/// The key a request was made with, once checked.
package struct AuthenticatedKey: Sendable {
    /// The stored key.
    package var key: APIKeyRecord
    /// Its app.
    package var app: App
}

/// Checks `Authorization: Bearer KEY` or `x-api-key: KEY` against the stored hashes.
struct KeyAuthenticator: Sendable {
    let store: any FerryDatabase
    /// Where requests come from (behind the trusted proxies), for the audit log.
    let addresses: ClientAddressResolver

    static let apiKeyHeader = HTTPField.Name("x-api-key")!

    /// The key of a request, of `kind` when given. A secret key limited to scopes must hold `scope` (every route names
    /// the scope that covers it; nil only on routes no secret key may use); publishable keys have none.
    func authenticate(_ request: Request, requiring kind: APIKeyKind? = nil, scope: APIKeyScope?) async throws -> AuthenticatedKey {
        guard let text = Self.presentedKey(request) else {
            throw APIError(.unauthorized, message: "send an API key as 'Authorization: Bearer KEY' or 'x-api-key: KEY'")
        }
        return try await authenticate(key: text, requiring: kind, scope: scope)
    }

    /// Checks a key sent some other way (in a request body, as one platform's SDK does).
    func authenticate(key text: String, requiring kind: APIKeyKind? = nil, scope: APIKeyScope?) async throws -> AuthenticatedKey {
        guard let format = APIKeyFormat(parsing: text) else {
            throw APIError(.unauthorized, message: "the API key is not a Ferry key (fk_live_, fk_test_, fs_live_ or fs_test_ followed by 32 letters and digits)")
        }
        let hash = Secrets.hashKey(text)
        guard let record = try await store.key(hash: hash), Secrets.constantTimeEquals(record.hash, hash),
              record.kind == format.kind, record.environment == format.environment
        else {
            throw APIError(.unauthorized, message: "the API key is not valid")
        }
        if record.revokedAt != nil {
            throw APIError(.unauthorized, message: "the API key has been revoked")
        }
        RequestLogScope.noteApp(record.appID)
        guard let app = try await store.app(id: record.appID) else {
            throw APIError(.unauthorized, message: "the API key is not valid")
        }
        if let kind, record.kind != kind {
            throw APIError(.forbidden, message: kind == .secret
                ? "this route needs a secret key (fs_…); publishable keys cannot manage links"
                : "this route needs a publishable key (fk_…)")
        }
        if record.kind == .secret, let scopes = record.scopes {
            guard let scope else {
                throw APIError(.missingScope, message: "this route takes only a secret key without scopes")
            }
            guard scope.isGranted(by: scopes) else {
                let held = scopes.isEmpty ? "none this server knows" : APIKeyScope.text(scopes)
                throw APIError(.missingScope, message: "this key lacks the scope '\(scope.rawValue)' (its scopes: \(held))")
            }
        }
        return AuthenticatedKey(key: record, app: app)
    }

    /// The key and app of a dashboard session, when the key is still an active secret key without scopes and its app
    /// still exists.
    func signedIn(keyHash: String) async throws -> AuthenticatedKey? {
        guard let record = try await store.key(hash: keyHash), record.revokedAt == nil, record.kind == .secret, record.scopes == nil,
              let app = try await store.app(id: record.appID) else { return nil }
        return AuthenticatedKey(key: record, app: app)
    }

    /// Who a request made with `auth` acts as in the audit log: its key, from the request's client address.
    func actor(_ auth: AuthenticatedKey, request: Request, context: FerryRequestContext) -> AuditActor {
        .key(auth.key, address: clientAddress(request, context: context))
    }

    /// The request's client address (behind the trusted proxies), as text.
    func clientAddress(_ request: Request, context: FerryRequestContext) -> String? {
        addresses.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[values: EdgeController.forwardedFor])?.description
    }

    static func presentedKey(_ request: Request) -> String? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]).trimmingCharacters(in: .whitespaces) }
        }
        // Another Authorization scheme (a proxy's Basic credentials, say) does not hide an x-api-key.
        return request.headers[apiKeyHeader].map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
#endif
