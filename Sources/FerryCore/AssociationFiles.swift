import FerryAPI
import Foundation

/// The files Apple and Google fetch from a link domain to trust the app with its links.
package enum AssociationFiles {
    /// Paths on a link domain that are never app links.
    package static let excludedPaths = ["/.well-known/*", "/.ferry/*", "/v1/*", "/api/*", "/dashboard*", "/healthz", "/readyz", "/metrics"]

    /// `apple-app-site-association` in Apple's current format (`applinks.details[].appIDs/components`),
    /// with `webcredentials` for password autofill, as served on `host` (nil: a domain without a path prefix). On a
    /// domain with a path prefix (`/links`) the app opens the paths under it only (`/links/*`): the rest of the domain
    /// is the team's own site. `linkBundleIDs` are bundle ids the app's links name (an iPad app's,
    /// `routing.ipadBundleID`), listed after the app's own.
    package static func appleAppSiteAssociation(for app: App, host: String? = nil, linkBundleIDs: [String] = []) -> Data {
        var details: [[String: Any]] = []
        var appIDs = app.ios.appIDs
        if let teamID = app.ios.teamID {
            for bundle in linkBundleIDs where !app.ios.bundleIDs.contains(bundle) { appIDs.append("\(teamID).\(bundle)") }
        }
        if !appIDs.isEmpty {
            var components: [[String: Any]]
            if let prefix = host.flatMap(app.pathPrefix(forHost:)) {
                components = [["/": prefix + "/*", "comment": "Every Ferry short link under the domain's path prefix"]]
            } else {
                components = excludedPaths.map { ["/": $0, "exclude": true, "comment": "Ferry's own routes"] }
                components.append(["/": "/*", "comment": "Every Ferry short link"])
            }
            details.append(["appIDs": appIDs, "components": components])
        }
        let document: [String: Any] = [
            "applinks": ["details": details],
            "webcredentials": ["apps": appIDs],
        ]
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    /// `assetlinks.json` in the Digital Asset Links format.
    package static func assetLinks(for app: App) -> Data {
        var statements: [[String: Any]] = []
        if let package = app.android.packageName, !app.android.sha256Fingerprints.isEmpty {
            statements.append([
                "relation": ["delegate_permission/common.handle_all_urls"],
                "target": [
                    "namespace": "android_app",
                    "package_name": package,
                    "sha256_cert_fingerprints": app.android.sha256Fingerprints,
                ],
            ])
        }
        return (try? JSONSerialization.data(withJSONObject: statements, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("[]".utf8)
    }
}

/// Rules for an app's platform settings.
package enum AppRules {
    /// Validates an Apple team id: 10 uppercase letters or digits.
    package static func validateTeamID(_ text: String) throws(ValidationError) -> String {
        let upper = text.uppercased()
        guard upper.utf8.count == 10, upper.utf8.allSatisfy({ URLRules.isDigit($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            throw ValidationError(field: "teamID", "team id must be 10 letters or digits, such as ABCDE12345")
        }
        return upper
    }

    /// Validates a bundle id or Android package: dot-separated identifiers.
    package static func validateBundleID(_ text: String, field: String = "bundleID") throws(ValidationError) -> String {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 155, parts.count >= 2, parts.allSatisfy({ part in
            !part.isEmpty && part.utf8.allSatisfy { URLRules.isLetter($0) || URLRules.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }) else {
            throw ValidationError(field: field, "\(field) must look like com.example.app")
        }
        return text
    }

    /// Validates a numeric App Store id.
    package static func validateAppStoreID(_ text: String) throws(ValidationError) -> String {
        let digits = text.hasPrefix("id") ? String(text.dropFirst(2)) : text
        guard (1...12).contains(digits.utf8.count), digits.utf8.allSatisfy(URLRules.isDigit) else {
            throw ValidationError(field: "appStoreID", "App Store id must be digits, such as 1234567890")
        }
        return digits
    }

    /// Validates a custom URL scheme (without `://`).
    package static func validateURLScheme(_ text: String) throws(ValidationError) -> String {
        let scheme = text.hasSuffix("://") ? String(text.dropLast(3)) : text
        guard !scheme.contains(":"), let s = try? URLRules.scheme(of: scheme + ":", field: "urlScheme"),
              !URLSchemes.forbidden.contains(s), s != "http", s != "https"
        else {
            throw ValidationError(field: "urlScheme", "URL scheme must be a custom scheme such as myapp")
        }
        return s
    }

    /// Validates and normalises a SHA-256 certificate fingerprint to `AB:CD:…` (32 bytes).
    package static func normalizeFingerprint(_ text: String) throws(ValidationError) -> String {
        let hex = text.uppercased().filter { $0 != ":" }
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ URLRules.isDigit($0) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }) else {
            throw ValidationError(field: "sha256", "SHA-256 fingerprint must be 32 bytes of hex, such as 14:6D:E9:…")
        }
        var pairs: [Substring] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            pairs.append(hex[index..<next])
            index = next
        }
        return pairs.joined(separator: ":")
    }
}
