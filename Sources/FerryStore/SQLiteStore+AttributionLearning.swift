#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    package func recordObservation(_ record: AttributionObservationRecord) async throws {
        let body = try AttributionLearningSchema.encode(record.observation)
        let pending = try record.pending.map(AttributionLearningSchema.encode)
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO attribution_observations (app_id, environment, observed_at, label_kind, body, install_key, pending)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [record.appID, record.environment.rawValue, record.observedAt.timeIntervalSince1970,
                                         record.observation.label.kind.rawValue, body, pending == nil ? nil : record.installKey, pending])
        }
    }

    package func userClicks(appID: String, environment: APIEnvironment, userToken: String, platform: ClientPlatform, from: Date, to: Date,
                            limit: Int) async throws -> [ClickEvidence] {
        try await read { db in
            var languages = LanguageLists()
            return try db.cachedStatement(sql: """
                SELECT \(EvidenceColumn.list) FROM clicks c LEFT JOIN click_signals s ON s.click_id = c.id AND s.app_id = c.app_id
                WHERE c.app_id = ? AND c.user_token = ? AND c.created_at >= ? AND c.created_at <= ? AND c.environment = ? AND c.platform = ?
                ORDER BY c.created_at DESC, c.id DESC LIMIT ?
                """).decodedRows(arguments: [appID, userToken, from.timeIntervalSince1970, to.timeIntervalSince1970, environment.rawValue,
                                             platform.rawValue, max(0, limit)]) { row in
                try ClickEvidence(row: row, languages: &languages)
            }
        }
    }

    package func pendingObservation(appID: String, environment: APIEnvironment, installKey: String) async throws -> PendingObservation? {
        try await read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, observed_at, pending FROM attribution_observations
                WHERE app_id = ? AND environment = ? AND install_key = ? AND pending IS NOT NULL ORDER BY observed_at DESC, id DESC LIMIT 1
                """, arguments: [appID, environment.rawValue, installKey])
            return try rows.first.flatMap(PendingObservation.decoded(row:))
        }
    }

    package func labelObservation(id: Int64, observation: LearningObservation) async throws -> Bool {
        let body = try AttributionLearningSchema.encode(observation)
        return try await write { db in
            try db.execute(sql: """
                UPDATE attribution_observations SET body = ?, label_kind = ?, pending = NULL, install_key = NULL WHERE id = ? AND pending IS NOT NULL
                """, arguments: [body, observation.label.kind.rawValue, id])
            return db.changesCount == 1
        }
    }

    package func forgetPendingObservations(before cutoff: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "UPDATE attribution_observations SET pending = NULL, install_key = NULL WHERE pending IS NOT NULL AND observed_at < ?",
                           arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }

    package func observations(appID: String, environment: APIEnvironment, since: Date, limit: Int) async throws -> [AttributionObservationRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(ObservationColumn.selectList()) FROM attribution_observations
                WHERE app_id = ? AND environment = ? AND observed_at >= ? ORDER BY observed_at DESC, id DESC LIMIT ?
                """, arguments: [appID, environment.rawValue, since.timeIntervalSince1970, max(0, limit)])
                .compactMap { try AttributionObservationRecord.decoded(row: $0) }
        }
    }

    package func insertModel(appID: String, environment: APIEnvironment, model: MatchModel, summary: AttributionModelSummary,
                             createdAt: Date) async throws -> AttributionModelVersion {
        let modelText = try AttributionLearningSchema.encode(model), summaryText = try AttributionLearningSchema.encode(summary)
        return try await write { db in
            let latest = try Int.fetchOne(db, sql: "SELECT MAX(version) FROM attribution_models WHERE app_id = ? AND environment = ?",
                                          arguments: [appID, environment.rawValue]) ?? 0
            try db.execute(sql: "UPDATE attribution_models SET status = 'superseded' WHERE app_id = ? AND environment = ? AND status = 'active'",
                           arguments: [appID, environment.rawValue])
            try db.execute(sql: """
                INSERT INTO attribution_models (app_id, environment, version, created_at, status, model, summary) VALUES (?, ?, ?, ?, 'active', ?, ?)
                """, arguments: [appID, environment.rawValue, latest + 1, createdAt.timeIntervalSince1970, modelText, summaryText])
            return AttributionModelVersion(appID: appID, environment: environment, version: latest + 1, createdAt: createdAt, status: .active, summary: summary)
        }
    }

    package func activeModel(appID: String, environment: APIEnvironment) async throws -> (version: AttributionModelVersion, model: MatchModel)? {
        try await readHere { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT \(ModelVersionColumn.list), model FROM attribution_models WHERE app_id = ? AND environment = ? AND status = 'active'
                """), arguments: [appID, environment.rawValue]),
                  let model = try? AttributionLearningSchema.decode(MatchModel.self, row["model"] as String) else { return nil }
            return (try AttributionModelVersion(row: row), model)
        }
    }

    package func modelVersions(appID: String, environment: APIEnvironment, limit: Int) async throws -> [AttributionModelVersion] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(ModelVersionColumn.list) FROM attribution_models WHERE app_id = ? AND environment = ? ORDER BY version DESC LIMIT ?
                """, arguments: [appID, environment.rawValue, max(0, limit)]).map(AttributionModelVersion.init(row:))
        }
    }

    package func purgeAttributionLearning(before cutoff: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM attribution_observations WHERE observed_at < ?", arguments: [cutoff.timeIntervalSince1970])
            let observations = db.changesCount
            try db.execute(sql: "DELETE FROM attribution_models WHERE status = 'superseded' AND created_at < ?", arguments: [cutoff.timeIntervalSince1970])
            return observations + db.changesCount
        }
    }

    package func clickEvidence(appID: String, environment: APIEnvironment, since: Date, limit: Int) async throws -> [ClickEvidence] {
        try await read { db in
            var languages = LanguageLists()
            return try db.cachedStatement(sql: """
                SELECT \(EvidenceColumn.list) FROM clicks c LEFT JOIN click_signals s ON s.click_id = c.id AND s.app_id = c.app_id
                WHERE c.app_id = ? AND c.environment = ? AND c.created_at >= ? AND \(CandidateQuery.attributableSQL("c"))
                ORDER BY c.created_at DESC LIMIT ?
                """).decodedRows(arguments: [appID, environment.rawValue, since.timeIntervalSince1970, max(0, limit)]) { row in
                try ClickEvidence(row: row, languages: &languages)
            }
        }
    }

    /// A SQLite file is served by one machine: refits need no turns (one the command line makes while the server makes
    /// one adds a version, nothing worse).
    package func whileRefitting<T: Sendable>(appID: String, environment: APIEnvironment, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await body()
    }
}
#endif
