#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import PostgresNIO

extension PostgresStore {
    package func recordClicks(_ clicks: [Click]) async throws {
        guard !clicks.isEmpty else { return }
        let logger = logger
        try await transaction { connection in
            var stored: Set<String> = []
            for query in Self.rowQueries("""
                INSERT INTO clicks (id, link_id, app_id, environment, created_at, ip_hash, network_hash, user_agent, platform, referer, query,
                    accept_language, os_version, apple_device, user_token, traffic) VALUES
                """, columns: 16, clicks, tail: "ON CONFLICT (id, created_at) DO NOTHING RETURNING id", bind: { click, binds in
                    binds.append(click.id); binds.append(click.linkID); binds.append(click.appID); binds.append(click.environment.rawValue)
                    binds.append(click.createdAt.timeIntervalSince1970); binds.append(click.ipHash); binds.append(click.networkHash)
                    binds.append(click.userAgent); binds.append(click.platform.rawValue); binds.append(click.referer); binds.append(click.query)
                    binds.append(click.acceptLanguage); binds.append(click.osVersion); binds.append(click.appleDevice)
                    binds.append(click.userToken); binds.append(click.traffic.rawValue)
                }) {
                for try await row in try await connection.query(query, logger: logger) {
                    stored.insert(try row.decode(String.self))
                }
            }
            try await Self.addClickStats(clicks.filter { stored.contains($0.id) }, connection: connection, logger: logger)
        }
    }

    package func reclassifyClicks(ids: [String], from: Set<ClickTraffic>, to traffic: ClickTraffic) async throws -> [Click] {
        guard !ids.isEmpty, !from.isEmpty else { return [] }
        let logger = logger
        let ids = Array(Set(ids)).sorted()
        return try await transaction { connection in
            var changed: [Click] = []
            for try await row in try await connection.query("SELECT * FROM clicks WHERE id = ANY(\(ids)) ORDER BY id FOR UPDATE", logger: logger) {
                let click = try Click(row: row.makeRandomAccess())
                if click.traffic != traffic && from.contains(click.traffic) { changed.append(click) }
            }
            guard !changed.isEmpty else { return [] }
            try await connection.query("UPDATE clicks SET traffic = \(traffic.rawValue) WHERE id = ANY(\(changed.map(\.id)))", logger: logger)
            let utm = try await Self.linkUTM(of: changed, connection: connection, logger: logger)
            let change = StatsRollup.reclassification(of: changed, to: traffic) { utm[$0.linkID] }
            var counts = change.increments
            counts.merge(try await Self.removeVisitors(change.removedVisitors, connection: connection, logger: logger), uniquingKeysWith: +)
            counts.merge(try await Self.addVisitors(change.addedVisitors, connection: connection, logger: logger), uniquingKeysWith: +)
            try await Self.addStats(counts.filter { $0.value != 0 }, connection: connection, logger: logger)
            return changed.map { click in
                var now = click
                now.traffic = traffic
                return now
            }
        }
    }

    package func clickCount(linkID: String) async throws -> Int {
        try await first("SELECT COUNT(*) AS n FROM clicks WHERE link_id = \(linkID)") { try $0["n"].decode(Int.self) } ?? 0
    }

    package func click(id: String) async throws -> Click? {
        try await first("SELECT * FROM clicks WHERE id = \(id)", Click.init(row:))
    }

    /// The name of a day's click partition: `clicks_20261123` (UTC).
    package static func partitionName(dayStart: Double) -> String {
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date(timeIntervalSince1970: dayStart))
        return String(format: "clicks_%04d%02d%02d", components.year ?? 0, components.month ?? 0, components.day ?? 0)
    }

    /// Makes the partitions of yesterday, today and the next two days (UTC) when missing. A day whose clicks already
    /// went to the default partition keeps them there (PostgreSQL refuses the partition); its expiry deletes them.
    package func prepareClickStorage(now: Date) async throws {
        let today = (now.timeIntervalSince1970 / 86400).rounded(.down) * 86400
        for offset in -1...2 {
            let start = today + Double(offset) * 86400
            let name = Self.partitionName(dayStart: start)
            do {
                // The name is made of digits from a date and the bounds are numbers: nothing here comes from input.
                try await execute(PostgresQuery(unsafeSQL: """
                    CREATE TABLE IF NOT EXISTS \(name) PARTITION OF clicks FOR VALUES FROM (\(start)) TO (\(start + 86400))
                    """))
            } catch {
                logger.debug("click partition not made", metadata: ["partition": "\(name)", "error": "\(String(reflecting: error))"])
            }
        }
    }

    /// The day partitions of the clicks table, oldest first.
    package func clickPartitions() async throws -> [String] {
        try await all("""
            SELECT child.relname AS name FROM pg_inherits i
            JOIN pg_class child ON child.oid = i.inhrelid JOIN pg_class parent ON parent.oid = i.inhparent
            JOIN pg_namespace n ON n.oid = parent.relnamespace
            WHERE parent.relname = 'clicks' AND n.nspname = current_schema() AND child.relname <> 'clicks_default'
            ORDER BY child.relname
            """) { try $0["name"].decode(String.self) }
    }

    package func expireClicks(before cutoff: Date) async throws -> Int {
        let limit = cutoff.timeIntervalSince1970
        var gone = 0
        for name in try await clickPartitions() {
            // Only names this store made: clicks_ and eight digits.
            guard name.range(of: "^clicks_[0-9]{8}$", options: .regularExpression) != nil else { continue }
            let digits = name.dropFirst(7)
            var components = DateComponents()
            components.year = Int(digits.prefix(4)); components.month = Int(digits.dropFirst(4).prefix(2)); components.day = Int(digits.suffix(2))
            components.timeZone = TimeZone(identifier: "UTC")
            guard let start = Calendar(identifier: .gregorian).date(from: components)?.timeIntervalSince1970, start + 86400 <= limit else { continue }
            gone += try await first(PostgresQuery(unsafeSQL: "SELECT COUNT(*) AS n FROM \(name)")) { try $0["n"].decode(Int.self) } ?? 0
            try await execute(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(name)"))
        }
        // What is left before the cutoff: the default partition's, and the part of the day the cutoff falls in.
        gone += try await first("WITH gone AS (DELETE FROM clicks WHERE created_at < \(limit) RETURNING 1) SELECT COUNT(*) AS n FROM gone") {
            try $0["n"].decode(Int.self)
        } ?? 0
        return gone
    }
}
#endif
