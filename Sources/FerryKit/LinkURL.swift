import Foundation

/// What a URL the app was opened with is to FerryKit.
enum LinkURL: Equatable {
    /// A short link: `https://{domain}/{slug}`, or `https://{domain or subdomain}/link/{slug}`; a slug may have several
    /// segments (`promo/spring-26`), and a domain may serve its links under a path prefix (`/links/{slug}`), which
    /// FerryKit does not know: `slug` is then the whole path (`links/promo`), which the server reads with the prefix.
    case shortLink(domain: String, slug: String)
    /// A Firebase Dynamic Links long link on a link domain: `https://{domain}/?link=…`.
    case longLink(domain: String)
    /// A URL in one of the app's custom schemes.
    case customScheme
    /// Anything else.
    case notFerry

    /// The longest path segment of a link (a slug's segment, or a path prefix's).
    static let maxSlugLength = 64
    /// The most segments of a link's path: a path prefix (3), `link` and a slug (4).
    static let maxSegments = 8
    /// The longest path of a link, as the server takes one.
    static let maxPathLength = 200

    /// Classifies `url` against the app's link domains and custom schemes (both compared without regard to case).
    init(_ url: URL, domains: Set<String>, schemes: Set<String>) {
        guard let scheme = url.scheme?.lowercased() else { self = .notFerry; return }
        if scheme != "http" && scheme != "https" {
            self = schemes.contains(scheme) ? .customScheme : .notFerry
            return
        }
        guard let candidates = Self.hosts(of: url) else { self = .notFerry; return }
        var exact = false
        var found: String?
        for candidate in candidates where found == nil {
            if domains.contains(candidate) {
                exact = true
                found = candidate
            } else {
                found = domains.first { candidate.hasSuffix("." + $0) }
            }
        }
        guard let domain = found else { self = .notFerry; return }
        var segments = url.path.split(separator: "/", omittingEmptySubsequences: true)
        // A long link (`/?link=…`, or `/{prefix}/?link=…` under a path prefix of up to three segments): the server
        // reads it, and answers a short link instead when the path names one.
        if exact, segments.count <= 3, URLQuery(url).items.contains(where: { $0.name == "link" }) {
            self = .longLink(domain: domain)
            return
        }
        if segments.count >= 2, segments[0].lowercased() == "link" {
            // The `/link/{slug}` form: the slug is what follows.
            segments.removeFirst()
        } else if !exact, !segments.prefix(4).dropFirst().contains(where: { $0.lowercased() == "link" }) {
            // On a subdomain only the `/link/{slug}` form is a link (under a path prefix, `/links/link/{slug}`).
            self = .notFerry
            return
        }
        guard !segments.isEmpty, segments.count <= Self.maxSegments, let slug = Self.normalizePath(segments) else {
            self = .notFerry
            return
        }
        self = .shortLink(domain: domain, slug: slug)
    }

    /// The host of an `http` or `https` URL as link domains are compared: lowercased, without a trailing dot, and first
    /// with its port when it has one (a domain may carry one: `localhost:8080` on a development server); nil for
    /// other URLs.
    static func hosts(of url: URL) -> [String]? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasSuffix(".") { host.removeLast() }
        return (url.port.map { ["\(host):\($0)"] } ?? []) + [host]
    }

    /// The link domain an `http` or `https` URL is on when its host is one of `domains` itself (not a subdomain), and its
    /// path is not under `/.well-known/` (the domain's association files, never a page of the app); else nil.
    /// Whether it is also a link is for ``init(_:domains:schemes:)`` to say.
    static func linkDomain(of url: URL, in domains: Set<String>) -> String? {
        guard url.path.split(separator: "/").first?.lowercased() != ".well-known" else { return nil }
        return hosts(of: url)?.first { domains.contains($0) }
    }

    /// Path segments lowercased and joined with `/`, or nil when one has characters a slug cannot have
    /// (`[a-z0-9_-]`, 1 to 64) or the path is longer than a link's.
    static func normalizePath(_ segments: [Substring]) -> String? {
        var parts: [String] = []
        for segment in segments {
            guard let part = normalizeSlug(segment) else { return nil }
            parts.append(part)
        }
        let path = parts.joined(separator: "/")
        return path.utf8.count <= maxPathLength ? path : nil
    }

    /// A slug segment lowercased, or nil when it has characters a slug cannot have (`[a-z0-9_-]`, 1 to 64).
    static func normalizeSlug(_ text: Substring) -> String? {
        guard (1...maxSlugLength).contains(text.utf8.count) else { return nil }
        for byte in text.utf8 {
            let ok = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            if !ok { return nil }
        }
        return text.lowercased()
    }

    /// A domain as FerryKit compares them: lowercased, without a scheme, path or trailing dot, with its port if it has one.
    static func normalizeDomain(_ text: String) -> String? {
        var host = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let scheme = host.range(of: "://") { host = String(host[scheme.upperBound...]) }
        if let slash = host.firstIndex(of: "/") { host = String(host[..<slash]) }
        if host.hasSuffix(".") { host.removeLast() }
        return host.isEmpty ? nil : host
    }
}

/// The two path levels an app routes on, read from a link such as `https://go.example.com/link/product/42`.
///
/// ```swift
/// let path = Ferry.parsePathParams(from: url)
/// if path.mainPath == "product", let id = path.subPath { showProduct(id) }
/// ```
public struct PathParams: Sendable, Hashable {
    /// The first path segment (after a leading `link`, as in the `/link/{slug}` form), lowercased; empty for `/`.
    public var mainPath: String
    /// The segment after it, as written (ids keep their case); nil when there is none.
    public var subPath: String?
    /// Every segment after ``mainPath``, as written.
    public var remainingSegments: [String]

    /// Creates path params.
    public init(mainPath: String, subPath: String?, remainingSegments: [String] = []) {
        self.mainPath = mainPath
        self.subPath = subPath
        self.remainingSegments = remainingSegments.isEmpty ? (subPath.map { [$0] } ?? []) : remainingSegments
    }

    /// Reads `url`: for a custom scheme the host is the first segment (`myapp://product/42`).
    public init(url: URL) {
        var segments: [String] = []
        let scheme = url.scheme?.lowercased()
        if scheme != "http", scheme != "https", let host = url.host, !host.isEmpty { segments.append(host) }
        segments += url.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if segments.count > 1, segments[0].lowercased() == "link" { segments.removeFirst() }
        let main = segments.first?.lowercased() ?? ""
        let rest = Array(segments.dropFirst())
        self.init(mainPath: main, subPath: rest.first, remainingSegments: rest)
    }
}
