#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    /// The roll-up migration.
    static func registerStatsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-stats") { db in
            for statement in StatsSchema.statements(day: { "CAST(\($0) / 86400 AS INTEGER)" }) {
                try db.execute(sql: statement)
            }
        }
    }

    /// Adds increments to the roll-up.
    static func addStats(_ counts: [StatsKey: Int], db: Database) throws {
        guard !counts.isEmpty else { return }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO stats_daily (app_id, environment, link_id, day, metric, dimension, count) VALUES (?, ?, ?, ?, ?, ?, ?)
            \(StatsSchema.upsertTail)
            """)
        for (key, count) in counts {
            try statement.execute(arguments: [key.appID, key.environment.rawValue, key.linkID, key.day, key.metric.rawValue, key.dimension, count])
        }
    }

    /// The visitor-seen migration: `visitors_seen` replaces `stats_visitors`, whose rows (at most two days' worth,
    /// the rest is purged) are carried over.
    static func registerVisitorsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-visitors-seen") { db in
            try db.execute(sql: """
                CREATE TABLE visitors_seen (
                    day INTEGER NOT NULL, scope INTEGER NOT NULL, visitor INTEGER NOT NULL,
                    PRIMARY KEY (day, scope, visitor)
                ) WITHOUT ROWID
                """)
            let rows = try Row.fetchCursor(db, sql: "SELECT app_id, environment, link_id, day, visitor FROM stats_visitors")
            let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO visitors_seen (day, scope, visitor) VALUES (?, ?, ?)")
            while let row = try rows.next() {
                let scope = visitorScope(appID: row["app_id"], environment: row["environment"], linkID: row["link_id"])
                try insert.execute(arguments: [row["day"] as Int, scope, visitorNumber(row["visitor"])])
            }
            try db.execute(sql: "DROP TABLE stats_visitors")
        }
    }

    /// A 64-bit FNV-1a hash of a visitor's app, environment and link: with the day and the visitor's own hash, the
    /// whole key of `visitors_seen` is three integers (a quarter of the text key's bytes, so four times the keys in
    /// each page the writer touches). Two scopes colliding would merge their visitors: at 64 bits, not in practice.
    static func visitorScope(appID: String, environment: String, linkID: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in [appID, environment, linkID] {
            for byte in part.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            hash = (hash ^ 0) &* 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }

    /// The visitor's hash (16 hex digits) as a number; any other text is hashed the same way as a scope.
    static func visitorNumber(_ hex: String) -> Int64 {
        if hex.utf8.count == 16, let number = UInt64(hex, radix: 16) { return Int64(bitPattern: number) }
        return visitorScope(appID: hex, environment: "", linkID: "")
    }

    /// Notes visitors; returns one `visitors` increment for each not seen before on its day.
    static func addVisitors(_ keys: [VisitorKey], db: Database) throws -> [StatsKey: Int] {
        try changeVisitors(keys, sql: "INSERT OR IGNORE INTO visitors_seen (day, scope, visitor) VALUES (?, ?, ?)", by: 1, db: db)
    }

    /// Forgets visitors a reclassified click had noted; returns one `visitors` decrement for each row that went.
    static func removeVisitors(_ keys: [VisitorKey], db: Database) throws -> [StatsKey: Int] {
        try changeVisitors(keys, sql: "DELETE FROM visitors_seen WHERE day = ? AND scope = ? AND visitor = ?", by: -1, db: db)
    }

    /// Runs a statement of `(day, scope, visitor)` for each key; each row it changes moves the key's day by `step`.
    private static func changeVisitors(_ keys: [VisitorKey], sql: String, by step: Int, db: Database) throws -> [StatsKey: Int] {
        var counts: [StatsKey: Int] = [:]
        let statement = try db.cachedStatement(sql: sql)
        for key in keys {
            let scope = visitorScope(appID: key.appID, environment: key.environment.rawValue, linkID: key.linkID)
            try statement.execute(arguments: [key.day, scope, visitorNumber(key.visitor)])
            if db.changesCount > 0 { counts[key.statsKey, default: 0] += step }
        }
        return counts
    }

    /// The roll-up increments of clicks just stored, with their links' UTM parameters.
    static func addClickStats(_ clicks: [Click], db: Database) throws {
        guard !clicks.isEmpty else { return }
        let utm = try linkUTM(of: clicks, db: db)
        var counts = StatsRollup.increments(clicks: clicks) { utm[$0.linkID] }
        counts.merge(try addVisitors(StatsRollup.visitors(clicks: clicks), db: db), uniquingKeysWith: +)
        try addStats(counts, db: db)
    }

    /// The UTM parameters of the links of clicks, by link id.
    static func linkUTM(of clicks: [Click], db: Database) throws -> [String: UTMParameters] {
        var utm: [String: UTMParameters] = [:]
        let lookup = try db.cachedStatement(sql: "SELECT utm_source, utm_medium, utm_campaign FROM links WHERE id = ?")
        for linkID in Set(clicks.map(\.linkID)) {
            if let row = try Row.fetchOne(lookup, arguments: [linkID]) {
                utm[linkID] = UTMParameters(source: row["utm_source"], medium: row["utm_medium"], campaign: row["utm_campaign"])
            }
        }
        return utm
    }


    package func statsRows(appID: String, environment: APIEnvironment, linkID: String?, range: StatsRange) async throws -> [StatsRow] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT day, metric, dimension, SUM(count) AS total FROM stats_daily
                WHERE app_id = ? AND environment = ? AND link_id = ? AND day BETWEEN ? AND ?
                GROUP BY day, metric, dimension
                """, arguments: [appID, environment.rawValue, linkID ?? StatsKey.appWide, range.fromDay, range.toDay]
            ).compactMap { row in
                StatsMetric(rawValue: row["metric"]).map { StatsRow(day: row["day"], metric: $0, dimension: row["dimension"], count: row["total"]) }
            }
        }
    }

    package func purgeVisitors(beforeDay day: Int) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM visitors_seen WHERE day < ?", arguments: [day])
            return db.changesCount
        }
    }

    package func matchConfidences(appID: String, environment: APIEnvironment, from: Date, to: Date) async throws -> [Int] {
        try await read { db in
            confidenceBands(try Row.fetchAll(db, sql: """
                SELECT CAST(confidence * 10 AS INTEGER) AS band, COUNT(*) AS count FROM attributions
                WHERE app_id = ? AND environment = ? AND match_type = 'probabilistic' AND created_at >= ? AND created_at < ?
                GROUP BY band
                """, arguments: [appID, environment.rawValue, from.timeIntervalSince1970, to.timeIntervalSince1970]).map { (band: $0["band"] ?? 0, count: $0["count"]) })
        }
    }
}

extension SQLiteStore {
    package func exportClicks(appID: String, environment: APIEnvironment, from: Date, to: Date, after cursor: ExportCursor?, limit: Int) async throws -> [Click] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM clicks WHERE app_id = ? AND environment = ? AND created_at < ?
                    AND (created_at > ? OR (created_at = ? AND id > ?))
                ORDER BY created_at, id LIMIT ?
                """, arguments: [appID, environment.rawValue, to.timeIntervalSince1970, cursor?.time ?? from.timeIntervalSince1970 - 1e-6,
                                 cursor?.time ?? -1, cursor?.id ?? "", limit]).map(Click.init(row:))
        }
    }

    package func exportAttributions(appID: String, environment: APIEnvironment, from: Date, to: Date, after cursor: ExportCursor?,
                                   limit: Int) async throws -> [AttributionRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM attributions WHERE app_id = ? AND environment = ? AND created_at < ?
                    AND (created_at > ? OR (created_at = ? AND install_id > ?))
                ORDER BY created_at, install_id LIMIT ?
                """, arguments: [appID, environment.rawValue, to.timeIntervalSince1970, cursor?.time ?? from.timeIntervalSince1970 - 1e-6,
                                 cursor?.time ?? -1, cursor?.id ?? "", limit]).map(AttributionRecord.init(row:))
        }
    }
}
#endif
