import Foundation

/// `POST /v1/domains`: a link domain to add. It serves nothing until its owner proves control of it
/// (`POST /v1/domains/{domain}/verify`).
package struct AddDomainRequest: Codable, Sendable, Hashable {
    /// A host name, with an optional port (`go.example.com`).
    package var domain: String

    /// Creates a request.
    package init(domain: String) { self.domain = domain }
}

/// How to prove control of a domain: either proof is enough.
package struct DomainVerification: Codable, Sendable, Hashable {
    /// The DNS name of a TXT record to publish (`_ferry-challenge.go.example.com`).
    package var dnsName: String
    /// The record's type: always `TXT`.
    package var dnsType: String
    /// The record's value (`ferry-verification=…`).
    package var dnsValue: String
    /// Or: the URL at which the domain's current web server returns `httpBody` (as plain text).
    package var httpURL: String
    /// What that URL must return.
    package var httpBody: String

    /// Creates the instructions.
    package init(dnsName: String, dnsValue: String, httpURL: String, httpBody: String) {
        self.dnsName = dnsName
        dnsType = "TXT"
        self.dnsValue = dnsValue
        self.httpURL = httpURL
        self.httpBody = httpBody
    }
}

/// Whether a domain serves links.
package enum DomainStatus: String, Codable, Sendable, Hashable {
    /// It serves the app's links and association files.
    case active
    /// Asked for, waiting for its proof of control; it serves nothing.
    case pending
}

/// A link domain of an app, as the API shows it.
package struct DomainResponse: Codable, Sendable, Hashable {
    /// The host (and port).
    package var domain: String
    /// Active or pending.
    package var status: DomainStatus
    /// Whether links go on it when a request names no domain (the first active domain).
    package var isDefault: Bool
    /// How to prove control of a pending domain; nil for an active one.
    package var verification: DomainVerification?
    /// What the check just made found of each proof, when it found none (`POST /v1/domains/{domain}/verify`).
    package var findings: [String]?

    /// Creates a response.
    package init(domain: String, status: DomainStatus, isDefault: Bool = false, verification: DomainVerification? = nil, findings: [String]? = nil) {
        self.domain = domain
        self.status = status
        self.isDefault = isDefault
        self.verification = verification
        self.findings = findings
    }
}

/// `GET /v1/domains`: an app's domains, active ones first (the default first of all), then pending ones.
package struct DomainListResponse: Codable, Sendable, Hashable {
    /// The domains.
    package var data: [DomainResponse]
    /// Whether this server lets apps add domains through the API and the dashboard (with a proof of control), or only
    /// its operator (`ferry app update --add-domain`).
    package var selfService: Bool

    /// Creates a list.
    package init(data: [DomainResponse], selfService: Bool) {
        self.data = data
        self.selfService = selfService
    }
}
