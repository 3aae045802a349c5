#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    static func registerWebhookMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-webhooks") { db in
            for statement in WebhookSchema.statements(real: "REAL") { try db.execute(sql: statement) }
        }
    }

    package func createWebhook(_ webhook: Webhook) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO webhooks (id, app_id, environment, url, secret, events, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [webhook.id, webhook.appID, webhook.environment.rawValue, webhook.url, webhook.secret,
                                 JSONText.encode(webhook.events), webhook.createdAt.timeIntervalSince1970])
        }
    }

    package func webhooks(appID: String, environment: APIEnvironment) async throws -> [Webhook] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhooks WHERE app_id = ? AND environment = ? ORDER BY created_at, id",
                             arguments: [appID, environment.rawValue]).map { try Webhook(row: $0) }
        }
    }

    package func deleteWebhook(id: String, appID: String, environment: APIEnvironment) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM webhooks WHERE id = ? AND app_id = ? AND environment = ?", arguments: [id, appID, environment.rawValue])
            return db.changesCount > 0
        }
    }

    package func enqueueDeliveries(_ deliveries: [WebhookDelivery]) async throws {
        guard !deliveries.isEmpty else { return }
        try await write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO webhook_deliveries (id, webhook_id, app_id, event, payload, attempts, next_attempt_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for delivery in deliveries {
                try statement.execute(arguments: [delivery.id, delivery.webhookID, delivery.appID, delivery.event.rawValue, delivery.payload,
                                                  delivery.attempts, delivery.nextAttemptAt.timeIntervalSince1970, delivery.createdAt.timeIntervalSince1970])
            }
        }
    }

    package func claimDeliveries(now: Date, lease: Double, limit: Int, excludingApps: [String]) async throws -> [ClaimedDelivery] {
        try await write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT d.*, w.id AS w_id, w.app_id AS w_app_id, w.environment AS w_environment, w.url AS w_url, w.secret AS w_secret,
                    w.events AS w_events, w.created_at AS w_created_at
                FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                WHERE d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ? AND d.app_id NOT IN (SELECT value FROM json_each(?))
                ORDER BY d.next_attempt_at LIMIT ?
                """, arguments: [now.timeIntervalSince1970, JSONText.encode(excludingApps), limit])
            let claimed = try rows.map { row in
                ClaimedDelivery(delivery: try WebhookDelivery(row: row), webhook: try Webhook(row: row, prefix: "w_"))
            }
            let statement = try db.cachedStatement(sql: "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?")
            for item in claimed { try statement.execute(arguments: [now.timeIntervalSince1970 + lease, item.delivery.id]) }
            return claimed
        }
    }

    package func releaseDeliveries(ids: [String], dueAt: Date) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            try db.execute(sql: """
                UPDATE webhook_deliveries SET next_attempt_at = ?
                WHERE id IN (SELECT value FROM json_each(?)) AND delivered_at IS NULL AND failed_at IS NULL
                """, arguments: [dueAt.timeIntervalSince1970, JSONText.encode(ids)])
        }
    }

    package func recordAttempt(deliveryID: String, status: Int?, error: String?, deliveredAt: Date?, nextAttemptAt: Date?, failedAt: Date?) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?, delivered_at = ?, next_attempt_at = ?, failed_at = ?
                WHERE id = ?
                """, arguments: [status, error, deliveredAt?.timeIntervalSince1970, nextAttemptAt?.timeIntervalSince1970, failedAt?.timeIntervalSince1970, deliveryID])
        }
    }

    package func deliveries(webhookID: String, appID: String, limit: Int) async throws -> [WebhookDelivery] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND app_id = ? ORDER BY created_at DESC, id DESC LIMIT ?
                """, arguments: [webhookID, appID, limit]).map(WebhookDelivery.init(row:))
        }
    }

    package func webhookQueue() async throws -> (waiting: Int, oldest: Date?) {
        try await read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL")
            let oldest: Double? = row?["oldest"]
            return (row?["n"] ?? 0, oldest.map(Date.init(timeIntervalSince1970:)))
        }
    }
}
#endif
