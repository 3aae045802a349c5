import Foundation

/// Where an app lets a long link (`https://domain/?link=…`) lead: the deep link and every fallback must be allowed,
/// or the visitor gets a 400 page instead of a redirect. Anyone can write a long link on an app's domain, so without
/// this the domain would send visitors anywhere a stranger liked.
///
/// With patterns (the app's `allowedURLPatterns`, regular expressions as Firebase Dynamic Links' "allowlist URL
/// patterns" were, such as `^https://example\.com/.*$`), a URL is allowed when one pattern matches all of it. With
/// none, a URL is allowed only on the app's own hosts: its link domains (and their subdomains) and the host of its
/// fallback URL.
package struct URLAllowlist: Sendable {
    /// Most patterns an app may have.
    package static let maxPatterns = 50
    /// Longest pattern, in bytes.
    package static let maxPatternLength = 512

    private let patterns: [NSRegularExpression]
    private let hosts: Set<String>
    private let domains: [String]

    /// The allowlist of an app.
    /// - Throws: `ValidationError` naming the first pattern that is not a valid regular expression (stored patterns
    ///   were checked when they were set, so this happens only for new ones).
    package init(app: App) throws(ValidationError) {
        patterns = try Self.compile(app.allowedURLPatterns)
        domains = app.domains.map { String(DomainName.hostPart(of: $0)) }
        hosts = Set([app.fallbackURL].compactMap { $0.flatMap(Self.host(of:)) })
    }

    /// Whether a URL may be a long link's deep link or fallback.
    package func allows(_ url: String) -> Bool {
        if !patterns.isEmpty {
            let range = NSRange(location: 0, length: (url as NSString).length)
            return patterns.contains { pattern in
                pattern.firstMatch(in: url, options: [.anchored], range: range)?.range == range
            }
        }
        guard let host = Self.host(of: url) else { return false }
        return hosts.contains(host) || domains.contains { host == $0 || host.hasSuffix("." + $0) }
    }

    /// Whether the app has patterns of its own (otherwise only its hosts are allowed).
    package var hasPatterns: Bool { !patterns.isEmpty }

    /// Checks patterns an app is given: at most `maxPatterns`, each at most `maxPatternLength` bytes, each a valid
    /// regular expression. Returns them as given.
    @discardableResult
    package static func validate(_ patterns: [String], field: String = "allowedURLPatterns") throws(ValidationError) -> [String] {
        _ = try compile(patterns, field: field)
        return patterns
    }

    private static func compile(_ patterns: [String], field: String = "allowedURLPatterns") throws(ValidationError) -> [NSRegularExpression] {
        if patterns.count > maxPatterns { throw ValidationError(field: field, "an app may have at most \(maxPatterns) URL patterns") }
        var compiled: [NSRegularExpression] = []
        for pattern in patterns {
            if pattern.isEmpty || pattern.utf8.count > maxPatternLength {
                throw ValidationError(field: field, "each URL pattern must be 1 to \(maxPatternLength) bytes")
            }
            try LinkRules.checkText(pattern, field: field, max: maxPatternLength)
            do {
                compiled.append(try NSRegularExpression(pattern: pattern))
            } catch {
                throw ValidationError(field: field, "URL pattern '\(pattern.prefix(100))' is not a valid regular expression")
            }
        }
        return compiled
    }

    /// The lowercase host of an absolute http(s) URL, without port or credentials; nil when there is none.
    static func host(of url: String) -> String? {
        guard let separator = url.range(of: "://") else { return nil }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = url[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return nil }
        let host = DomainName.hostPart(of: authority.lowercased())
        return host.isEmpty ? nil : String(host)
    }
}
