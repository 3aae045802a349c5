#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes

/// Who may add a link domain to an app through the API and the dashboard. The operator always can, with
/// `ferry app update --add-domain`.
package enum DomainSelfService: String, Sendable, Hashable, CaseIterable {
    /// An app's live secret key may ask for a domain, which serves nothing until the app proves it controls it (a DNS
    /// TXT record, or a file on the domain's current web server).
    case verified
    /// Only the operator adds domains.
    case off
}

/// Checks a claim's proof of control: a TXT record `_ferry-challenge.<host>` holding `ferry-verification=<token>`,
/// or that value as a line of the file `<scheme>://<domain>/.well-known/ferry-verification.txt`, answered with a 200
/// by whatever serves the domain now (a redirect is not followed). Ferry never serves that file itself, so a domain
/// already pointed at this server is proved by DNS: pointing a name at a shared server proves nothing about who may
/// use it there.
struct DomainProver: Sendable {
    /// The DNS lookup, or nil where DNS proofs are not checked.
    let dns: DNSTextLookup?
    /// Reads the proof file at a URL (at most a few KiB of its body), or nil where HTTP proofs are not checked.
    let fetch: (@Sendable (String) async throws -> ProofFile)?

    /// What the check found: proven, or why not (one sentence a proof).
    struct Outcome: Sendable {
        var proven: Bool
        var findings: [String]
    }

    func check(_ claim: DomainClaim) async -> Outcome {
        var findings: [String] = []
        if let dns {
            do {
                let records = try await dns.textRecords(of: claim.dnsName)
                if records.contains(where: { $0.trimmingCharacters(in: .whitespaces) == claim.proof }) { return Outcome(proven: true, findings: []) }
                findings.append(records.isEmpty
                    ? "DNS: \(claim.dnsName) has no TXT record"
                    : "DNS: the TXT records of \(claim.dnsName) do not hold \(claim.proof)")
            } catch {
                findings.append("DNS: \(claim.dnsName) could not be looked up (\(error))")
            }
        }
        if let fetch {
            do {
                guard let finding = try await fetch(claim.httpURL).finding(for: claim.proof) else { return Outcome(proven: true, findings: []) }
                findings.append("HTTP: \(claim.httpURL) \(finding)")
            } catch {
                findings.append("HTTP: \(claim.httpURL) could not be read (\(error))")
            }
        }
        return Outcome(proven: false, findings: findings)
    }
}

/// An app's link domains: listing them, asking for one, proving control of it, dropping one and choosing the
/// default. The API and the dashboard both come here; the operator's `ferry app update` goes to `FerryAdmin`
/// directly (no proof needed).
struct AppDomains: Sendable {
    let admin: FerryAdmin
    let selfService: DomainSelfService
    /// Emptied when an app's domains change (other nodes see the change through the store's change counter).
    let cache: LinkCache
    let prover: DomainProver

    /// Claims an app may have waiting at once.
    static let maxPendingClaims = 20

    var store: any FerryDatabase { admin.store }

    /// The app's domains: active ones in order (the first is the default), then pending claims with their proofs.
    func list(app: App) async throws -> DomainListResponse {
        let claims = try await store.domainClaims(appID: app.id)
        let active = app.domains.enumerated().map { Self.response(domain: $1, app: app) }
        return DomainListResponse(data: active + claims.map(Self.response), selfService: selfService == .verified)
    }

    /// An active domain of the app, as the API shows it.
    static func response(domain: String, app: App) -> DomainResponse {
        DomainResponse(domain: domain, status: .active, isDefault: app.domains.first == domain, pathPrefix: app.pathPrefixes[domain])
    }

    static func response(_ claim: DomainClaim) -> DomainResponse {
        DomainResponse(domain: claim.domain, status: .pending,
                       verification: DomainVerification(dnsName: claim.dnsName, dnsValue: claim.proof, httpURL: claim.httpURL, httpBody: claim.proof))
    }

    /// Only a live secret key (or a person working in the live environment) changes an app's settings: a test key
    /// is for trying things out, and an app's domains serve its live links.
    func checkMayChange(_ environment: APIEnvironment) throws(ValidationError) {
        guard environment == .live else {
            throw ValidationError(code: .liveKeyRequired, field: nil, "only a live secret key (fs_live_…) changes an app's settings and domains")
        }
    }

    func checkSelfService() throws(ValidationError) {
        guard selfService == .verified else {
            throw ValidationError(code: .domainSelfServiceOff, field: nil,
                          "on this server only the operator adds link domains (ferry app update --add-domain)")
        }
    }

    /// Asks for a domain: a pending claim with its proof of control (the same claim when asked again).
    func claim(_ text: String, app: App, environment: APIEnvironment, by actor: AuditActor?) async throws -> DomainClaim {
        try checkMayChange(environment)
        try checkSelfService()
        let domain: String
        do { domain = try DomainName.validate(text) } catch {
            throw ValidationError(code: error.code, field: "domain", error.message)
        }
        // A well-formed name no app may own (or that only the operator adds) is not this app's to have: a conflict with
        // the rules of ownership, as another app's domain is.
        if let refusal = DomainName.ownershipRefusal(domain, suffixes: .bundled) {
            throw ValidationError(code: .domainUnavailable, field: "domain", refusal)
        }
        if DomainName.isLoopback(domain) {
            throw ValidationError(code: .domainUnavailable, field: "domain", "domain '\(domain)' is this machine: the operator adds development hosts")
        }
        guard !app.domains.contains(domain) else {
            throw ValidationError(code: .conflict, field: "domain", "domain '\(domain)' is one of this app's already")
        }
        try await checkFree(domain, for: app)
        let claims = try await store.domainClaims(appID: app.id)
        if let existing = claims.first(where: { $0.domain == domain }) { return existing }
        guard claims.count < Self.maxPendingClaims else {
            throw ValidationError(code: .tooManyPendingDomains, field: nil,
                          "an app has at most \(Self.maxPendingClaims) domains waiting for their proof; remove one first")
        }
        var generator = SystemRandomNumberGenerator()
        let claim = try await store.createDomainClaim(DomainClaim(appID: app.id, domain: domain, token: Identifiers.apiKeySecret(using: &generator),
                                                                  createdAt: admin.now()))
        try await admin.audit(actor, "requested", "domain", claim.domain, app: app.id, environment: nil,
                              changes: ["status": AuditChange(before: nil, after: "pending")])
        return claim
    }

    /// Refuses a domain that overlaps one another app owns (the store refuses it again when it is added).
    func checkFree(_ domain: String, for app: App) async throws {
        let taken = try await store.domainOwners().filter { $0.appID != app.id }.map(\.domain)
        var candidate = app
        candidate.domains = [domain]
        if let conflict = StoreConflict.domainConflict(of: candidate, othersOwn: taken) {
            throw ValidationError(code: .domainTaken, field: "domain", conflict.message)
        }
    }

    /// What checking a domain's proof came to.
    enum Verification: Sendable {
        /// Proven: the domain serves the app's links from now on.
        case active(App, domain: String)
        /// Not proven yet: the domain still waits, and each finding says what a proof showed.
        case pending(DomainClaim, findings: [String])

        /// The API's view of it.
        var response: DomainResponse {
            switch self {
            case .active(let app, let domain):
                return AppDomains.response(domain: domain, app: app)
            case .pending(let claim, let findings):
                var response = AppDomains.response(claim)
                response.findings = findings
                return response
            }
        }
    }

    /// Checks a pending domain's proof; once proven, the domain serves the app's links.
    func verify(_ domain: String, app: App, environment: APIEnvironment, by actor: AuditActor?) async throws -> Verification {
        try checkMayChange(environment)
        try checkSelfService()
        guard let claim = try await store.domainClaims(appID: app.id).first(where: { $0.domain == domain.lowercased() }) else {
            throw ValidationError(code: .notFound, field: nil, "domain '\(domain.prefix(260))' is not waiting for a proof in this app")
        }
        let outcome = await prover.check(claim)
        guard outcome.proven else { return .pending(claim, findings: outcome.findings) }
        let updated: App
        do {
            updated = try await admin.updateApp(id: app.id, by: actor) { spec in spec.domains.append(claim.domain) }
        } catch let conflict as StoreConflict {
            throw ValidationError(code: .domainTaken, field: "domain", conflict.message)
        }
        _ = try await store.deleteDomainClaim(appID: app.id, domain: claim.domain)
        cache.removeAll()
        try await admin.audit(actor, "verified", "domain", claim.domain, app: app.id, environment: nil,
                              changes: ["status": AuditChange(before: "pending", after: "active")])
        return .active(updated, domain: claim.domain)
    }

    /// Drops an active domain (its links stop: they answer 410) or a pending claim. An app keeps at least one domain.
    func remove(_ domain: String, app: App, environment: APIEnvironment, by actor: AuditActor?) async throws {
        try checkMayChange(environment)
        let domain = domain.lowercased()
        if app.domains.contains(domain) {
            guard app.domains.count > 1 else {
                throw ValidationError(code: .lastDomain, field: nil, "an app keeps at least one link domain; add another before dropping this one")
            }
            _ = try await admin.updateApp(id: app.id, by: actor) { spec in spec.domains.removeAll { $0 == domain } }
            cache.removeAll()
            try await admin.audit(actor, "removed", "domain", domain, app: app.id, environment: nil,
                                  changes: ["status": AuditChange(before: "active", after: nil)])
        } else if try await store.deleteDomainClaim(appID: app.id, domain: domain) {
            try await admin.audit(actor, "removed", "domain", domain, app: app.id, environment: nil,
                                  changes: ["status": AuditChange(before: "pending", after: nil)])
        } else {
            throw ValidationError(code: .notFound, field: nil, "domain '\(domain.prefix(260))' is not one of this app's")
        }
    }

    /// Changes an app's other settings (its domains stay as they are); this node's cache forgets the app.
    func updateSettings(appID: String, by actor: AuditActor?, _ change: (inout FerryAdmin.AppSpec) -> Void) async throws -> App {
        let updated = try await admin.updateApp(id: appID, by: actor) { spec in
            let domains = spec.domains
            change(&spec)
            spec.domains = domains
        }
        cache.removeAll()
        return updated
    }

    /// Sets (or, with nil, removes) the path prefix of an active domain: its links are served at `/{prefix}/{slug}`
    /// from then on, and its association file names those paths only.
    func setPathPrefix(_ prefix: String?, of domain: String, app: App, environment: APIEnvironment, by actor: AuditActor?) async throws -> App {
        try checkMayChange(environment)
        let domain = domain.lowercased()
        guard app.domains.contains(domain) else {
            throw ValidationError(code: .notFound, field: nil, "domain '\(domain.prefix(260))' is not one of this app's active domains")
        }
        let prefix = try prefix.map { text throws(ValidationError) in try LinkPath.validatePrefix(text) }
        let updated = try await admin.updateApp(id: app.id, by: actor) { spec in spec.pathPrefixes[domain] = prefix }
        cache.removeAll()
        return updated
    }

    /// Makes an active domain the default one (links go there when a request names no domain).
    func makeDefault(_ domain: String, app: App, environment: APIEnvironment, by actor: AuditActor?) async throws -> App {
        try checkMayChange(environment)
        let domain = domain.lowercased()
        guard app.domains.contains(domain) else {
            throw ValidationError(code: .notFound, field: nil, "domain '\(domain.prefix(260))' is not one of this app's active domains")
        }
        let updated = try await admin.updateApp(id: app.id, by: actor) { spec in spec.domains = [domain] + spec.domains.filter { $0 != domain } }
        cache.removeAll()
        return updated
    }
}
#endif
