#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import CFerryHashing
import Crypto
import FerryAPI
import FerryCore
import Foundation

/// Hashing of secrets and addresses.
package enum Secrets {
    /// Hex SHA-256 of an API key: what the database keeps instead of the key.
    package static func hashKey(_ key: String) -> String {
        digest(key)
    }

    /// Hex SHA-256 of a text.
    package static func digest(_ text: String) -> String {
        hex(SHA256.hash(data: Data(text.utf8)))
    }

    /// Compares two strings in time that depends only on their lengths.
    package static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// A fresh 256-bit key as hex.
    package static func makeHashKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Keyed hashes of client addresses (HMAC-SHA256), so the database never holds an address.
///
/// The hash of an address is the HMAC of its canonical text (`IPAddress.description`), and a network's that of
/// `net:` and its prefix (`IPAddress.networkPrefix`), cut to 128 bits and written as hex. The click journal keeps the
/// 128 bits themselves (`AddressDigest`); the database and every comparison use the hex.
package struct AddressHasher: Sendable {
    /// SHA-256's state after the key's inner and outer pads (RFC 2104), so that a hash costs two compressions of its
    /// own, each on a copy of eight words on the stack (`CFerryHashing`).
    private let inner: SHA256Words
    private let outer: SHA256Words

    /// Creates a hasher with a secret key.
    package init(key: String) {
        var block = Array(key.utf8)
        if block.count > SHA256.blockByteCount { block = Array(SHA256.hash(data: block)) }
        block += [UInt8](repeating: 0, count: SHA256.blockByteCount - block.count)
        var inner = SHA256Words.initial, outer = SHA256Words.initial
        inner.compress(block.map { $0 ^ 0x36 })
        outer.compress(block.map { $0 ^ 0x5C })
        (self.inner, self.outer) = (inner, outer)
    }

    /// The hash of an address (128 bits as hex).
    package func hash(_ address: IPAddress) -> String {
        digest(address).hex
    }

    /// The hash of an address's network (/24 or /64).
    package func hashNetwork(_ address: IPAddress) -> String {
        networkDigest(address).hex
    }

    /// A keyed hash of any text (128 bits as hex), for identifiers derived from what a device sends.
    package func hash(text: String) -> String {
        var text = text
        return text.withUTF8 { digest(of: UnsafeRawBufferPointer($0)) }.hex
    }

    /// The hash of an address, as its 128 bits.
    package func digest(_ address: IPAddress) -> AddressDigest {
        switch address.unmapped {
        case .v4(let value):
            return Self.withText(of: value, after: "", then: "") { digest(of: $0) }
        case .v6:
            var text = address.unmapped.description
            return text.withUTF8 { digest(of: UnsafeRawBufferPointer($0)) }
        }
    }

    /// The hash of an address's network, as its 128 bits.
    package func networkDigest(_ address: IPAddress) -> AddressDigest {
        switch address.unmapped {
        case .v4(let value):
            return Self.withText(of: value & 0xFFFF_FF00, after: "net:", then: "/24") { digest(of: $0) }
        case .v6:
            var text = "net:" + address.unmapped.networkPrefix
            return text.withUTF8 { digest(of: UnsafeRawBufferPointer($0)) }
        }
    }

    private func digest(of message: UnsafeRawBufferPointer) -> AddressDigest {
        var inner = inner
        inner.finish(message, after: SHA256.blockByteCount)
        var outer = outer
        inner.withDigest { outer.finish($0, after: SHA256.blockByteCount) }
        return AddressDigest(high: UInt64(outer.words.0) << 32 | UInt64(outer.words.1), low: UInt64(outer.words.2) << 32 | UInt64(outer.words.3))
    }

    /// Calls `body` with `prefix`, the dotted decimal text of an IPv4 address (as `IPAddress.description` writes it)
    /// and `suffix`, made on the stack.
    private static func withText<Result>(of value: UInt32, after prefix: StaticString, then suffix: StaticString,
                                         _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var count = 0
            func put(_ text: StaticString) {
                text.withUTF8Buffer { for byte in $0 { buffer[count] = byte; count += 1 } }
            }
            put(prefix)
            for shift in [24, 16, 8, 0] as [UInt32] {
                let octet = UInt8(truncatingIfNeeded: value >> shift)
                if octet >= 100 { buffer[count] = 0x30 + octet / 100; count += 1 }
                if octet >= 10 { buffer[count] = 0x30 + octet / 10 % 10; count += 1 }
                buffer[count] = 0x30 + octet % 10
                count += 1
                if shift > 0 { buffer[count] = UInt8(ascii: "."); count += 1 }
            }
            put(suffix)
            return body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[..<count]))
        }
    }
}

/// SHA-256's eight words of state, compressed by `CFerryHashing` (on the processor's SHA instructions where it has
/// them); tested against the library's SHA-256 and HMAC.
struct SHA256Words: Sendable {
    var words: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    /// The state before any block (FIPS 180-4, 5.3.3).
    static let initial = SHA256Words(words: (0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19))

    /// Takes in whole 64-byte blocks.
    mutating func compress(_ blocks: UnsafeRawBufferPointer, portable: Bool = false) {
        precondition(blocks.count % 64 == 0, "SHA-256 takes 64-byte blocks")
        guard let start = blocks.baseAddress, blocks.count > 0 else { return }
        withUnsafeMutableBytes(of: &words) { state in
            let state = state.baseAddress!.assumingMemoryBound(to: UInt32.self)
            if portable {
                ferry_sha256_compress_portable(state, start, blocks.count / 64)
            } else {
                ferry_sha256_compress(state, start, blocks.count / 64)
            }
        }
    }

    mutating func compress(_ blocks: [UInt8]) {
        blocks.withUnsafeBytes { compress($0) }
    }

    /// Takes in the last of a message, `before` bytes of which came before in whole blocks, with its padding: the
    /// state is then the digest's.
    mutating func finish(_ message: UnsafeRawBufferPointer, after before: Int, portable: Bool = false) {
        let whole = message.count / 64 * 64
        compress(UnsafeRawBufferPointer(rebasing: message[..<whole]), portable: portable)
        let tail = message.count - whole
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { buffer in
            let blocks = tail + 9 <= 64 ? 64 : 128
            if tail > 0 { buffer.baseAddress!.copyMemory(from: message.baseAddress! + whole, byteCount: tail) }
            buffer[tail] = 0x80
            for index in (tail + 1)..<(blocks - 8) { buffer[index] = 0 }
            buffer.storeBytes(of: (UInt64(before + message.count) * 8).bigEndian, toByteOffset: blocks - 8, as: UInt64.self)
            compress(UnsafeRawBufferPointer(rebasing: buffer[..<blocks]), portable: portable)
        }
    }

    /// Calls `body` with the 32 bytes of the digest (the state, once finished).
    func withDigest<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var bytes = (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian,
                     words.4.bigEndian, words.5.bigEndian, words.6.bigEndian, words.7.bigEndian)
        return withUnsafeBytes(of: &bytes) { body($0) }
    }
}

/// The hashes of the networks seen last, so that many clicks from one network (a carrier's NAT, an office, a campaign's
/// audience in one town) hash it once: each network has one place of `slots`, picked from its prefix, and keeps it
/// until another network takes it (32 bytes a place).
package struct NetworkDigestCache {
    private struct Entry {
        /// The /24's or /64's bits, and the family (4 or 6; 0 for a place never filled).
        var prefix: UInt64
        var family: UInt8
        var digest: AddressDigest
    }

    /// Made at the first digest: a recorder without a key hashes nothing.
    private var entries: [Entry] = []
    private let bits: Int
    private let shift: UInt64
    /// How many digests were worked out rather than remembered.
    package private(set) var hashed = 0

    /// A cache of `slots` places, rounded up to a power of two.
    package init(slots: Int = 1 << 16) {
        bits = max(1, Int.bitWidth - (max(2, slots) - 1).leadingZeroBitCount)
        shift = UInt64(64 - bits)
    }

    /// `hasher.networkDigest(address)`, hashed again only when the network's place holds another.
    package mutating func digest(_ address: IPAddress, hasher: AddressHasher) -> AddressDigest {
        let (prefix, family): (UInt64, UInt8)
        switch address.unmapped {
        case .v4(let value): (prefix, family) = (UInt64(value >> 8), 4)
        case .v6(let high, _): (prefix, family) = (high, 6)
        }
        if entries.isEmpty { entries = Array(repeating: Entry(prefix: 0, family: 0, digest: AddressDigest(high: 0, low: 0)), count: 1 << bits) }
        let slot = Int(truncatingIfNeeded: ((prefix ^ UInt64(family)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        if entries[slot].family == family, entries[slot].prefix == prefix { return entries[slot].digest }
        let digest = hasher.networkDigest(address)
        hashed += 1
        entries[slot] = Entry(prefix: prefix, family: family, digest: digest)
        return digest
    }
}

/// The first 128 bits of a keyed hash (`AddressHasher`), as the click journal keeps them; `hex` is the text the
/// database keeps.
package struct AddressDigest: Hashable, Sendable {
    /// The first eight bytes, the first one in the highest bits; then the next eight.
    package var high: UInt64
    package var low: UInt64

    /// The digest of the first 16 of `bytes`.
    package init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= 16, "a digest needs 16 bytes")
        high = 0
        low = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(bytes[index])
            low = low << 8 | UInt64(bytes[8 + index])
        }
    }

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The 32 lowercase hex digits.
    package var hex: String {
        String(unsafeUninitializedCapacity: 32) { buffer in
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { digits in
                for index in 0..<16 {
                    let word = index < 8 ? high : low
                    let byte = UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64(index % 8)))
                    buffer[2 * index] = digits[Int(byte >> 4)]
                    buffer[2 * index + 1] = digits[Int(byte & 0xF)]
                }
            }
            return 32
        }
    }

    /// The digest a text of 32 hex digits (`hex`) spells; nil for any other text.
    package init?(hex: String) {
        let bytes = Array(hex.utf8)
        guard bytes.count == 32 else { return nil }
        var words: [UInt64] = [0, 0]
        for (index, byte) in bytes.enumerated() {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            words[index / 16] = words[index / 16] << 4 | UInt64(value)
        }
        self.init(high: words[0], low: words[1])
    }
}
#endif
