#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
/// The statistics roll-up's schema, shared by both stores (the statements are the same in SQLite and PostgreSQL).
enum StatsSchema {
    /// Creates the roll-up tables and fills them from what is already stored (clicks by platform, installs, events;
    /// referrer and UTM breakdowns start with the upgrade). `day` turns a column of seconds into a day number in the
    /// store's dialect.
    static func statements(day: (String) -> String) -> [String] { [
        """
        CREATE TABLE stats_daily (
            app_id TEXT NOT NULL, environment TEXT NOT NULL, link_id TEXT NOT NULL, day INTEGER NOT NULL,
            metric TEXT NOT NULL, dimension TEXT NOT NULL, count BIGINT NOT NULL,
            PRIMARY KEY (app_id, environment, link_id, day, metric, dimension)
        )
        """,
        """
        CREATE TABLE stats_visitors (
            app_id TEXT NOT NULL, environment TEXT NOT NULL, link_id TEXT NOT NULL, day INTEGER NOT NULL, visitor TEXT NOT NULL,
            PRIMARY KEY (app_id, environment, link_id, day, visitor)
        )
        """,
        "CREATE INDEX stats_visitors_day ON stats_visitors(day)",
    ] + backfill(day: day) }

    /// One `INSERT … SELECT` per metric and per level (the link's, the app's totals).
    static func backfill(day: (String) -> String) -> [String] { ["link_id", "'*'"].flatMap { link in
        // The app's totals group without the link column (a constant needs no grouping).
        let keys = link == "link_id" ? "1, 2, 3, 4" : "1, 2, 4"
        return [
            "INSERT INTO stats_daily SELECT app_id, environment, \(link), \(day("created_at")), 'clicks', '', COUNT(*) FROM clicks GROUP BY \(keys)",
            "INSERT INTO stats_daily SELECT app_id, environment, \(link), \(day("created_at")), 'platform', platform, COUNT(*) FROM clicks GROUP BY \(keys), 6",
            """
            INSERT INTO stats_daily SELECT app_id, environment, \(link == "link_id" ? "COALESCE(link_id, '')" : link), \(day("created_at")),
                'installs', COALESCE(match_type, 'organic'), COUNT(*) FROM attributions GROUP BY \(keys), 6
            """,
            """
            INSERT INTO stats_daily SELECT app_id, environment, \(link == "link_id" ? "COALESCE(link_id, '')" : link), \(day("received_at")),
                'events', name, COUNT(*) FROM events GROUP BY \(keys), 6
            """,
        ]
    } }

    /// Adds to roll-up cells (same in both dialects: `ON CONFLICT … DO UPDATE` with `excluded`).
    static let upsertTail = "ON CONFLICT (app_id, environment, link_id, day, metric, dimension) DO UPDATE SET count = stats_daily.count + excluded.count"
}

/// The webhook tables, in each store's dialect (`real` is the type of seconds since 1970).
enum WebhookSchema {
    static func statements(real: String) -> [String] {
        [
            """
            CREATE TABLE webhooks (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, environment TEXT NOT NULL,
                url TEXT NOT NULL, secret TEXT NOT NULL, events TEXT NOT NULL, created_at \(real) NOT NULL
            )
            """,
            "CREATE INDEX webhooks_app ON webhooks(app_id, environment)",
            """
            CREATE TABLE webhook_deliveries (
                id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE, app_id TEXT NOT NULL,
                event TEXT NOT NULL, payload TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at \(real),
                delivered_at \(real), failed_at \(real), last_status INTEGER, last_error TEXT, created_at \(real) NOT NULL
            )
            """,
            // Only pending deliveries carry a next attempt; the index holds just those.
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE next_attempt_at IS NOT NULL",
            "CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, created_at)",
        ]
    }
}
#endif
