#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    package func createApp(_ app: App) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO apps (id, name, ios_team_id, ios_bundle_ids, ios_app_store_id, ios_url_scheme, android_package,
                    android_sha256, fallback_url, social_title, social_description, social_image_url, attribution_window,
                    copy_to_open, allowed_url_patterns, path_prefixes, client_links, min_confidence, attribution_model, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [app.id] + Self.appArguments(app) + [app.createdAt.timeIntervalSince1970])
            try Self.insertDomains(app, db: db)
        }
    }

    package func updateApp(_ app: App) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                UPDATE apps SET name = ?, ios_team_id = ?, ios_bundle_ids = ?, ios_app_store_id = ?, ios_url_scheme = ?,
                    android_package = ?, android_sha256 = ?, fallback_url = ?, social_title = ?, social_description = ?,
                    social_image_url = ?, attribution_window = ?, copy_to_open = ?, allowed_url_patterns = ?, path_prefixes = ?,
                    client_links = ?, min_confidence = ?, attribution_model = ?
                WHERE id = ?
                """, arguments: Self.appArguments(app) + [app.id])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "DELETE FROM domains WHERE app_id = ?", arguments: [app.id])
            try Self.insertDomains(app, db: db)
            return true
        }
    }

    package func app(id: String) async throws -> App? {
        try await readHere { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM apps WHERE id = ?"), arguments: [id]).map { try Self.app($0, db: db) }
        }
    }

    package func app(forDomain host: String) async throws -> App? {
        try await read { db in
            let statement = try db.cachedStatement(sql: "SELECT apps.* FROM apps JOIN domains ON domains.app_id = apps.id WHERE domains.host = ?")
            return try Row.fetchOne(statement, arguments: [host]).map { try Self.app($0, db: db) }
        }
    }

    package func listApps() async throws -> [App] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY created_at, id").map { try Self.app($0, db: db) }
        }
    }

    private static func appArguments(_ app: App) -> StatementArguments {
        [
            app.name, app.ios.teamID, JSONText.encode(app.ios.bundleIDs), app.ios.appStoreID, app.ios.urlScheme,
            app.android.packageName, JSONText.encode(app.android.sha256Fingerprints), app.fallbackURL,
            app.social.title, app.social.description, app.social.imageURL, app.attribution.window, app.attribution.copyToOpen,
            JSONText.encode(app.allowedURLPatterns), JSONText.encode(app.pathPrefixes), app.clientLinks, app.attribution.minConfidence,
            app.attribution.model.rawValue,
        ]
    }

    private static func insertDomains(_ app: App, db: Database) throws {
        // One writer at a time: no other app's domains can change between this read and the inserts.
        let taken = try String.fetchAll(db, sql: "SELECT host FROM domains WHERE app_id <> ?", arguments: [app.id])
        if let conflict = StoreConflict.domainConflict(of: app, othersOwn: taken) { throw conflict }
        for (position, host) in app.domains.enumerated() {
            do {
                try db.execute(sql: "INSERT INTO domains (host, app_id, position) VALUES (?, ?, ?)", arguments: [host, app.id, position])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                throw StoreConflict(field: "domain", message: "domain '\(host)' already belongs to an app")
            }
        }
    }

    /// An `apps` row with its domains.
    private static func app(_ row: Row, db: Database) throws -> App {
        let id: String = try row.columns(AppColumn.self)[.id]
        let domains = try String.fetchAll(db.cachedStatement(sql: "SELECT host FROM domains WHERE app_id = ? ORDER BY position"), arguments: [id])
        return try App(row: row, domains: domains)
    }

    // MARK: Keys

    package func createKey(_ key: APIKeyRecord) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO api_keys (id, app_id, kind, environment, hash, hint, created_at, revoked_at, scopes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [key.id, key.appID, key.kind.rawValue, key.environment.rawValue, key.hash, key.hint,
                                 key.createdAt.timeIntervalSince1970, key.revokedAt?.timeIntervalSince1970, key.storedScopes])
        }
    }

    package func key(hash: String) async throws -> APIKeyRecord? {
        try await readHere { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM api_keys WHERE hash = ?"), arguments: [hash]).map(APIKeyRecord.init(row:))
        }
    }

    package func key(id: String) async throws -> APIKeyRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM api_keys WHERE id = ?", arguments: [id]).map(APIKeyRecord.init(row:))
        }
    }

    package func keys(appID: String) async throws -> [APIKeyRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM api_keys WHERE app_id = ? ORDER BY created_at, id", arguments: [appID]).map(APIKeyRecord.init(row:))
        }
    }

    package func revokeKey(id: String, at date: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [date.timeIntervalSince1970, id])
            return db.changesCount > 0
        }
    }
}
#endif
