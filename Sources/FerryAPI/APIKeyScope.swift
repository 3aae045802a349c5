/// One thing a limited secret key may do. A secret key made without scopes may do everything a secret key can, as
/// every key made before scopes existed does; a key made with scopes may do only what they name. A scope that writes
/// also reads (`links:write` lists links too). Publishable keys have no scopes: what they may do is fixed.
package enum APIKeyScope: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// Read links, their QR codes and their routing report.
    case linksRead = "links:read"
    /// Create, change and delete links (the native, Firebase-compatible and referral-link routes).
    case linksWrite = "links:write"
    /// Read statistics, exports, and the attribution model and report.
    case statsRead = "stats:read"
    /// Bind users to installs, ask for a user's click token, and make the SDK's calls (match, events, resolve) with
    /// this key.
    case attributionWrite = "attribution:write"
    /// List webhooks and their deliveries.
    case webhooksRead = "webhooks:read"
    /// Create and delete webhooks.
    case webhooksWrite = "webhooks:write"
    /// Read the app's link domains and settings.
    case settingsRead = "settings:read"
    /// Add, verify, change and drop link domains; change the app's settings.
    case settingsWrite = "settings:write"
    /// Read the audit log.
    case auditRead = "audit:read"

    /// The scope that reading needs when this one writes, else nil.
    package var reading: APIKeyScope? {
        switch self {
        case .linksWrite: .linksRead
        case .webhooksWrite: .webhooksRead
        case .settingsWrite: .settingsRead
        default: nil
        }
    }

    /// Whether a key holding `scopes` may do what this scope covers: it holds this one, or one that writes what this
    /// one reads.
    package func isGranted(by scopes: Set<APIKeyScope>) -> Bool {
        scopes.contains(self) || scopes.contains { $0.reading == self }
    }

    /// Parses a list of scopes separated by commas or spaces (`links:read,stats:read`); throws naming the first
    /// unknown one. Repeated scopes count once; an empty list is an error (a key that may do nothing is a mistake).
    package static func parseList(_ text: String) throws(ScopeListError) -> Set<APIKeyScope> {
        var scopes: Set<APIKeyScope> = []
        for part in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
            guard let scope = APIKeyScope(rawValue: String(part)) else { throw .unknown(String(part.prefix(64))) }
            scopes.insert(scope)
        }
        guard !scopes.isEmpty else { throw .empty }
        return scopes
    }

    /// Why a list of scopes was refused.
    package enum ScopeListError: Error, Sendable, Hashable, CustomStringConvertible {
        /// A name that is not a scope.
        case unknown(String)
        /// No scope at all.
        case empty

        package var description: String {
            let known = APIKeyScope.allCases.map(\.rawValue).joined(separator: ", ")
            switch self {
            case .unknown(let name): return "'\(name)' is not a scope; the scopes are \(known)"
            case .empty: return "name at least one scope: \(known)"
            }
        }
    }

    package static func < (lhs: APIKeyScope, rhs: APIKeyScope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The scopes as stored and shown: their names in a fixed order, separated by spaces.
    package static func text(_ scopes: Set<APIKeyScope>) -> String {
        scopes.sorted().map(\.rawValue).joined(separator: " ")
    }
}
