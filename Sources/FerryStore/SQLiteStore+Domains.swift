#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    static func registerDomainClaimsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v10-domain-claims") { db in
            for statement in TenancySchema.domainClaims(real: "REAL") { try db.execute(sql: statement) }
        }
    }

    // MARK: Domain claims

    package func createDomainClaim(_ claim: DomainClaim) async throws -> DomainClaim {
        try await write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO domain_claims (app_id, domain, token, created_at) VALUES (?, ?, ?, ?)",
                           arguments: [claim.appID, claim.domain, claim.token, claim.createdAt.timeIntervalSince1970])
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM domain_claims WHERE app_id = ? AND domain = ?", arguments: [claim.appID, claim.domain])
            else { throw DatabaseError(message: "domain claim vanished") }
            return try DomainClaim(row: row)
        }
    }

    package func domainClaims(appID: String) async throws -> [DomainClaim] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM domain_claims WHERE app_id = ? ORDER BY created_at, domain", arguments: [appID]).map(DomainClaim.init(row:))
        }
    }

    package func deleteDomainClaim(appID: String, domain: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM domain_claims WHERE app_id = ? AND domain = ?", arguments: [appID, domain])
            return db.changesCount > 0
        }
    }

    package func domainOwners() async throws -> [(domain: String, appID: String)] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT host, app_id FROM domains ORDER BY host").map { ($0["host"], $0["app_id"]) }
        }
    }
}
#endif
