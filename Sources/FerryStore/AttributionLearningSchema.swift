#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation

/// What learning each app's attribution model added, the same on SQLite and PostgreSQL: the app's choice of model, the
/// observations (anonymised installs, as JSON text), and the fitted models (JSON text), one active per app and
/// environment.
enum AttributionLearningSchema {
    /// `real`: SQLite's `REAL` or PostgreSQL's `DOUBLE PRECISION`; `identity`: the observations' key column.
    static func statements(real: String, identity: String) -> [String] {
        [
            "ALTER TABLE apps ADD COLUMN attribution_model TEXT NOT NULL DEFAULT 'fixed' CHECK (attribution_model IN ('fixed', 'learned'))",
            """
            CREATE TABLE attribution_observations (
                id \(identity),
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
                observed_at \(real) NOT NULL,
                label_kind TEXT NOT NULL CHECK (label_kind IN ('click', 'organic', 'unlabelled')),
                body TEXT NOT NULL
            )
            """,
            "CREATE INDEX attribution_observations_app ON attribution_observations(app_id, environment, observed_at)",
            // The purge reads by age alone, across apps.
            "CREATE INDEX attribution_observations_observed ON attribution_observations(observed_at)",
            """
            CREATE TABLE attribution_models (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
                version INTEGER NOT NULL CHECK (version >= 1),
                created_at \(real) NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('active', 'superseded')),
                model TEXT NOT NULL,
                summary TEXT NOT NULL,
                PRIMARY KEY (app_id, environment, version)
            )
            """,
            "CREATE UNIQUE INDEX attribution_models_active ON attribution_models(app_id, environment) WHERE status = 'active'",
        ]
    }

    /// A value as stored: JSON with sorted keys, which reads back to the same value (numbers to the last bit). Unlike
    /// `JSONText.encode`, a value JSON cannot hold (a number that is not finite) is an error, not `null`.
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    /// How many versions the listing of versions gives at most.
    static let versionListLimit = 1_000
}

/// The columns of `attribution_observations`.
enum ObservationColumn: Int, StoreColumn {
    case appID, environment, observedAt, body

    var columnName: String {
        switch self {
        case .appID: "app_id"
        case .environment: "environment"
        case .observedAt: "observed_at"
        case .body: "body"
        }
    }
}

extension AttributionObservationRecord {
    /// An `attribution_observations` row; nil when its body can no longer be read (written by another version, say).
    static func decoded(row: some StoreRow) throws -> AttributionObservationRecord? {
        let row = row.columns(ObservationColumn.self)
        guard let environment = APIEnvironment(rawValue: try row[.environment]),
              let observation = try? AttributionLearningSchema.decode(LearningObservation.self, try row[.body]) else { return nil }
        return AttributionObservationRecord(appID: try row[.appID], environment: environment, observedAt: Date(timeIntervalSince1970: try row[.observedAt]),
                                            observation: observation)
    }
}

extension PendingObservation {
    /// `id, observed_at, pending` of an `attribution_observations` row; nil when the raw form can no longer be read.
    static func decoded(row: some StoreRow) throws -> PendingObservation? {
        let row = row.columns(PendingObservationColumn.self)
        guard let observation = try? AttributionLearningSchema.decode(LearningObservation.self, try row[.pending]) else { return nil }
        return PendingObservation(id: try row[.id], observedAt: Date(timeIntervalSince1970: try row[.observedAt]), observation: observation)
    }
}

/// The columns of a pending observation.
enum PendingObservationColumn: Int, StoreColumn {
    case id, observedAt, pending

    var columnName: String {
        switch self {
        case .id: "id"
        case .observedAt: "observed_at"
        case .pending: "pending"
        }
    }
}

/// The columns of `attribution_models` but the model.
enum ModelVersionColumn: Int, StoreColumn {
    case appID, environment, version, createdAt, status, summary

    /// The select list of a version without its model.
    static let list = selectList()

    var columnName: String {
        switch self {
        case .appID: "app_id"
        case .environment: "environment"
        case .version: "version"
        case .createdAt: "created_at"
        case .status: "status"
        case .summary: "summary"
        }
    }
}

extension AttributionModelVersion {
    /// An `attribution_models` row, read without its model.
    init(row: some StoreRow) throws {
        let row = row.columns(ModelVersionColumn.self)
        guard let environment = APIEnvironment(rawValue: try row[.environment]), let status = Status(rawValue: try row[.status]) else {
            throw StoreCorruption(message: "attribution_models row has an unknown environment or status")
        }
        self.init(appID: try row[.appID], environment: environment, version: try row[.version], createdAt: Date(timeIntervalSince1970: try row[.createdAt]),
                  status: status, summary: try AttributionLearningSchema.decode(AttributionModelSummary.self, try row[.summary]))
    }
}
#endif
