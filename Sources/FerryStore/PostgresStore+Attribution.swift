#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    package func recordClickSignals(_ record: ClickSignalsRecord) async throws {
        let signals = record.signals
        let fingerprint = DeviceFingerprint.key(width: signals.screenWidth, height: signals.screenHeight, scale: signals.screenScale, timeZone: signals.timeZone)
        try await execute("""
            INSERT INTO click_signals (click_id, app_id, received_at, platform, screen_width, screen_height, screen_scale, time_zone,
                time_zone_offset, languages, fingerprint, browser_hash)
            VALUES (\(record.clickID), \(record.appID), \(record.receivedAt.timeIntervalSince1970), \(signals.platform),
                \(signals.screenWidth.map(Int32.init(clamping:))), \(signals.screenHeight.map(Int32.init(clamping:))), \(signals.screenScale),
                \(signals.timeZone), \(signals.timeZoneOffsetSeconds.map(Int32.init(clamping:))), \(JSONText.encode(signals.languages ?? [])), \(fingerprint),
                \(record.browserHash))
            ON CONFLICT (click_id) DO NOTHING
            """)
    }

    package func candidates(_ query: CandidateQuery, platform: ClientPlatform?) async throws -> CandidateSet {
        let since = query.since.timeIntervalSince1970, until = query.until.timeIntervalSince1970
        let app = query.appID, env = query.environment.rawValue, platformName = platform?.rawValue, limit = CandidateQuery.limitPerKey
        var byID: [String: ClickEvidence] = [:]
        var languages = LanguageLists()
        func collect(_ sql: PostgresQuery) async throws {
            for evidence in try await all(sql, { try ClickEvidence(row: $0, languages: &languages) }) { byID[evidence.clickID] = evidence }
        }
        // One shape for "the window's clicks", "those from this address" and "those from this network".
        func count(address: String?, network: String?) async throws -> Int {
            try await first("""
                SELECT COUNT(*) AS n FROM clicks c WHERE c.app_id = \(app) AND c.environment = \(env)
                  AND c.created_at BETWEEN \(since) AND \(until) AND \(unescaped: CandidateQuery.attributableSQL("c")) AND (\(platformName)::text IS NULL OR c.platform = \(platformName))
                  AND (\(address)::text IS NULL OR c.ip_hash = \(address)) AND (\(network)::text IS NULL OR c.network_hash = \(network))
                """) { try $0["n"].decode(Int.self) } ?? 0
        }
        func collect(address: String?, network: String?) async throws {
            try await collect("""
                SELECT \(unescaped: EvidenceColumn.list) FROM clicks c LEFT JOIN click_signals s ON s.click_id = c.id AND s.app_id = c.app_id
                WHERE c.app_id = \(app) AND c.environment = \(env) AND c.created_at BETWEEN \(since) AND \(until)
                  AND \(unescaped: CandidateQuery.attributableSQL("c")) AND (\(platformName)::text IS NULL OR c.platform = \(platformName))
                  AND (\(address)::text IS NULL OR c.ip_hash = \(address)) AND (\(network)::text IS NULL OR c.network_hash = \(network))
                  AND NOT EXISTS (SELECT 1 FROM attributions a WHERE a.click_id = c.id)
                ORDER BY c.created_at DESC LIMIT \(limit)
                """)
        }
        var sameAddress = 0, sameNetwork = 0
        if let address = query.addressHash {
            try await collect(address: address, network: nil)
            sameAddress = try await count(address: address, network: nil)
        }
        if let network = query.networkHash {
            try await collect(address: nil, network: network)
            sameNetwork = try await count(address: nil, network: network)
        }
        if let fingerprint = query.fingerprint {
            // Newest first in the fingerprint index's order, so that a common fingerprint stops at the limit.
            try await collect("""
                SELECT \(unescaped: EvidenceColumn.list) FROM click_signals s JOIN clicks c ON c.id = s.click_id AND c.app_id = s.app_id
                WHERE s.app_id = \(app) AND s.fingerprint = \(fingerprint) AND s.received_at BETWEEN \(since) AND \(until)
                  AND c.environment = \(env) AND c.created_at BETWEEN \(since) AND \(until)
                  AND \(unescaped: CandidateQuery.attributableSQL("c")) AND (\(platformName)::text IS NULL OR c.platform = \(platformName))
                  AND NOT EXISTS (SELECT 1 FROM attributions a WHERE a.click_id = c.id)
                ORDER BY s.received_at DESC LIMIT \(limit)
                """)
        }
        let crowd = CrowdCounts.key(query, platform: platform)
        let inWindow: Int
        if let remembered = crowdCounts.remembered(crowd, now: query.until) {
            inWindow = remembered
        } else {
            inWindow = try await count(address: nil, network: nil)
            crowdCounts.remember(inWindow, for: crowd, now: query.until)
        }
        let clicks = byID.values.sorted { $0.createdAt > $1.createdAt || ($0.createdAt == $1.createdAt && $0.clickID < $1.clickID) }
        return CandidateSet(clicks: clicks, clicksInWindow: inWindow, sameAddressClicks: sameAddress, sameNetworkClicks: sameNetwork)
    }

    package func unconsumedClick(id: String, appID: String, environment: APIEnvironment, since: Date) async throws -> ClickEvidence? {
        var languages = LanguageLists()
        return try await first("""
            SELECT \(unescaped: EvidenceColumn.list) FROM clicks c LEFT JOIN click_signals s ON s.click_id = c.id AND s.app_id = c.app_id
            WHERE c.id = \(id) AND c.app_id = \(appID) AND c.environment = \(environment.rawValue) AND c.created_at >= \(since.timeIntervalSince1970)
              AND NOT EXISTS (SELECT 1 FROM attributions a WHERE a.click_id = c.id)
            """) { try ClickEvidence(row: $0, languages: &languages) }
    }

    package func attribution(appID: String, environment: APIEnvironment, installID: String, installationID: String?) async throws -> AttributionRecord? {
        try await first("""
            SELECT * FROM attributions WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND install_id = \(installID)
            ORDER BY COALESCE(installation_id = \(installationID)::text, false) DESC, seq DESC LIMIT 1
            """,
                        AttributionRecord.init(row:))
    }

    package func insertAttribution(_ record: AttributionRecord) async throws {
        let logger = logger
        do {
            try await transaction { connection in
                try await connection.query("""
                    INSERT INTO attributions (app_id, environment, install_id, click_id, link_id, match_type, confidence, created_at, installation_id)
                    VALUES (\(record.appID), \(record.environment.rawValue), \(record.installID), \(record.clickID), \(record.linkID),
                        \(record.matchType?.rawValue), \(record.confidence), \(record.createdAt.timeIntervalSince1970), \(record.installationID))
                    """, logger: logger)
                try await Self.addStats(Dictionary(StatsRollup.increments(attribution: record).map { ($0, 1) }, uniquingKeysWith: +),
                                        connection: connection, logger: logger)
            }
        } catch {
            guard let constraint = Self.uniqueViolation(error) else { throw error }
            if constraint == "attributions_click" {
                throw StoreConflict(field: "clickID", message: "the click is already attributed to another install")
            }
            throw StoreConflict(field: "installID", message: "the install already has an answer")
        }
    }

    package func adoptInstallation(appID: String, environment: APIEnvironment, installID: String, installationID: String) async throws -> AttributionRecord? {
        try await execute("""
            UPDATE attributions SET installation_id = \(installationID)
            WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND install_id = \(installID) AND installation_id IS NULL
            """)
        return try await attribution(appID: appID, environment: environment, installID: installID)
    }

    @discardableResult
    package func linkBrowser(ofClick clickID: String, appID: String, environment: APIEnvironment, to installID: String, at time: Date) async throws -> Bool {
        try await all("""
            INSERT INTO browser_installs (app_id, environment, install_id, browser_hash, linked_at)
            SELECT app_id, \(environment.rawValue), \(installID), browser_hash, \(time.timeIntervalSince1970) FROM click_signals
            WHERE click_id = \(clickID) AND app_id = \(appID) AND browser_hash IS NOT NULL
            ON CONFLICT (app_id, environment, install_id, browser_hash) DO UPDATE SET linked_at = GREATEST(browser_installs.linked_at, EXCLUDED.linked_at)
            RETURNING install_id
            """) { _ in () }.count > 0
    }

    package func linkedBrowserClick(appID: String, environment: APIEnvironment, installID: String, since: Date) async throws -> ClickEvidence? {
        var languages = LanguageLists()
        let moment = since.timeIntervalSince1970
        return try await first("""
            SELECT \(unescaped: EvidenceColumn.list) FROM browser_installs b
            JOIN click_signals s ON s.app_id = b.app_id AND s.browser_hash = b.browser_hash
            JOIN clicks c ON c.id = s.click_id AND c.app_id = s.app_id
            WHERE b.app_id = \(appID) AND b.environment = \(environment.rawValue) AND b.install_id = \(installID) AND s.received_at >= \(moment)
              AND c.environment = b.environment AND c.created_at >= \(moment) AND \(unescaped: CandidateQuery.attributableSQL("c"))
              AND NOT EXISTS (SELECT 1 FROM attributions a WHERE a.click_id = c.id)
            ORDER BY c.created_at DESC, c.id LIMIT 1
            """) { try ClickEvidence(row: $0, languages: &languages) }
    }

    /// A user binding row with the attribution it copied.
    func binding(_ row: PostgresRandomAccessRow, appID: String, environment: APIEnvironment) async throws -> UserBinding {
        var record: AttributionRecord?
        if let seq = try UserBinding.attributionSeq(row: row) {
            record = try await first("SELECT * FROM attributions WHERE seq = \(seq)", AttributionRecord.init(row:))
        }
        return try UserBinding(row: row, attribution: record, appID: appID, environment: environment)
    }

    package func userBinding(appID: String, environment: APIEnvironment, userID: String) async throws -> UserBinding? {
        guard let row = try await first("SELECT * FROM user_bindings WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND user_id = \(userID)",
                                        { $0 }) else { return nil }
        return try await binding(row, appID: appID, environment: environment)
    }

    package func bindUser(appID: String, environment: APIEnvironment, userID: String, installID: String, authority: UserBinding.Authority,
                         now: Date) async throws -> UserBinding {
        // The first binding wins, but for a backend's, which replaces one a publishable key made: a concurrent second
        // one does nothing, and both read the row that won.
        try await execute("""
            INSERT INTO user_bindings (app_id, environment, user_id, install_id, attribution_seq, authority, created_at)
            VALUES (\(appID), \(environment.rawValue), \(userID), \(installID),
                (SELECT seq FROM attributions WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND install_id = \(installID)
                 ORDER BY seq DESC LIMIT 1),
                \(authority.rawValue), \(now.timeIntervalSince1970))
            ON CONFLICT (app_id, environment, user_id) DO UPDATE SET install_id = EXCLUDED.install_id, attribution_seq = EXCLUDED.attribution_seq,
                authority = EXCLUDED.authority, created_at = EXCLUDED.created_at
            WHERE user_bindings.authority = 'device' AND EXCLUDED.authority = 'server'
            """)
        guard let binding = try await userBinding(appID: appID, environment: environment, userID: userID) else {
            throw StoreCorruption(message: "user binding vanished")
        }
        return binding
    }

    package func recordEvents(_ events: [EventRecord]) async throws {
        guard !events.isEmpty else { return }
        let logger = logger
        try await transaction { connection in
            for query in Self.rowQueries(
                "INSERT INTO events (app_id, environment, name, install_id, link_id, properties, occurred_at, received_at) VALUES", columns: 8,
                events, tail: "", bind: { event, binds in
                    binds.append(event.appID); binds.append(event.environment.rawValue); binds.append(event.name); binds.append(event.installID)
                    binds.append(event.linkID); binds.append(JSONText.encode(event.properties))
                    binds.append(event.occurredAt.timeIntervalSince1970); binds.append(event.receivedAt.timeIntervalSince1970)
                }) {
                try await connection.query(query, logger: logger)
            }
            try await Self.addStats(StatsRollup.increments(events: events), connection: connection, logger: logger)
        }
    }

    package func eventCount(appID: String, name: String) async throws -> Int {
        try await first("SELECT COUNT(*) AS n FROM events WHERE app_id = \(appID) AND name = \(name)") { try $0["n"].decode(Int.self) } ?? 0
    }

    package func purgeAttributionSignals(now: Date) async throws -> Int {
        let moment = now.timeIntervalSince1970
        let signals = try await all("""
            DELETE FROM click_signals s USING apps a WHERE s.app_id = a.id AND s.received_at < \(moment) - a.attribution_window RETURNING s.click_id
            """) { _ in () }.count
        let hashes = try await all("""
            UPDATE clicks c SET ip_hash = NULL, network_hash = NULL, user_agent = NULL, accept_language = NULL FROM apps a
            WHERE c.app_id = a.id AND c.created_at < \(moment) - a.attribution_window
              AND (c.ip_hash IS NOT NULL OR c.network_hash IS NOT NULL OR c.user_agent IS NOT NULL)
            RETURNING c.id
            """) { _ in () }.count
        let tokens = try await all("""
            UPDATE clicks c SET user_token = NULL FROM apps a
            WHERE c.app_id = a.id AND c.user_token IS NOT NULL AND c.created_at < \(moment - AttributionObservationRecord.pendingHorizon) - a.attribution_window
            RETURNING c.id
            """) { _ in () }.count
        // Signals of clicks on hosts of no app, or older than any window allows.
        let orphans = try await all("DELETE FROM click_signals WHERE received_at < \(moment - AttributionSettings.maximumWindow) RETURNING click_id") { _ in () }.count
        let links = try await all("DELETE FROM browser_installs WHERE linked_at < \(moment - AttributionRules.browserLinkRetention) RETURNING install_id") { _ in () }.count
        return signals + hashes + tokens + orphans + links
    }
}
#endif
