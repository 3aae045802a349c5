/// Link domains: a lowercase host name with an optional port (`go.example.com`, `localhost:8080`).
public enum DomainName {
    /// Longest domain accepted.
    public static let maxLength = 253

    /// The host part of `host[:port]` (IPv6 literals keep their brackets).
    public static func hostPart(of domain: String) -> Substring {
        if domain.hasPrefix("["), let end = domain.firstIndex(of: "]") { return domain[...end] }
        if let colon = domain.lastIndex(of: ":") { return domain[..<colon] }
        return domain[...]
    }

    /// Validates and lowercases a domain given by a user.
    public static func validate(_ text: String, field: String = "domain") throws(ValidationError) -> String {
        let lower = text.lowercased()
        guard !lower.isEmpty, lower.utf8.count <= maxLength else {
            throw ValidationError(field: field, "domain must be a host name of 1 to \(maxLength) characters")
        }
        var host = Substring(lower)
        if let colon = lower.lastIndex(of: ":") {
            let port = lower[lower.index(after: colon)...]
            guard parsePort(port) != nil else {
                throw ValidationError(field: field, "domain '\(text)' has an invalid port")
            }
            host = lower[..<colon]
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let valid = !labels.isEmpty && labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
        }
        guard valid else {
            throw ValidationError(field: field, "domain '\(text)' is not a valid host name (letters, digits, '-' and '.', punycode for international names, optional :port)")
        }
        return lower
    }

    /// The lookup form of a Host header: lowercased, a trailing dot removed, bounded. Nil for an absent or absurd header.
    public static func normalizeHostHeader(_ header: String?) -> String? {
        guard var host = header, !host.isEmpty, host.utf8.count <= maxLength + 6 else { return nil }
        // Most Host headers are already in lookup form: lowercase, no dot before the end or the port.
        var previous: UInt8 = 0
        var plain = true
        for byte in host.utf8 {
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte >= 0x80 || (byte == UInt8(ascii: ":") && previous == UInt8(ascii: ".")) {
                plain = false
                break
            }
            previous = byte
        }
        if plain && previous != UInt8(ascii: ".") { return host }
        host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if let colon = host.lastIndex(of: ":"), colon > host.startIndex, host[host.index(before: colon)] == "." {
            host.remove(at: host.index(before: colon))
        }
        return host.isEmpty ? nil : host
    }

    /// A port number written as 1 to 5 ASCII digits without a leading zero or sign, in 1...65535.
    static func parsePort(_ text: Substring) -> Int? {
        guard (1...5).contains(text.utf8.count), text.first != "0",
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = Int(text), (1...65535).contains(number)
        else { return nil }
        return number
    }
}
