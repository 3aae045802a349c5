import FerryAPI
import FerryCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    public func createApp(_ app: App) async throws {
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO apps (id, name, ios_team_id, ios_bundle_ids, ios_app_store_id, ios_url_scheme, android_package, android_sha256,
                    fallback_url, social_title, social_description, social_image_url, attribution_window, copy_to_open, created_at)
                VALUES (\(app.id), \(app.name), \(app.ios.teamID), \(JSONText.encode(app.ios.bundleIDs)), \(app.ios.appStoreID),
                    \(app.ios.urlScheme), \(app.android.packageName), \(JSONText.encode(app.android.sha256Fingerprints)), \(app.fallbackURL),
                    \(app.social.title), \(app.social.description), \(app.social.imageURL), \(app.attribution.window),
                    \(app.attribution.copyToOpen), \(app.createdAt.timeIntervalSince1970))
                """, logger: self.logger)
            try await Self.insertDomains(app, connection: connection, logger: self.logger)
        }
    }

    public func updateApp(_ app: App) async throws -> Bool {
        try await transaction { connection in
            let updated = try await connection.query("""
                UPDATE apps SET name = \(app.name), ios_team_id = \(app.ios.teamID), ios_bundle_ids = \(JSONText.encode(app.ios.bundleIDs)),
                    ios_app_store_id = \(app.ios.appStoreID), ios_url_scheme = \(app.ios.urlScheme), android_package = \(app.android.packageName),
                    android_sha256 = \(JSONText.encode(app.android.sha256Fingerprints)), fallback_url = \(app.fallbackURL),
                    social_title = \(app.social.title), social_description = \(app.social.description), social_image_url = \(app.social.imageURL),
                    attribution_window = \(app.attribution.window), copy_to_open = \(app.attribution.copyToOpen)
                WHERE id = \(app.id) RETURNING id
                """, logger: self.logger).collect()
            guard !updated.isEmpty else { return false }
            try await connection.query("DELETE FROM domains WHERE app_id = \(app.id)", logger: self.logger)
            try await Self.insertDomains(app, connection: connection, logger: self.logger)
            return true
        }
    }

    static func insertDomains(_ app: App, connection: PostgresConnection, logger: Logger) async throws {
        // Writers of domains take turns (readers do not wait), so that two apps cannot both take overlapping hosts
        // between one's check and its inserts.
        try await connection.query("LOCK TABLE domains IN SHARE ROW EXCLUSIVE MODE", logger: logger)
        let taken = try await connection.query("SELECT host FROM domains WHERE app_id <> \(app.id)", logger: logger).collect()
            .map { try $0.makeRandomAccess()["host"].decode(String.self) }
        if let conflict = StoreConflict.domainConflict(of: app, othersOwn: taken) { throw conflict }
        for (position, host) in app.domains.enumerated() {
            do {
                try await connection.query("INSERT INTO domains (host, app_id, position) VALUES (\(host), \(app.id), \(position))", logger: logger)
            } catch where uniqueViolation(error) != nil {
                throw StoreConflict(field: "domain", message: "domain '\(host)' already belongs to an app")
            }
        }
    }

    public func app(id: String) async throws -> App? {
        try await apps("SELECT * FROM apps WHERE id = \(id)").first
    }

    public func app(forDomain host: String) async throws -> App? {
        try await apps("SELECT apps.* FROM apps JOIN domains ON domains.app_id = apps.id WHERE domains.host = \(host)").first
    }

    public func listApps() async throws -> [App] {
        try await apps("SELECT * FROM apps ORDER BY created_at, id")
    }

    func apps(_ query: PostgresQuery) async throws -> [App] {
        var apps = try await all(query, Self.decodeApp)
        for index in apps.indices {
            apps[index].domains = try await all("SELECT host FROM domains WHERE app_id = \(apps[index].id) ORDER BY position") {
                try $0["host"].decode(String.self)
            }
        }
        return apps
    }

    static func decodeApp(_ row: PostgresRandomAccessRow) throws -> App {
        App(
            id: try row["id"].decode(String.self), name: try row["name"].decode(String.self), domains: [],
            ios: IOSSettings(teamID: try row["ios_team_id"].decode(String?.self),
                             bundleIDs: JSONText.decode(try row["ios_bundle_ids"].decode(String.self)) ?? [],
                             appStoreID: try row["ios_app_store_id"].decode(String?.self), urlScheme: try row["ios_url_scheme"].decode(String?.self)),
            android: AndroidSettings(packageName: try row["android_package"].decode(String?.self),
                                     sha256Fingerprints: JSONText.decode(try row["android_sha256"].decode(String.self)) ?? []),
            fallbackURL: try row["fallback_url"].decode(String?.self),
            social: SocialMetadata(title: try row["social_title"].decode(String?.self), description: try row["social_description"].decode(String?.self),
                                   imageURL: try row["social_image_url"].decode(String?.self)),
            attribution: AttributionSettings(window: try row["attribution_window"].decode(Double.self), copyToOpen: try row["copy_to_open"].decode(Bool.self)),
            createdAt: Date(timeIntervalSince1970: try row["created_at"].decode(Double.self))
        )
    }

    // MARK: Keys

    public func createKey(_ key: APIKeyRecord) async throws {
        try await execute("""
            INSERT INTO api_keys (id, app_id, kind, environment, hash, hint, created_at, revoked_at)
            VALUES (\(key.id), \(key.appID), \(key.kind.rawValue), \(key.environment.rawValue), \(key.hash), \(key.hint),
                \(key.createdAt.timeIntervalSince1970), \(key.revokedAt?.timeIntervalSince1970))
            """)
    }

    public func key(hash: String) async throws -> APIKeyRecord? {
        try await first("SELECT * FROM api_keys WHERE hash = \(hash)", Self.decodeKey)
    }

    public func keys(appID: String) async throws -> [APIKeyRecord] {
        try await all("SELECT * FROM api_keys WHERE app_id = \(appID) ORDER BY created_at, id", Self.decodeKey)
    }

    public func revokeKey(id: String, at date: Date) async throws -> Bool {
        try await !all("UPDATE api_keys SET revoked_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND revoked_at IS NULL RETURNING id") { _ in () }.isEmpty
    }

    static func decodeKey(_ row: PostgresRandomAccessRow) throws -> APIKeyRecord {
        guard let kind = APIKeyKind(rawValue: try row["kind"].decode(String.self)),
              let environment = APIEnvironment(rawValue: try row["environment"].decode(String.self)) else {
            throw StoreCorruption(message: "api_keys row has an unknown kind or environment")
        }
        return APIKeyRecord(
            id: try row["id"].decode(String.self), appID: try row["app_id"].decode(String.self), kind: kind, environment: environment,
            hash: try row["hash"].decode(String.self), hint: try row["hint"].decode(String.self),
            createdAt: Date(timeIntervalSince1970: try row["created_at"].decode(Double.self)),
            revokedAt: try row["revoked_at"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)))
    }
}
