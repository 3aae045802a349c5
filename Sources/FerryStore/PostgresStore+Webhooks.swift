#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import PostgresNIO

extension PostgresStore {
    package func createWebhook(_ webhook: Webhook) async throws {
        try await execute("""
            INSERT INTO webhooks (id, app_id, environment, url, secret, events, created_at)
            VALUES (\(webhook.id), \(webhook.appID), \(webhook.environment.rawValue), \(webhook.url), \(webhook.secret),
                \(JSONText.encode(webhook.events)), \(webhook.createdAt.timeIntervalSince1970))
            """)
    }

    package func webhooks(appID: String, environment: APIEnvironment) async throws -> [Webhook] {
        try await all("SELECT * FROM webhooks WHERE app_id = \(appID) AND environment = \(environment.rawValue) ORDER BY created_at, id") {
            try Webhook(row: $0)
        }
    }

    package func deleteWebhook(id: String, appID: String, environment: APIEnvironment) async throws -> Bool {
        try await !all("DELETE FROM webhooks WHERE id = \(id) AND app_id = \(appID) AND environment = \(environment.rawValue) RETURNING id") { _ in () }.isEmpty
    }

    package func enqueueDeliveries(_ deliveries: [WebhookDelivery]) async throws {
        try await insertRows("""
            INSERT INTO webhook_deliveries (id, webhook_id, app_id, event, payload, attempts, next_attempt_at, created_at) VALUES
            """, columns: 8, deliveries, tail: "") { delivery, binds in
            binds.append(delivery.id); binds.append(delivery.webhookID); binds.append(delivery.appID); binds.append(delivery.event.rawValue)
            binds.append(delivery.payload); binds.append(Int32(clamping: delivery.attempts)); binds.append(delivery.nextAttemptAt.timeIntervalSince1970)
            binds.append(delivery.createdAt.timeIntervalSince1970)
        }
    }

    /// Nodes claim with `FOR UPDATE SKIP LOCKED`: two nodes never take the same delivery, and neither waits for the other.
    package func claimDeliveries(now: Date, lease: Double, limit: Int, excludingApps: [String]) async throws -> [ClaimedDelivery] {
        let moment = now.timeIntervalSince1970
        return try await all("""
            WITH due AS (
                SELECT id FROM webhook_deliveries
                WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= \(moment) AND app_id <> ALL(\(excludingApps))
                ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ), claimed AS (
                UPDATE webhook_deliveries d SET next_attempt_at = \(moment + lease) FROM due WHERE d.id = due.id RETURNING d.*
            )
            SELECT c.*, w.id AS w_id, w.app_id AS w_app_id, w.environment AS w_environment, w.url AS w_url, w.secret AS w_secret,
                w.events AS w_events, w.created_at AS w_created_at
            FROM claimed c JOIN webhooks w ON w.id = c.webhook_id ORDER BY c.created_at
            """) { row in
            ClaimedDelivery(delivery: try WebhookDelivery(row: row), webhook: try Webhook(row: row, prefix: "w_"))
        }
    }

    package func releaseDeliveries(ids: [String], dueAt: Date) async throws {
        guard !ids.isEmpty else { return }
        try await execute("""
            UPDATE webhook_deliveries SET next_attempt_at = \(dueAt.timeIntervalSince1970)
            WHERE id = ANY(\(ids)) AND delivered_at IS NULL AND failed_at IS NULL
            """)
    }

    package func recordAttempt(deliveryID: String, status: Int?, error: String?, deliveredAt: Date?, nextAttemptAt: Date?, failedAt: Date?) async throws {
        try await execute("""
            UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = \(status.map { Int32(clamping: $0) }), last_error = \(error),
                delivered_at = \(deliveredAt?.timeIntervalSince1970), next_attempt_at = \(nextAttemptAt?.timeIntervalSince1970),
                failed_at = \(failedAt?.timeIntervalSince1970)
            WHERE id = \(deliveryID)
            """)
    }

    package func deliveries(webhookID: String, appID: String, limit: Int) async throws -> [WebhookDelivery] {
        try await all("""
            SELECT * FROM webhook_deliveries WHERE webhook_id = \(webhookID) AND app_id = \(appID) ORDER BY created_at DESC, id DESC LIMIT \(limit)
            """, WebhookDelivery.init(row:))
    }

    package func webhookQueue() async throws -> (waiting: Int, oldest: Date?) {
        try await first("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL") { row in
            (try row["n"].decode(Int.self), try row["oldest"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)))
        } ?? (0, nil)
    }
}
#endif
