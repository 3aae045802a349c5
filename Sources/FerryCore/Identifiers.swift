import Foundation

/// Random identifiers and secrets. The generator is passed in: the system's CSPRNG in production,
/// a seeded one in tests.
package enum Identifiers {
    static let alphanumerics = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    static let base36 = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// `count` characters drawn uniformly from `alphabet` (at most 256 symbols). Each 64-bit draw of the generator
    /// gives eight bytes; a byte at or above the largest multiple of the alphabet's size is skipped, so that every
    /// symbol is equally likely. (Drawing per character would cost a system call each on the system's generator.)
    package static func random(count: Int, from alphabet: [UInt8], using generator: inout some RandomNumberGenerator) -> String {
        String(unsafeUninitializedCapacity: count) { buffer in
            fill(buffer, from: 0, count: count, alphabet: alphabet, using: &generator)
            return count
        }
    }

    /// Writes `count` random symbols of `alphabet` into `buffer` from `start`, as `random(count:from:using:)` draws them.
    static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>, from start: Int, count: Int, alphabet: [UInt8],
                     using generator: inout some RandomNumberGenerator) {
        precondition(!alphabet.isEmpty && alphabet.count <= 256, "an alphabet has 1 to 256 symbols")
        let size = alphabet.count
        let limit = 256 - 256 % size
        var filled = start
        let end = start + count
        while filled < end {
            var word = generator.next()
            for _ in 0..<8 where filled < end {
                let byte = Int(word & 0xFF)
                word >>= 8
                if byte < limit {
                    buffer[filled] = alphabet[byte % size]
                    filled += 1
                }
            }
        }
    }

    /// An id such as `lnk_3fJ9…` with 22 random alphanumerics (about 131 bits).
    package static func make(prefix: String, using generator: inout some RandomNumberGenerator) -> String {
        "\(prefix)_\(random(count: 22, from: alphanumerics, using: &generator))"
    }

    /// Alphanumerics in byte order, so that text written with them sorts as the numbers it stands for.
    static let orderedAlphanumerics = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// An id such as `clk_0Lx3bQ9a…` that sorts by time: 8 characters of milliseconds since 1970 (until the year
    /// 8888) in byte order, then 14 random alphanumerics (about 83 bits), so that it stays unguessable while an
    /// index on it grows at its end, as a time index does, rather than at random places (a click is one write to the
    /// end of the index instead of a page rewritten anywhere in it).
    package static func makeTimeOrdered(prefix: String, at date: Date, using generator: inout some RandomNumberGenerator) -> String {
        var milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        let prefixBytes = prefix.utf8.count
        let randomCount = 14
        return String(unsafeUninitializedCapacity: prefixBytes + 1 + 8 + randomCount) { buffer in
            var index = 0
            for byte in prefix.utf8 {
                buffer[index] = byte
                index += 1
            }
            buffer[index] = UInt8(ascii: "_")
            for position in stride(from: index + 8, through: index + 1, by: -1) {
                buffer[position] = orderedAlphanumerics[Int(milliseconds % 62)]
                milliseconds /= 62
            }
            index += 9
            fill(buffer, from: index, count: randomCount, alphabet: alphanumerics, using: &generator)
            index += randomCount
            return index
        }
    }

    /// A random base36 slug of the given length.
    package static func slug(length: Int, using generator: inout some RandomNumberGenerator) -> String {
        random(count: length, from: base36, using: &generator)
    }

    /// The random part of an API key (32 alphanumerics).
    package static func apiKeySecret(using generator: inout some RandomNumberGenerator) -> String {
        random(count: 32, from: alphanumerics, using: &generator)
    }
}
