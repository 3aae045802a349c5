#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    package func recordClickSignals(_ record: ClickSignalsRecord) async throws {
        let signals = record.signals
        let fingerprint = DeviceFingerprint.key(width: signals.screenWidth, height: signals.screenHeight, scale: signals.screenScale, timeZone: signals.timeZone)
        try await write { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO click_signals (click_id, app_id, received_at, platform, screen_width, screen_height, screen_scale,
                    time_zone, time_zone_offset, languages, fingerprint, browser_hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    record.clickID, record.appID, record.receivedAt.timeIntervalSince1970, signals.platform, signals.screenWidth,
                    signals.screenHeight, signals.screenScale, signals.timeZone, signals.timeZoneOffsetSeconds,
                    JSONText.encode(signals.languages ?? []), fingerprint, record.browserHash,
                ])
        }
    }

    package func candidates(_ query: CandidateQuery, platform: ClientPlatform?) async throws -> CandidateSet {
        try await readHere { db in
            let since = query.since.timeIntervalSince1970, until = query.until.timeIntervalSince1970
            // Only people's clicks on the platforms apps are installed on; the address and network indexes hold no others.
            let platformFilter = " AND \(CandidateQuery.attributableSQL("c"))" + (platform == nil ? "" : " AND c.platform = :platform")
            var arguments: [String: (any DatabaseValueConvertible)?] = [
                "app": query.appID, "env": query.environment.rawValue, "since": since, "until": until,
                "platform": platform?.rawValue, "limit": CandidateQuery.limitPerKey,
            ]
            let unconsumed = "NOT EXISTS (SELECT 1 FROM attributions a WHERE a.click_id = c.id)"
            // A click can come by more than one key (its address and its network): each is kept once.
            var clicks: [ClickEvidence] = []
            var seen = Set<String>()
            var languages = LanguageLists()
            // Cached statements: the few shapes these queries take are compiled once per connection, not per match.
            func collect(_ sql: String) throws {
                let rows = try db.cachedStatement(sql: sql).decodedRows(arguments: StatementArguments(arguments)) { row in
                    try ClickEvidence(row: row, languages: &languages)
                }
                for evidence in rows where seen.insert(evidence.clickID).inserted { clicks.append(evidence) }
            }
            // The address and network lookups name their index: without statistics SQLite's planner prefers the
            // crowd index (more equal columns) and walks every click of the window, hundreds of milliseconds at a
            // million clicks, instead of the few that share the address.
            func count(_ condition: String, index: String? = nil) throws -> Int {
                try Int.fetchOne(db.cachedStatement(sql: """
                    SELECT COUNT(*) FROM clicks c\(index.map { " INDEXED BY \($0)" } ?? "") WHERE c.app_id = :app AND c.environment = :env
                      AND c.created_at BETWEEN :since AND :until\(platformFilter) AND \(condition)
                    """), arguments: StatementArguments(arguments)) ?? 0
            }
            func base(_ index: String) -> String {
                """
                SELECT \(EvidenceColumn.list) FROM clicks c INDEXED BY \(index) LEFT JOIN click_signals s ON s.click_id = c.id AND s.app_id = c.app_id
                WHERE c.app_id = :app AND c.environment = :env AND c.created_at BETWEEN :since AND :until\(platformFilter) AND \(unconsumed)
                """
            }
            var sameAddress = 0, sameNetwork = 0
            if let address = query.addressHash {
                arguments["address"] = address
                try collect(base("clicks_app_address") + " AND c.ip_hash = :address ORDER BY c.created_at DESC LIMIT :limit")
                sameAddress = try count("c.ip_hash = :address", index: "clicks_app_address")
            }
            if let network = query.networkHash {
                arguments["network"] = network
                try collect(base("clicks_app_network") + " AND c.network_hash = :network ORDER BY c.created_at DESC LIMIT :limit")
                sameNetwork = try count("c.network_hash = :network", index: "clicks_app_network")
            }
            if let fingerprint = query.fingerprint {
                // Newest first in the fingerprint index's own order (a page reports within seconds of its click), so
                // that a common fingerprint (a popular phone in a popular time zone) stops after the limit instead of
                // sorting every click that shares it.
                arguments["fingerprint"] = fingerprint
                try collect("""
                    SELECT \(EvidenceColumn.list) FROM click_signals s JOIN clicks c ON c.id = s.click_id AND c.app_id = s.app_id
                    WHERE s.app_id = :app AND s.fingerprint = :fingerprint AND s.received_at BETWEEN :since AND :until
                      AND c.environment = :env AND c.created_at BETWEEN :since AND :until\(platformFilter) AND \(unconsumed)
                    ORDER BY s.received_at DESC LIMIT :limit
                    """)
            }
            let crowd = CrowdCounts.key(query, platform: platform)
            let inWindow = try crowdCounts.remembered(crowd, now: query.until) ?? {
                let counted = try count("1")
                crowdCounts.remember(counted, for: crowd, now: query.until)
                return counted
            }()
            clicks.sort { $0.createdAt > $1.createdAt || ($0.createdAt == $1.createdAt && $0.clickID < $1.clickID) }
            return CandidateSet(clicks: clicks, clicksInWindow: inWindow, sameAddressClicks: sameAddress, sameNetworkClicks: sameNetwork)
        }
    }

    package func unconsumedClick(id: String, appID: String, environment: APIEnvironment, since: Date) async throws -> ClickEvidence? {
        try await read { db in
            var languages = LanguageLists()
            return try db.cachedStatement(sql: """
                SELECT \(EvidenceColumn.list) FROM clicks c LEFT JOIN click_signals s ON s.click_id = c.id AND s.app_id = c.app_id
                WHERE c.id = ? AND c.app_id = ? AND c.environment = ? AND c.created_at >= ?
                  AND NOT EXISTS (SELECT 1 FROM attributions a WHERE a.click_id = c.id)
                """).decodedRow(arguments: [id, appID, environment.rawValue, since.timeIntervalSince1970]) { row in
                try ClickEvidence(row: row, languages: &languages)
            }
        }
    }

    package func attribution(appID: String, environment: APIEnvironment, installID: String, installationID: String?) async throws -> AttributionRecord? {
        try await readHere { db in
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT * FROM attributions WHERE app_id = ? AND environment = ? AND install_id = ?
                ORDER BY COALESCE(installation_id = ?, 0) DESC, seq DESC LIMIT 1
                """), arguments: [appID, environment.rawValue, installID, installationID]).map(AttributionRecord.init(row:))
        }
    }

    package func insertAttribution(_ record: AttributionRecord) async throws {
        try await write { db in
            do {
                try db.cachedStatement(sql: """
                    INSERT INTO attributions (app_id, environment, install_id, click_id, link_id, match_type, confidence, created_at, installation_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [record.appID, record.environment.rawValue, record.installID, record.clickID, record.linkID,
                                     record.matchType?.rawValue, record.confidence, record.createdAt.timeIntervalSince1970, record.installationID])
                try Self.addStats(Dictionary(StatsRollup.increments(attribution: record).map { ($0, 1) }, uniquingKeysWith: +), db: db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                let message = error.message ?? ""
                if message.contains("click_id") {
                    throw StoreConflict(field: "clickID", message: "the click is already attributed to another install")
                }
                throw StoreConflict(field: "installID", message: "the install already has an answer")
            }
        }
    }

    package func adoptInstallation(appID: String, environment: APIEnvironment, installID: String, installationID: String) async throws -> AttributionRecord? {
        try await write { db in
            try db.execute(sql: "UPDATE attributions SET installation_id = ? WHERE app_id = ? AND environment = ? AND install_id = ? AND installation_id IS NULL",
                           arguments: [installationID, appID, environment.rawValue, installID])
            return try Row.fetchOne(db, sql: "SELECT * FROM attributions WHERE app_id = ? AND environment = ? AND install_id = ? ORDER BY seq DESC LIMIT 1",
                                    arguments: [appID, environment.rawValue, installID]).map(AttributionRecord.init(row:))
        }
    }

    @discardableResult
    package func linkBrowser(ofClick clickID: String, appID: String, environment: APIEnvironment, to installID: String, at time: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO browser_installs (app_id, environment, install_id, browser_hash, linked_at)
                SELECT app_id, ?, ?, browser_hash, ? FROM click_signals WHERE click_id = ? AND app_id = ? AND browser_hash IS NOT NULL
                ON CONFLICT (app_id, environment, install_id, browser_hash) DO UPDATE SET linked_at = MAX(linked_at, excluded.linked_at)
                """, arguments: [environment.rawValue, installID, time.timeIntervalSince1970, clickID, appID])
            return db.changesCount > 0
        }
    }

    package func linkedBrowserClick(appID: String, environment: APIEnvironment, installID: String, since: Date) async throws -> ClickEvidence? {
        try await read { db in
            var languages = LanguageLists()
            return try db.cachedStatement(sql: """
                SELECT \(EvidenceColumn.list) FROM browser_installs b
                JOIN click_signals s ON s.app_id = b.app_id AND s.browser_hash = b.browser_hash
                JOIN clicks c ON c.id = s.click_id AND c.app_id = s.app_id
                WHERE b.app_id = ? AND b.environment = ? AND b.install_id = ? AND s.received_at >= ?
                  AND c.environment = b.environment AND c.created_at >= ? AND \(CandidateQuery.attributableSQL("c"))
                  AND NOT EXISTS (SELECT 1 FROM attributions a WHERE a.click_id = c.id)
                ORDER BY c.created_at DESC, c.id LIMIT 1
                """).decodedRow(arguments: [appID, environment.rawValue, installID, since.timeIntervalSince1970, since.timeIntervalSince1970]) { row in
                try ClickEvidence(row: row, languages: &languages)
            }
        }
    }

    /// A user binding row with the attribution it copied.
    static func decodeBinding(_ row: Row, db: Database, appID: String, environment: APIEnvironment) throws -> UserBinding {
        let record = try UserBinding.attributionSeq(row: row)
            .flatMap { try Row.fetchOne(db, sql: "SELECT * FROM attributions WHERE seq = ?", arguments: [$0]) }.map(AttributionRecord.init(row:))
        return try UserBinding(row: row, attribution: record, appID: appID, environment: environment)
    }

    package func userBinding(appID: String, environment: APIEnvironment, userID: String) async throws -> UserBinding? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM user_bindings WHERE app_id = ? AND environment = ? AND user_id = ?",
                             arguments: [appID, environment.rawValue, userID])
                .map { try Self.decodeBinding($0, db: db, appID: appID, environment: environment) }
        }
    }

    package func bindUser(appID: String, environment: APIEnvironment, userID: String, installID: String, authority: UserBinding.Authority,
                         now: Date) async throws -> UserBinding {
        try await write { db in
            func binding(_ row: Row) throws -> UserBinding {
                try Self.decodeBinding(row, db: db, appID: appID, environment: environment)
            }
            let select = "SELECT * FROM user_bindings WHERE app_id = ? AND environment = ? AND user_id = ?"
            let existing = try Row.fetchOne(db, sql: select, arguments: [appID, environment.rawValue, userID])
            if let existing, !(authority == .server && existing["authority"] == UserBinding.Authority.device.rawValue) {
                return try binding(existing)
            }
            let seq = try Int64.fetchOne(db, sql: "SELECT seq FROM attributions WHERE app_id = ? AND environment = ? AND install_id = ? ORDER BY seq DESC LIMIT 1",
                                         arguments: [appID, environment.rawValue, installID])
            // A backend's binding replaces one a publishable key made.
            try db.execute(sql: """
                INSERT OR REPLACE INTO user_bindings (app_id, environment, user_id, install_id, attribution_seq, authority, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [appID, environment.rawValue, userID, installID, seq, authority.rawValue, now.timeIntervalSince1970])
            guard let row = try Row.fetchOne(db, sql: select, arguments: [appID, environment.rawValue, userID]) else {
                throw DatabaseError(message: "user binding vanished")
            }
            return try binding(row)
        }
    }

    package func recordEvents(_ events: [EventRecord]) async throws {
        guard !events.isEmpty else { return }
        try await write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO events (app_id, environment, name, install_id, link_id, properties, occurred_at, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for event in events {
                try statement.execute(arguments: [
                    event.appID, event.environment.rawValue, event.name, event.installID, event.linkID, JSONText.encode(event.properties),
                    event.occurredAt.timeIntervalSince1970, event.receivedAt.timeIntervalSince1970,
                ])
            }
            try Self.addStats(StatsRollup.increments(events: events), db: db)
        }
    }

    package func eventCount(appID: String, name: String) async throws -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM events WHERE app_id = ? AND name = ?", arguments: [appID, name]) ?? 0
        }
    }

    package func purgeAttributionSignals(now: Date) async throws -> Int {
        try await write { db in
            var touched = 0
            for row in try Row.fetchAll(db, sql: "SELECT id, attribution_window FROM apps") {
                let appID: String = row["id"]
                let cutoff = now.timeIntervalSince1970 - (row["attribution_window"] as Double)
                try db.execute(sql: "DELETE FROM click_signals WHERE app_id = ? AND received_at < ?", arguments: [appID, cutoff])
                touched += db.changesCount
                try db.execute(sql: """
                    UPDATE clicks SET ip_hash = NULL, network_hash = NULL, user_agent = NULL, accept_language = NULL
                    WHERE app_id = ? AND created_at < ? AND (ip_hash IS NOT NULL OR network_hash IS NOT NULL OR user_agent IS NOT NULL)
                    """, arguments: [appID, cutoff])
                touched += db.changesCount
                try db.execute(sql: "UPDATE clicks SET user_token = NULL WHERE app_id = ? AND user_token IS NOT NULL AND created_at < ?",
                               arguments: [appID, cutoff - AttributionObservationRecord.pendingHorizon])
                touched += db.changesCount
            }
            // Signals of clicks on hosts of no app, or older than any window allows.
            try db.execute(sql: "DELETE FROM click_signals WHERE received_at < ?", arguments: [now.timeIntervalSince1970 - AttributionSettings.maximumWindow])
            touched += db.changesCount
            try db.execute(sql: "DELETE FROM browser_installs WHERE linked_at < ?", arguments: [now.timeIntervalSince1970 - AttributionRules.browserLinkRetention])
            touched += db.changesCount
            return touched
        }
    }
}
#endif
