#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird

/// `/v1/webhooks`: an app's webhooks (secret key; each environment has its own).
struct WebhooksController: Sendable {
    let authenticator: KeyAuthenticator
    let outbox: WebhookOutbox
    let maxBodyBytes: Int

    func register(on router: Router<FerryRequestContext>) {
        router.post(RouterPath(FerryRoutes.webhooks)) { request, context in try await create(request, context: context) }
        router.get(RouterPath(FerryRoutes.webhooks)) { request, _ in try await list(request) }
        router.delete("\(FerryRoutes.webhooks)/:id") { request, context in try await delete(request, id: context.parameters.get("id") ?? "", context: context) }
        router.get("\(FerryRoutes.webhooks)/:id/deliveries") { request, context in try await deliveries(request, id: context.parameters.get("id") ?? "") }
    }

    func create(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .webhooksWrite)
        let body = try await JSONBody.decode(CreateWebhookRequest.self, from: request, limit: maxBodyBytes)
        let webhook = try await outbox.addWebhook(body, appID: auth.app.id, environment: auth.key.environment,
                                                  by: authenticator.actor(auth, request: request, context: context))
        var headers = HTTPFields()
        headers[.location] = "\(FerryRoutes.webhooks)/\(webhook.id)"
        return try JSONBody.response(webhook.response(showingSecret: true), status: .created, headers: headers)
    }

    func list(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .webhooksRead)
        let webhooks = try await outbox.webhooks(appID: auth.app.id, environment: auth.key.environment)
        return try JSONBody.response(WebhookListResponse(data: webhooks.map { $0.response() }))
    }

    func delete(_ request: Request, id: String, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .webhooksWrite)
        let actor = authenticator.actor(auth, request: request, context: context)
        guard try await outbox.removeWebhook(id: id, appID: auth.app.id, environment: auth.key.environment, by: actor) else {
            throw APIError.notFound("webhook '\(id.prefix(64))'")
        }
        return Response(status: .noContent)
    }

    /// The latest 50 deliveries of a webhook, newest first: what was sent, how it went.
    func deliveries(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .webhooksRead)
        guard let deliveries = try await outbox.deliveries(webhookID: id, appID: auth.app.id, environment: auth.key.environment, limit: 50) else {
            throw APIError.notFound("webhook '\(id.prefix(64))'")
        }
        return try JSONBody.response(WebhookDeliveryListResponse(data: deliveries.map { delivery in
            WebhookDeliveryResponse(id: delivery.id, event: delivery.event, attempts: delivery.attempts, createdAt: delivery.createdAt,
                                    deliveredAt: delivery.deliveredAt, failedAt: delivery.failedAt,
                                    nextAttemptAt: delivery.deliveredAt == nil && delivery.failedAt == nil ? delivery.nextAttemptAt : nil,
                                    lastStatus: delivery.lastStatus, lastError: delivery.lastError)
        }))
    }
}
#endif
