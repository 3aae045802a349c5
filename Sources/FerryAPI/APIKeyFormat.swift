/// Whether a key may be embedded in an app (publishable) or must stay on a server (secret).
package enum APIKeyKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// `fk_…`: safe to ship inside an app. Resolves links, matches installs, sends events.
    case publishable
    /// `fs_…`: server-side only. Creates and reads links, reads statistics.
    case secret

    /// The two-letter prefix of keys of this kind.
    package var prefix: String { self == .publishable ? "fk" : "fs" }
}

/// Live data and test data never mix: a key of one environment sees only links of that environment.
public enum APIEnvironment: String, Codable, Sendable, Hashable, CaseIterable {
    /// Production.
    case live
    /// Development and testing.
    case test
}

/// The text format of Ferry API keys: `fk_live_`, `fk_test_`, `fs_live_` or `fs_test_` followed by 32 ASCII letters and digits.
///
/// ```swift
/// if let format = APIKeyFormat(parsing: "fk_live_0123456789abcdefghijABCDEFGHIJ01") {
///     print(format.kind, format.environment) // publishable live
/// }
/// ```
package struct APIKeyFormat: Sendable, Hashable {
    /// Number of random characters after the prefix.
    package static let randomLength = 32
    /// Total length of a well-formed key.
    package static let totalLength = 8 + randomLength

    /// The key's kind, read from its prefix.
    package var kind: APIKeyKind
    /// The key's environment, read from its prefix.
    package var environment: APIEnvironment

    /// Creates a format description.
    package init(kind: APIKeyKind, environment: APIEnvironment) {
        self.kind = kind
        self.environment = environment
    }

    /// Parses a key's prefix and checks the random part's length and alphabet; nil when the text is not a Ferry key.
    package init?(parsing key: some StringProtocol) {
        let bytes = Array(key.utf8)
        guard bytes.count == Self.totalLength else { return nil }
        let kind: APIKeyKind
        switch (bytes[0], bytes[1]) {
        case (UInt8(ascii: "f"), UInt8(ascii: "k")): kind = .publishable
        case (UInt8(ascii: "f"), UInt8(ascii: "s")): kind = .secret
        default: return nil
        }
        guard bytes[2] == UInt8(ascii: "_"), bytes[7] == UInt8(ascii: "_") else { return nil }
        let environment: APIEnvironment
        switch String(decoding: bytes[3..<7], as: UTF8.self) {
        case "live": environment = .live
        case "test": environment = .test
        default: return nil
        }
        for byte in bytes[8...] where !Self.isAlphanumeric(byte) { return nil }
        self.init(kind: kind, environment: environment)
    }

    /// The prefix keys of this format start with, such as `fk_live_`.
    package var prefix: String { "\(kind.prefix)_\(environment.rawValue)_" }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
