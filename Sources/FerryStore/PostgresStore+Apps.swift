#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    package func createApp(_ app: App) async throws {
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO apps (id, name, ios_team_id, ios_bundle_ids, ios_app_store_id, ios_url_scheme, android_package, android_sha256,
                    fallback_url, social_title, social_description, social_image_url, attribution_window, copy_to_open,
                    allowed_url_patterns, path_prefixes, client_links, min_confidence, attribution_model, created_at)
                VALUES (\(app.id), \(app.name), \(app.ios.teamID), \(JSONText.encode(app.ios.bundleIDs)), \(app.ios.appStoreID),
                    \(app.ios.urlScheme), \(app.android.packageName), \(JSONText.encode(app.android.sha256Fingerprints)), \(app.fallbackURL),
                    \(app.social.title), \(app.social.description), \(app.social.imageURL), \(app.attribution.window),
                    \(app.attribution.copyToOpen), \(JSONText.encode(app.allowedURLPatterns)), \(JSONText.encode(app.pathPrefixes)),
                    \(app.clientLinks), \(app.attribution.minConfidence), \(app.attribution.model.rawValue), \(app.createdAt.timeIntervalSince1970))
                """, logger: self.logger)
            try await Self.insertDomains(app, connection: connection, logger: self.logger)
        }
    }

    package func updateApp(_ app: App) async throws -> Bool {
        try await transaction { connection in
            let updated = try await connection.query("""
                UPDATE apps SET name = \(app.name), ios_team_id = \(app.ios.teamID), ios_bundle_ids = \(JSONText.encode(app.ios.bundleIDs)),
                    ios_app_store_id = \(app.ios.appStoreID), ios_url_scheme = \(app.ios.urlScheme), android_package = \(app.android.packageName),
                    android_sha256 = \(JSONText.encode(app.android.sha256Fingerprints)), fallback_url = \(app.fallbackURL),
                    social_title = \(app.social.title), social_description = \(app.social.description), social_image_url = \(app.social.imageURL),
                    attribution_window = \(app.attribution.window), copy_to_open = \(app.attribution.copyToOpen),
                    allowed_url_patterns = \(JSONText.encode(app.allowedURLPatterns)), path_prefixes = \(JSONText.encode(app.pathPrefixes)),
                    client_links = \(app.clientLinks), min_confidence = \(app.attribution.minConfidence), attribution_model = \(app.attribution.model.rawValue)
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

    package func app(id: String) async throws -> App? {
        try await apps("SELECT * FROM apps WHERE id = \(id)").first
    }

    package func app(forDomain host: String) async throws -> App? {
        try await apps("SELECT apps.* FROM apps JOIN domains ON domains.app_id = apps.id WHERE domains.host = \(host)").first
    }

    package func listApps() async throws -> [App] {
        try await apps("SELECT * FROM apps ORDER BY created_at, id")
    }

    func apps(_ query: PostgresQuery) async throws -> [App] {
        var apps = try await all(query) { try App(row: $0, domains: []) }
        for index in apps.indices {
            apps[index].domains = try await all("SELECT host FROM domains WHERE app_id = \(apps[index].id) ORDER BY position") {
                try $0["host"].decode(String.self)
            }
        }
        return apps
    }

    // MARK: Keys

    package func createKey(_ key: APIKeyRecord) async throws {
        try await execute("""
            INSERT INTO api_keys (id, app_id, kind, environment, hash, hint, created_at, revoked_at, scopes)
            VALUES (\(key.id), \(key.appID), \(key.kind.rawValue), \(key.environment.rawValue), \(key.hash), \(key.hint),
                \(key.createdAt.timeIntervalSince1970), \(key.revokedAt?.timeIntervalSince1970), \(key.storedScopes))
            """)
    }

    package func key(hash: String) async throws -> APIKeyRecord? {
        try await first("SELECT * FROM api_keys WHERE hash = \(hash)", APIKeyRecord.init(row:))
    }

    package func key(id: String) async throws -> APIKeyRecord? {
        try await first("SELECT * FROM api_keys WHERE id = \(id)", APIKeyRecord.init(row:))
    }

    package func keys(appID: String) async throws -> [APIKeyRecord] {
        try await all("SELECT * FROM api_keys WHERE app_id = \(appID) ORDER BY created_at, id", APIKeyRecord.init(row:))
    }

    package func revokeKey(id: String, at date: Date) async throws -> Bool {
        try await !all("UPDATE api_keys SET revoked_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND revoked_at IS NULL RETURNING id") { _ in () }.isEmpty
    }
}
#endif
