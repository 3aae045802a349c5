/// Link domains: a lowercase host name with an optional port (`go.example.com`, `localhost:8080`).
package enum DomainName {
    /// Longest domain accepted.
    package static let maxLength = 253

    /// The host part of `host[:port]` (IPv6 literals keep their brackets).
    package static func hostPart(of domain: String) -> Substring {
        if domain.hasPrefix("["), let end = domain.firstIndex(of: "]") { return domain[...end] }
        if let colon = domain.lastIndex(of: ":") { return domain[..<colon] }
        return domain[...]
    }

    /// Validates and lowercases a domain given by a user.
    package static func validate(_ text: String, field: String = "domain") throws(ValidationError) -> String {
        // ASCII only, checked before lowercasing: the Kelvin sign (U+212A) would lowercase to `k`.
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
            throw ValidationError(field: field, "domain '\(text)' is not a valid host name (letters, digits, '-' and '.', punycode for international names, optional :port)")
        }
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
    package static func normalizeHostHeader(_ header: String?) -> String? {
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

extension DomainName {
    /// A domain's host and port (`go.example.com:8443` → `go.example.com`, 8443); nil port when it has none.
    static func parts(_ domain: String) -> (host: Substring, port: Substring?) {
        let host = hostPart(of: domain)
        guard host.endIndex < domain.endIndex else { return (host, nil) }
        return (host, domain[domain.index(after: host.endIndex)...])
    }

    /// Whether a host is an IP address literal (`203.0.113.7`, `[::1]`).
    static func isAddress(_ host: Substring) -> Bool {
        host.hasPrefix("[") || IPAddress(String(host)) != nil
    }

    /// Whether a domain is a development host of this machine: `localhost`, a name under `.localhost`, or a loopback
    /// address, with or without a port.
    package static func isLoopback(_ domain: String) -> Bool {
        let host = hostPart(of: domain)
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        let address = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : String(host)
        return IPAddress(address)?.isLoopback == true
    }

    /// Whether two link domains could answer the same request: the same host, or one a subdomain of the other (a
    /// domain also serves its subdomains, where links are shared as `/link/{slug}`), on ports that can meet (a domain
    /// without a port answers on every port). Two apps never own overlapping domains.
    package static func overlap(_ a: String, _ b: String) -> Bool {
        let (hostA, portA) = parts(a), (hostB, portB) = parts(b)
        if let portA, let portB, portA != portB { return false }
        if hostA == hostB { return true }
        if isAddress(hostA) || isAddress(hostB) { return false }
        return hostA.hasSuffix("." + hostB) || hostB.hasSuffix("." + hostA)
    }

    /// Why no app may own a (validated) domain, or nil when one may: a name of a single label (`com`, `internal`)
    /// or a public suffix (`co.uk`, `github.io`) would answer for every domain under it that no other app claims.
    /// Development hosts (`localhost`, loopback addresses) and IP addresses may be owned. Without a suffix list
    /// (`suffixes` nil), only those may.
    package static func ownershipRefusal(_ domain: String, suffixes: PublicSuffixList?) -> String? {
        let host = hostPart(of: domain)
        if isLoopback(domain) || isAddress(host) { return nil }
        if !host.contains(".") {
            return "domain '\(domain)' is a single label: a link domain is a name registered under a public suffix, such as go.example.com"
        }
        guard let suffixes else {
            return "domain '\(domain)' cannot be checked: the public suffix list was not deployed with this binary (Ferry_FerryServer.resources)"
        }
        if suffixes.isPublicSuffix(host) {
            return "domain '\(domain)' is a public suffix: anyone can register a domain under it, so no app may own it"
        }
        return nil
    }
}
