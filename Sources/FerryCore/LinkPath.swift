/// What a request path names on a link domain: the domain's root, or a link's slug.
///
/// A link domain may have a path prefix (`App.pathPrefixes`): `example.com` with `/links` serves its links at
/// `https://example.com/links/{slug}` and leaves every other path to the team's own site. Without a prefix a link is
/// `/{slug}`; with one, `/{prefix}/{slug}`. Either way `/{prefix}/link/{slug}` is the same link (the form links on a
/// subdomain of a link domain are shared in), one trailing `/` is ignored, and the slug follows `Slug`'s rules (up to
/// four segments, no reserved first segment). The root is `/` without a prefix, and the prefix itself (`/links` or
/// `/links/`) with one. The router, the edge's fast path, the resolve route the SDK calls and the importer all read
/// paths with `parse(path:host:app:)`, so that none of them can serve a path another one would not.
package enum LinkPath: Sendable, Hashable {
    /// The domain's root: `/`, or the domain's path prefix.
    case root
    /// A link's slug (lowercase; not looked up: the link may not exist).
    case slug(String)

    /// What a raw request path (from its `/`, as the request has it: percent escapes are not decoded, and a query
    /// after `?` is ignored) names on `host`, whose app is `app`: the root, a slug, or nil when it can be no link of
    /// the host (another part of the team's site, a reserved word, something no slug is). The host's path prefix is
    /// that of the app's domain the host stands for (`App.linkDomain(forHost:)`); a host no app serves (nil) has none.
    package static func parse(path: some StringProtocol, host: String, app: App?) -> LinkPath? {
        parse(path: path, prefix: app?.pathPrefix(forHost: host))
    }

    /// What a raw request path names on a domain with the path prefix `prefix` (as `validatePrefix` returns it), or
    /// none.
    package static func parse(path: some StringProtocol, prefix: String?) -> LinkPath? {
        let text = Substring(path)
        let utf8 = text.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        let end = utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex
        var rest = text[utf8.index(after: utf8.startIndex)..<end]
        if let prefix {
            // `prefix` is `/a/b` in lowercase; the request's may be in any case.
            let wanted = prefix.utf8.dropFirst()
            guard rest.utf8.count >= wanted.count, zip(rest.utf8, wanted).allSatisfy({ lowercase($0) == $1 }) else { return nil }
            rest = rest[rest.utf8.index(rest.startIndex, offsetBy: wanted.count)...]
            if rest.isEmpty || rest == "/" { return .root }
            guard rest.utf8.first == UInt8(ascii: "/") else { return nil }
            rest = rest.dropFirst()
        } else if rest.isEmpty {
            return .root
        }
        if rest.utf8.last == UInt8(ascii: "/") { rest = rest.dropLast() }
        if rest.utf8.count > 5, zip(rest.utf8, "link/".utf8).allSatisfy({ lowercase($0) == $1 }) { rest = rest.dropFirst(5) }
        guard let slug = Slug.normalize(rest), Slug.reservedFirstSegment(of: slug) == nil else { return nil }
        return .slug(slug)
    }

    /// A byte in ASCII lowercase.
    @inline(__always)
    package static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    // MARK: Path prefixes

    /// The longest path prefix, its leading `/` included.
    package static let maxPrefixLength = 64
    /// The most segments a path prefix has.
    package static let maxPrefixSegments = 3
    /// The longest request path that can name a link: `/`, a prefix, `/link/`, a slug and a trailing `/`.
    package static let maxRequestPathLength = maxPrefixLength + "/link/".utf8.count + Slug.maxPathLength + 1
    /// Reserved words a prefix may begin with all the same: `links` is what such prefixes are usually called, and no
    /// route of Ferry's begins with it.
    static let prefixWords: Set<String> = ["links"]

    /// Validates a domain's path prefix (`/links`, `links`, `/Links/`, `/go/app`): 1 to 3 segments of the slug
    /// alphabet, the first not a reserved word (but `links`), at most 64 bytes; returns it as `/links` (lowercase,
    /// one leading `/`, no trailing one).
    package static func validatePrefix(_ text: String, field: String = "pathPrefix") throws(ValidationError) -> String {
        var body = Substring(text)
        if body.hasPrefix("/") { body = body.dropFirst() }
        if body.hasSuffix("/") { body = body.dropLast() }
        guard !body.isEmpty else { throw ValidationError(field: field, "a path prefix needs at least one segment, such as /links") }
        guard body.utf8.count + 1 <= maxPrefixLength else {
            throw ValidationError(field: field, "a path prefix must be at most \(maxPrefixLength) characters")
        }
        let segments = body.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count <= maxPrefixSegments, let normalized = Slug.normalize(body) else {
            throw ValidationError(
                field: field,
                "a path prefix is 1 to \(maxPrefixSegments) segments of letters a-z, digits, '-' and '_' separated by single '/', such as /links")
        }
        if let word = Slug.reservedFirstSegment(of: normalized), !prefixWords.contains(word) {
            throw ValidationError(field: field, "a path prefix cannot begin with '\(word)': Ferry serves its own routes there")
        }
        return "/" + normalized
    }
}
