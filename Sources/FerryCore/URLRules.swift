import FerryAPI
import Foundation

/// The rules URLs must follow before Ferry stores them or sends a visitor to them.
package enum URLRules {
    /// Longest URL accepted, in bytes.
    package static let maxLength = 4096

    /// Validates a web destination: an absolute `http` or `https` URL with a host, no credentials, printable ASCII only.
    @discardableResult
    package static func validateWebURL(_ text: String, field: String) throws(ValidationError) -> String {
        try checkCharacters(text, field: field)
        let scheme = try scheme(of: text, field: field)
        guard scheme == "http" || scheme == "https" else {
            throw ValidationError(field: field, "\(field) must be an absolute http or https URL")
        }
        try checkAuthority(text, schemeLength: scheme.utf8.count, field: field)
        return text
    }

    /// Validates an app deep link: a custom scheme (`myapp://path`) or an https URL.
    @discardableResult
    package static func validateAppURL(_ text: String, field: String) throws(ValidationError) -> String {
        try checkCharacters(text, field: field)
        let scheme = try scheme(of: text, field: field)
        if URLSchemes.forbidden.contains(scheme) {
            throw ValidationError(field: field, "\(field) must not use the '\(scheme):' scheme")
        }
        if scheme == "http" {
            throw ValidationError(field: field, "\(field) must use https or the app's custom scheme, not http")
        }
        if scheme == "https" {
            try checkAuthority(text, schemeLength: scheme.utf8.count, field: field)
        } else if text.utf8.count == scheme.utf8.count + 1 {
            throw ValidationError(field: field, "\(field) has a scheme but nothing after it")
        }
        return text
    }

    /// The lowercased scheme of a URL, such as `custom` in `Custom://x`.
    package static func scheme(of text: String, field: String) throws(ValidationError) -> String {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else {
            throw ValidationError(field: field, "\(field) must be an absolute URL with a scheme")
        }
        let scheme = text.utf8[..<colon]
        guard let first = scheme.first, isLetter(first),
              scheme.count <= 64,
              scheme.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else {
            throw ValidationError(field: field, "\(field) must be an absolute URL with a scheme")
        }
        return String(decoding: scheme, as: UTF8.self).lowercased()
    }

    private static func checkCharacters(_ text: String, field: String) throws(ValidationError) {
        if text.isEmpty { throw ValidationError(field: field, "\(field) must not be empty") }
        if text.utf8.count > maxLength { throw ValidationError(field: field, "\(field) must be at most \(maxLength) bytes") }
        for byte in text.utf8 {
            switch byte {
            case 0x21...0x7E where byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "<") && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "\""):
                continue
            case 0x80...:
                throw ValidationError(field: field, "\(field) must be ASCII: percent-encode other characters and use punycode for international host names")
            default:
                throw ValidationError(field: field, "\(field) must not contain spaces, control characters, backslashes, quotes or angle brackets")
            }
        }
    }

    private static func checkAuthority(_ text: String, schemeLength: Int, field: String) throws(ValidationError) {
        let bytes = Array(text.utf8)
        var index = schemeLength + 1
        guard bytes.count > index + 1, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") else {
            throw ValidationError(field: field, "\(field) must be an absolute URL such as https://example.com/path")
        }
        index += 2
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
        let authority = String(decoding: bytes[index..<end], as: UTF8.self)
        if authority.contains("@") {
            throw ValidationError(field: field, "\(field) must not contain credentials (user@host)")
        }
        if authority.contains("%") {
            throw ValidationError(field: field, "\(field) has a percent-encoded host")
        }
        if authority.isEmpty {
            throw ValidationError(field: field, "\(field) must name a host")
        }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]"),
                  case .v6? = IPAddress(authority[authority.index(after: authority.startIndex)..<close])
            else { throw ValidationError(field: field, "\(field) has an invalid IPv6 host") }
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":", DomainName.parsePort(rest.dropFirst()) != nil else {
                    throw ValidationError(field: field, "\(field) has an invalid port")
                }
            }
        } else {
            do { _ = try DomainName.validate(authority, field: field) } catch {
                throw ValidationError(field: field, "\(field) has an invalid host '\(authority)'")
            }
        }
        guard URLComponents(string: text)?.host != nil else {
            throw ValidationError(field: field, "\(field) is not a well-formed URL")
        }
    }

    @inline(__always) static func isLetter(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
    }

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
}
