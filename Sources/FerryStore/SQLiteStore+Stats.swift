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

    /// Notes visitors; returns one `visitors` increment for each not seen before on its day.
    static func addVisitors(_ keys: [VisitorKey], db: Database) throws -> [StatsKey: Int] {
        var counts: [StatsKey: Int] = [:]
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO stats_visitors (app_id, environment, link_id, day, visitor) VALUES (?, ?, ?, ?, ?)")
        for key in keys {
            try statement.execute(arguments: [key.appID, key.environment.rawValue, key.linkID, key.day, key.visitor])
            if db.changesCount > 0 { counts[key.statsKey, default: 0] += 1 }
        }
        return counts
    }

    /// The roll-up increments of clicks just stored, with their links' UTM parameters.
    static func addClickStats(_ clicks: [Click], db: Database) throws {
        guard !clicks.isEmpty else { return }
        var utm: [String: UTMParameters] = [:]
        let lookup = try db.cachedStatement(sql: "SELECT utm_source, utm_medium, utm_campaign FROM links WHERE id = ?")
        for linkID in Set(clicks.map(\.linkID)) {
            if let row = try Row.fetchOne(lookup, arguments: [linkID]) {
                utm[linkID] = UTMParameters(source: row["utm_source"], medium: row["utm_medium"], campaign: row["utm_campaign"])
            }
        }
        var counts = StatsRollup.increments(clicks: clicks) { utm[$0.linkID] }
        counts.merge(try addVisitors(StatsRollup.visitors(clicks: clicks), db: db), uniquingKeysWith: +)
        try addStats(counts, db: db)
    }

    public func statsRows(appID: String, environment: APIEnvironment, linkID: String?, range: StatsRange) async throws -> [StatsRow] {
        try await writer.read { db in
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

    public func purgeVisitors(beforeDay day: Int) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM stats_visitors WHERE day < ?", arguments: [day])
            return db.changesCount
        }
    }
}

extension SQLiteStore {
    public func exportClicks(appID: String, environment: APIEnvironment, from: Date, to: Date, after cursor: ExportCursor?, limit: Int) async throws -> [Click] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM clicks WHERE app_id = ? AND environment = ? AND created_at < ?
                    AND (created_at > ? OR (created_at = ? AND id > ?))
                ORDER BY created_at, id LIMIT ?
                """, arguments: [appID, environment.rawValue, to.timeIntervalSince1970, cursor?.time ?? from.timeIntervalSince1970 - 1e-6,
                                 cursor?.time ?? -1, cursor?.id ?? "", limit]).map(Self.decodeClick)
        }
    }

    public func exportAttributions(appID: String, environment: APIEnvironment, from: Date, to: Date, after cursor: ExportCursor?,
                                   limit: Int) async throws -> [AttributionRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM attributions WHERE app_id = ? AND environment = ? AND created_at < ?
                    AND (created_at > ? OR (created_at = ? AND install_id > ?))
                ORDER BY created_at, install_id LIMIT ?
                """, arguments: [appID, environment.rawValue, to.timeIntervalSince1970, cursor?.time ?? from.timeIntervalSince1970 - 1e-6,
                                 cursor?.time ?? -1, cursor?.id ?? "", limit]).map(Self.decodeAttribution)
        }
    }
}
