import Foundation

/// `POST /v1/domains`: a link domain to add. It serves nothing until its owner proves control of it
/// (`POST /v1/domains/{domain}/verify`).
package struct AddDomainRequest: Codable, Sendable, Hashable {
    /// A host name, with an optional port (`go.example.com`).
    package var domain: String

    /// Creates a request.
    package init(domain: String) { self.domain = domain }
}

/// `PATCH /v1/domains/{domain}`: the domain's path prefix (`/links`: links are `https://{domain}/links/{slug}` and the
/// rest of the domain is the team's own site), or `null` for none (links are `https://{domain}/{slug}`). The key must
/// be present.
package struct UpdateDomainRequest: Codable, Sendable, Hashable {
    /// The prefix, or nil for none.
    package var pathPrefix: String?

    /// Creates a request.
    package init(pathPrefix: String?) { self.pathPrefix = pathPrefix }

    enum CodingKeys: String, CodingKey { case pathPrefix }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Required, and `null` is a value: a body that forgets the key must not drop a prefix.
        guard container.contains(.pathPrefix) else {
            throw DecodingError.keyNotFound(CodingKeys.pathPrefix, .init(codingPath: [], debugDescription: "pathPrefix is required (null removes the prefix)"))
        }
        pathPrefix = try container.decodeIfPresent(String.self, forKey: .pathPrefix)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pathPrefix, forKey: .pathPrefix)
    }
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
    /// The path prefix links have on an active domain (`/links`), when it has one.
    package var pathPrefix: String?

    /// Creates a response.
    package init(domain: String, status: DomainStatus, isDefault: Bool = false, verification: DomainVerification? = nil, findings: [String]? = nil,
                 pathPrefix: String? = nil) {
        self.domain = domain
        self.status = status
        self.isDefault = isDefault
        self.verification = verification
        self.findings = findings
        self.pathPrefix = pathPrefix
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
