#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import PostgresNIO

extension PostgresStore {
    // MARK: Domain claims

    package func createDomainClaim(_ claim: DomainClaim) async throws -> DomainClaim {
        try await execute("""
            INSERT INTO domain_claims (app_id, domain, token, created_at)
            VALUES (\(claim.appID), \(claim.domain), \(claim.token), \(claim.createdAt.timeIntervalSince1970))
            ON CONFLICT (app_id, domain) DO NOTHING
            """)
        guard let stored = try await first("SELECT * FROM domain_claims WHERE app_id = \(claim.appID) AND domain = \(claim.domain)", DomainClaim.init(row:))
        else { throw StoreCorruption(message: "domain claim vanished") }
        return stored
    }

    package func domainClaims(appID: String) async throws -> [DomainClaim] {
        try await all("SELECT * FROM domain_claims WHERE app_id = \(appID) ORDER BY created_at, domain", DomainClaim.init(row:))
    }

    package func deleteDomainClaim(appID: String, domain: String) async throws -> Bool {
        try await !all("DELETE FROM domain_claims WHERE app_id = \(appID) AND domain = \(domain) RETURNING domain") { _ in () }.isEmpty
    }

    package func domainOwners() async throws -> [(domain: String, appID: String)] {
        try await all("SELECT host, app_id FROM domains ORDER BY host") { (try $0["host"].decode(String.self), try $0["app_id"].decode(String.self)) }
    }
}
#endif
