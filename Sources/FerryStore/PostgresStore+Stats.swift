#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// Adds increments to the roll-up, in one statement per 1,000 cells, in a fixed order so that transactions of
    /// several nodes adding to the same cells wait for each other instead of deadlocking.
    static func addStats(_ counts: [StatsKey: Int], connection: PostgresConnection, logger: Logger) async throws {
        let cells = counts.sorted { a, b in
            (a.key.appID, a.key.environment.rawValue, a.key.linkID, a.key.day, a.key.metric.rawValue, a.key.dimension)
                < (b.key.appID, b.key.environment.rawValue, b.key.linkID, b.key.day, b.key.metric.rawValue, b.key.dimension)
        }
        for query in rowQueries(
            "INSERT INTO stats_daily (app_id, environment, link_id, day, metric, dimension, count) VALUES", columns: 7, cells,
            tail: StatsSchema.upsertTail, bind: { cell, binds in
                binds.append(cell.key.appID); binds.append(cell.key.environment.rawValue); binds.append(cell.key.linkID)
                binds.append(Int32(clamping: cell.key.day)); binds.append(cell.key.metric.rawValue); binds.append(cell.key.dimension)
                binds.append(Int64(cell.value))
            }) {
            try await connection.query(query, logger: logger)
        }
    }

    /// The roll-up increments of clicks just stored: their links' UTM parameters are read, their visitors noted
    /// (one `visitors` increment for each not seen before on its day).
    static func addClickStats(_ clicks: [Click], connection: PostgresConnection, logger: Logger) async throws {
        guard !clicks.isEmpty else { return }
        let utm = try await linkUTM(of: clicks, connection: connection, logger: logger)
        var counts = StatsRollup.increments(clicks: clicks) { utm[$0.linkID] }
        counts.merge(try await addVisitors(StatsRollup.visitors(clicks: clicks), connection: connection, logger: logger), uniquingKeysWith: +)
        try await addStats(counts, connection: connection, logger: logger)
    }

    /// The UTM parameters of the links of clicks, by link id.
    static func linkUTM(of clicks: [Click], connection: PostgresConnection, logger: Logger) async throws -> [String: UTMParameters] {
        var utm: [String: UTMParameters] = [:]
        let linkIDs = Array(Set(clicks.map(\.linkID)))
        let rows = try await connection.query("SELECT id, utm_source, utm_medium, utm_campaign FROM links WHERE id = ANY(\(linkIDs))", logger: logger)
        for try await (id, source, medium, campaign) in rows.decode((String, String?, String?, String?).self) {
            utm[id] = UTMParameters(source: source, medium: medium, campaign: campaign)
        }
        return utm
    }

    /// Notes visitors; returns one `visitors` increment for each not seen before on its day.
    static func addVisitors(_ keys: [VisitorKey], connection: PostgresConnection, logger: Logger) async throws -> [StatsKey: Int] {
        var counts: [StatsKey: Int] = [:]
        let visitors = Array(Set(keys)).sorted { ($0.linkID, $0.day, $0.visitor) < ($1.linkID, $1.day, $1.visitor) }
        for query in rowQueries(
            "INSERT INTO stats_visitors (app_id, environment, link_id, day, visitor) VALUES", columns: 5, visitors,
            tail: "ON CONFLICT DO NOTHING RETURNING app_id, environment, link_id, day", bind: { key, binds in
                binds.append(key.appID); binds.append(key.environment.rawValue); binds.append(key.linkID)
                binds.append(Int32(clamping: key.day)); binds.append(key.visitor)
            }) {
            for try await (appID, environment, linkID, day) in try await connection.query(query, logger: logger).decode((String, String, String, Int32).self) {
                let key = StatsKey(appID: appID, environment: APIEnvironment(rawValue: environment) ?? .live, linkID: linkID, day: Int(day), metric: .visitors)
                counts[key, default: 0] += 1
            }
        }
        return counts
    }

    /// Forgets visitors a reclassified click had noted; returns one `visitors` decrement for each row that went.
    static func removeVisitors(_ keys: [VisitorKey], connection: PostgresConnection, logger: Logger) async throws -> [StatsKey: Int] {
        var counts: [StatsKey: Int] = [:]
        for key in Set(keys) {
            let rows = try await connection.query("""
                DELETE FROM stats_visitors WHERE app_id = \(key.appID) AND environment = \(key.environment.rawValue)
                    AND link_id = \(key.linkID) AND day = \(Int32(clamping: key.day)) AND visitor = \(key.visitor) RETURNING 1
                """, logger: logger).collect()
            if !rows.isEmpty { counts[key.statsKey, default: 0] -= 1 }
        }
        return counts
    }

    package func statsRows(appID: String, environment: APIEnvironment, linkID: String?, range: StatsRange) async throws -> [StatsRow] {
        try await all("""
            SELECT day, metric, dimension, SUM(count)::BIGINT AS total FROM stats_daily
            WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND link_id = \(linkID ?? StatsKey.appWide)
                AND day BETWEEN \(Int32(clamping: range.fromDay)) AND \(Int32(clamping: range.toDay))
            GROUP BY day, metric, dimension
            """) { row in
            (Int(try row["day"].decode(Int32.self)), try row["metric"].decode(String.self), try row["dimension"].decode(String.self),
             Int(try row["total"].decode(Int64.self)))
        }.compactMap { day, metric, dimension, total in
            StatsMetric(rawValue: metric).map { StatsRow(day: day, metric: $0, dimension: dimension, count: total) }
        }
    }

    package func purgeVisitors(beforeDay day: Int) async throws -> Int {
        try await all("DELETE FROM stats_visitors WHERE day < \(Int32(clamping: day)) RETURNING 1") { _ in () }.count
    }

    package func matchConfidences(appID: String, environment: APIEnvironment, from: Date, to: Date) async throws -> [Int] {
        confidenceBands(try await all("""
            SELECT FLOOR(confidence * 10)::integer AS band, COUNT(*)::integer AS count FROM attributions
            WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND match_type = 'probabilistic'
                AND created_at >= \(from.timeIntervalSince1970) AND created_at < \(to.timeIntervalSince1970)
            GROUP BY 1
            """) { row in (band: try row["band"].decode(Int?.self) ?? 0, count: try row["count"].decode(Int.self)) })
    }
}

extension PostgresStore {
    package func exportClicks(appID: String, environment: APIEnvironment, from: Date, to: Date, after cursor: ExportCursor?, limit: Int) async throws -> [Click] {
        let after = cursor?.time ?? from.timeIntervalSince1970 - 1e-6, tieTime = cursor?.time ?? -1, tieID = cursor?.id ?? ""
        return try await all("""
            SELECT * FROM clicks WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND created_at < \(to.timeIntervalSince1970)
                AND (created_at > \(after) OR (created_at = \(tieTime) AND id > \(tieID)))
            ORDER BY created_at, id LIMIT \(limit)
            """, Click.init(row:))
    }

    package func exportAttributions(appID: String, environment: APIEnvironment, from: Date, to: Date, after cursor: ExportCursor?,
                                   limit: Int) async throws -> [AttributionRecord] {
        let after = cursor?.time ?? from.timeIntervalSince1970 - 1e-6, tieTime = cursor?.time ?? -1, tieID = cursor?.id ?? ""
        return try await all("""
            SELECT * FROM attributions WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND created_at < \(to.timeIntervalSince1970)
                AND (created_at > \(after) OR (created_at = \(tieTime) AND install_id > \(tieID)))
            ORDER BY created_at, install_id LIMIT \(limit)
            """, AttributionRecord.init(row:))
    }
}
#endif
