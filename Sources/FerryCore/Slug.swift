/// Slug rules: `[a-z0-9_-]`, 1 to 64 characters, case-insensitive (stored lowercase).
package enum Slug {
    /// The longest slug.
    package static let maxLength = 64
    /// Generated slugs have this many base36 characters (36^7 ≈ 7.8e10).
    package static let generatedLength = 7

    /// Words that name Ferry's own routes on a link domain and cannot be slugs.
    package static let reserved: Set<String> = [
        "v1", "v2", "api", "dashboard", "healthz", "readyz", "metrics", "link", "links", "static", "assets",
        "favicon", "robots", "well-known", "admin", "login", "logout", "openapi", "_ferry", "ferry",
        // Apple's association file at the root, where older iOS versions look for it.
        "apple-app-site-association",
    ]

    /// The start of the slugs Ferry gives long links (`https://domain/?link=…`) when it stores them; no custom slug
    /// starts with it.
    package static let longLinkPrefix = "_fdl_"

    /// Whether a byte may appear in a slug (after lowercasing).
    @inline(__always)
    static func isSlugByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    /// The canonical (lowercase) form of a slug taken from a request path, or nil when it cannot be a slug.
    /// Cheap: used on every click, before any cache lookup.
    package static func normalize(_ text: some StringProtocol) -> String? {
        let count = text.utf8.count
        guard (1...maxLength).contains(count) else { return nil }
        var valid = true
        let slug = String(unsafeUninitializedCapacity: count) { buffer in
            var index = 0
            for var byte in text.utf8 {
                if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { byte += 32 }
                guard isSlugByte(byte) else {
                    valid = false
                    return 0
                }
                buffer[index] = byte
                index += 1
            }
            return index
        }
        return valid ? slug : nil
    }

    /// Validates a custom slug chosen by a user; returns it lowercased.
    package static func validateCustom(_ text: String, field: String = "slug") throws(ValidationError) -> String {
        if text.isEmpty { throw ValidationError(field: field, "slug must not be empty") }
        if text.utf8.count > maxLength { throw ValidationError(field: field, "slug must be at most \(maxLength) characters") }
        guard let slug = normalize(text) else {
            throw ValidationError(field: field, "slug may contain only letters a-z, digits, '-' and '_'")
        }
        if reserved.contains(slug) { throw ValidationError(field: field, "slug '\(slug)' is reserved") }
        if slug.hasPrefix(longLinkPrefix) { throw ValidationError(field: field, "slugs starting with '\(longLinkPrefix)' are kept for long links") }
        return slug
    }
}
