/// Random identifiers and secrets. The generator is passed in: the system's CSPRNG in production,
/// a seeded one in tests.
public enum Identifiers {
    static let alphanumerics = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    static let base36 = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// `count` characters drawn uniformly from `alphabet`.
    public static func random(count: Int, from alphabet: [UInt8], using generator: inout some RandomNumberGenerator) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An id such as `lnk_3fJ9…` with 22 random alphanumerics (about 131 bits).
    public static func make(prefix: String, using generator: inout some RandomNumberGenerator) -> String {
        "\(prefix)_\(random(count: 22, from: alphanumerics, using: &generator))"
    }

    /// A random base36 slug of the given length.
    public static func slug(length: Int, using generator: inout some RandomNumberGenerator) -> String {
        random(count: length, from: base36, using: &generator)
    }

    /// The random part of an API key (32 alphanumerics).
    public static func apiKeySecret(using generator: inout some RandomNumberGenerator) -> String {
        random(count: 32, from: alphanumerics, using: &generator)
    }
}
