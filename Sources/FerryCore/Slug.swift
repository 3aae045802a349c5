/// Slug rules: one to four segments separated by single `/` (`summer`, `promo/spring-26`), each of 1 to 64
/// characters of `[a-z0-9_-]`, at most 128 bytes in all, case-insensitive (stored lowercase). The first segment is not
/// a reserved word.
package enum Slug {
    /// The longest segment, and so the longest slug of one segment.
    package static let maxLength = 64
    /// The longest slug of several segments, `/` included.
    package static let maxPathLength = 128
    /// The most segments a slug has.
    package static let maxSegments = 4
    /// Generated slugs have this many base36 characters (36^7 ≈ 7.8e10).
    package static let generatedLength = 7

    /// Words that name Ferry's own routes on a link domain and cannot be slugs, nor begin one.
    package static let reserved: Set<String> = [
        "v1", "v2", "api", "dashboard", "healthz", "readyz", "metrics", "link", "links", "static", "assets",
        "favicon", "robots", "well-known", "admin", "login", "logout", "openapi", "_ferry", "ferry",
        // Apple's association file at the root, where older iOS versions look for it.
        "apple-app-site-association",
    ]

    /// The start of the slugs Ferry gives long links (`https://domain/?link=…`) when it stores them; no custom slug
    /// starts with it.
    package static let longLinkPrefix = "_fdl_"

    /// Whether a byte may appear in a slug segment (after lowercasing).
    @inline(__always)
    package static func isSlugByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    /// The canonical (lowercase) form of a slug taken from a request path, or nil when it cannot be a slug: not
    /// reserved words (see `reservedFirstSegment(of:)`), only the alphabet, the lengths and the segments.
    /// Cheap: used on every click, before any cache lookup; one pass over the bytes.
    package static func normalize(_ text: some StringProtocol) -> String? {
        let count = text.utf8.count
        guard (1...maxPathLength).contains(count) else { return nil }
        var valid = true
        let slug = String(unsafeUninitializedCapacity: count) { buffer in
            var index = 0
            var segmentLength = 0
            var segments = 1
            for var byte in text.utf8 {
                if byte == UInt8(ascii: "/") {
                    // A segment ends: it may not be empty, and only so many may follow.
                    segments += 1
                    guard segmentLength > 0, segments <= maxSegments else {
                        valid = false
                        return 0
                    }
                    segmentLength = 0
                } else {
                    if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { byte += 32 }
                    segmentLength += 1
                    guard isSlugByte(byte), segmentLength <= maxLength else {
                        valid = false
                        return 0
                    }
                }
                buffer[index] = byte
                index += 1
            }
            if segmentLength == 0 { valid = false }
            return index
        }
        return valid ? slug : nil
    }

    /// The slug's first segment when it is a reserved word (`api` for `api/x`), else nil.
    package static func reservedFirstSegment(of slug: String) -> String? {
        let first = slug.utf8.firstIndex(of: UInt8(ascii: "/")).map { String(slug[..<$0]) } ?? slug
        return reserved.contains(first) ? first : nil
    }

    /// Validates a custom slug chosen by a user; returns it lowercased.
    package static func validateCustom(_ text: String, field: String = "slug") throws(ValidationError) -> String {
        if text.isEmpty { throw ValidationError(field: field, "slug must not be empty") }
        let bytes = text.utf8.count
        guard let slug = normalize(text) else {
            // Said as precisely as the text allows: one rule broken, in the order a person fixes them.
            if !text.utf8.contains(UInt8(ascii: "/")), bytes > maxLength {
                throw ValidationError(field: field, "slug must be at most \(maxLength) characters")
            }
            if bytes > maxPathLength { throw ValidationError(field: field, "slug must be at most \(maxPathLength) characters") }
            let segments = text.split(separator: "/", omittingEmptySubsequences: false)
            if segments.contains(where: \.isEmpty) {
                throw ValidationError(field: field, "slug segments must not be empty: no '/' at its start or end, and no '//'")
            }
            if segments.count > maxSegments {
                throw ValidationError(field: field, "slug must have at most \(maxSegments) segments separated by '/'")
            }
            if segments.contains(where: { $0.utf8.count > maxLength }) {
                throw ValidationError(field: field, "each segment of a slug must be at most \(maxLength) characters")
            }
            throw ValidationError(field: field, "slug may contain only letters a-z, digits, '-' and '_' (and '/' between segments)")
        }
        if let word = reservedFirstSegment(of: slug) {
            throw ValidationError(field: field, word == slug ? "slug '\(slug)' is reserved" : "slug '\(slug)' starts with '\(word)', which is reserved")
        }
        if slug.hasPrefix(longLinkPrefix) { throw ValidationError(field: field, "slugs starting with '\(longLinkPrefix)' are kept for long links") }
        return slug
    }
}
