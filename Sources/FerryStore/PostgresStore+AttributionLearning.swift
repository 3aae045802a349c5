#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// The advisory lock space of model versions (`pg_advisory_xact_lock(space, hash)`): one insert at a time per app
    /// and environment. A number no other program uses.
    static let modelVersionLock: Int32 = 0x4672_4D56
    /// The advisory lock space of refits: one node refits an app and environment at a time.
    static let refitLock: Int32 = 0x4672_5246

    package func recordObservation(_ record: AttributionObservationRecord) async throws {
        let body = try AttributionLearningSchema.encode(record.observation)
        let pending = try record.pending.map(AttributionLearningSchema.encode)
        let installKey = pending == nil ? nil : record.installKey
        try await execute("""
            INSERT INTO attribution_observations (app_id, environment, observed_at, label_kind, body, install_key, pending)
            VALUES (\(record.appID), \(record.environment.rawValue), \(record.observedAt.timeIntervalSince1970), \(record.observation.label.kind.rawValue),
                    \(body), \(installKey), \(pending))
            """)
    }

    package func userClicks(appID: String, environment: APIEnvironment, userToken: String, platform: ClientPlatform, from: Date, to: Date,
                            limit: Int) async throws -> [ClickEvidence] {
        var languages = LanguageLists()
        return try await all("""
            SELECT \(unescaped: EvidenceColumn.list) FROM clicks c LEFT JOIN click_signals s ON s.click_id = c.id AND s.app_id = c.app_id
            WHERE c.app_id = \(appID) AND c.user_token = \(userToken) AND c.created_at >= \(from.timeIntervalSince1970)
              AND c.created_at <= \(to.timeIntervalSince1970) AND c.environment = \(environment.rawValue) AND c.platform = \(platform.rawValue)
            ORDER BY c.created_at DESC, c.id DESC LIMIT \(max(0, limit))
            """) { try ClickEvidence(row: $0, languages: &languages) }
    }

    package func pendingObservation(appID: String, environment: APIEnvironment, installKey: String) async throws -> PendingObservation? {
        try await first("""
            SELECT id, observed_at, pending FROM attribution_observations
            WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND install_key = \(installKey) AND pending IS NOT NULL
            ORDER BY observed_at DESC, id DESC LIMIT 1
            """, PendingObservation.decoded(row:)) ?? nil
    }

    package func labelObservation(id: Int64, observation: LearningObservation) async throws -> Bool {
        let body = try AttributionLearningSchema.encode(observation)
        return try await all("""
            UPDATE attribution_observations SET body = \(body), label_kind = \(observation.label.kind.rawValue), pending = NULL, install_key = NULL
            WHERE id = \(id) AND pending IS NOT NULL RETURNING id
            """) { _ in () }.count == 1
    }

    package func forgetPendingObservations(before cutoff: Date) async throws -> Int {
        try await all("""
            UPDATE attribution_observations SET pending = NULL, install_key = NULL
            WHERE pending IS NOT NULL AND observed_at < \(cutoff.timeIntervalSince1970) RETURNING id
            """) { _ in () }.count
    }

    package func observations(appID: String, environment: APIEnvironment, since: Date, limit: Int) async throws -> [AttributionObservationRecord] {
        try await all("""
            SELECT \(unescaped: ObservationColumn.selectList()) FROM attribution_observations
            WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND observed_at >= \(since.timeIntervalSince1970)
            ORDER BY observed_at DESC, id DESC LIMIT \(max(0, limit))
            """) { try AttributionObservationRecord.decoded(row: $0) }.compactMap { $0 }
    }

    package func insertModel(appID: String, environment: APIEnvironment, model: MatchModel, summary: AttributionModelSummary,
                             createdAt: Date) async throws -> AttributionModelVersion {
        let modelText = try AttributionLearningSchema.encode(model), summaryText = try AttributionLearningSchema.encode(summary)
        let env = environment.rawValue, logger = logger
        let version = try await transaction { connection in
            // Two nodes storing a version at once would both take the same next number.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.modelVersionLock), hashtext(current_schema() || '/' || \(appID + "/" + env)))",
                                       logger: logger)
            let latest = try await connection.query("SELECT COALESCE(MAX(version), 0) AS v FROM attribution_models WHERE app_id = \(appID) AND environment = \(env)",
                                                    logger: logger).collect().first.map { try $0.makeRandomAccess()["v"].decode(Int.self) } ?? 0
            try await connection.query("""
                UPDATE attribution_models SET status = 'superseded' WHERE app_id = \(appID) AND environment = \(env) AND status = 'active'
                """, logger: logger)
            try await connection.query("""
                INSERT INTO attribution_models (app_id, environment, version, created_at, status, model, summary)
                VALUES (\(appID), \(env), \(latest + 1), \(createdAt.timeIntervalSince1970), 'active', \(modelText), \(summaryText))
                """, logger: logger)
            return latest + 1
        }
        return AttributionModelVersion(appID: appID, environment: environment, version: version, createdAt: createdAt, status: .active, summary: summary)
    }

    package func activeModel(appID: String, environment: APIEnvironment) async throws -> (version: AttributionModelVersion, model: MatchModel)? {
        try await first("""
            SELECT \(unescaped: ModelVersionColumn.list), model FROM attribution_models
            WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND status = 'active'
            """) { row -> (version: AttributionModelVersion, model: MatchModel)? in
            guard let model = try? AttributionLearningSchema.decode(MatchModel.self, try row["model"].decode(String.self)) else { return nil }
            return (try AttributionModelVersion(row: row), model)
        } ?? nil
    }

    package func modelVersions(appID: String, environment: APIEnvironment, limit: Int) async throws -> [AttributionModelVersion] {
        try await all("""
            SELECT \(unescaped: ModelVersionColumn.list) FROM attribution_models WHERE app_id = \(appID) AND environment = \(environment.rawValue)
            ORDER BY version DESC LIMIT \(max(0, limit))
            """, AttributionModelVersion.init(row:))
    }

    package func purgeAttributionLearning(before cutoff: Date) async throws -> Int {
        let moment = cutoff.timeIntervalSince1970
        let observations = try await all("DELETE FROM attribution_observations WHERE observed_at < \(moment) RETURNING id") { _ in () }.count
        let models = try await all("""
            DELETE FROM attribution_models WHERE status = 'superseded' AND created_at < \(moment) RETURNING version
            """) { _ in () }.count
        return observations + models
    }

    package func clickEvidence(appID: String, environment: APIEnvironment, since: Date, limit: Int) async throws -> [ClickEvidence] {
        var languages = LanguageLists()
        return try await all("""
            SELECT \(unescaped: EvidenceColumn.list) FROM clicks c LEFT JOIN click_signals s ON s.click_id = c.id AND s.app_id = c.app_id
            WHERE c.app_id = \(appID) AND c.environment = \(environment.rawValue) AND c.created_at >= \(since.timeIntervalSince1970)
              AND \(unescaped: CandidateQuery.attributableSQL("c"))
            ORDER BY c.created_at DESC LIMIT \(max(0, limit))
            """) { try ClickEvidence(row: $0, languages: &languages) }
    }

    /// Holds a transaction-scoped advisory lock while `body` runs (on other connections): the lock goes with the
    /// transaction, however the refit ends, and with the connection if the node dies.
    package func whileRefitting<T: Sendable>(appID: String, environment: APIEnvironment, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        let logger = logger, key = appID + "/" + environment.rawValue
        return try await transaction(bounded: false) { connection -> T? in
            // Per schema, as the migrations' lock: separate installs in one database do not wait for each other.
            let rows = try await connection.query("SELECT pg_try_advisory_xact_lock(\(Self.refitLock), hashtext(current_schema() || '/' || \(key))) AS taken",
                                                  logger: logger).collect()
            guard try rows.first?.makeRandomAccess()["taken"].decode(Bool.self) == true else { return nil }
            return try await body()
        }
    }
}
#endif
