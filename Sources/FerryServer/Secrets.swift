#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
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
package struct AddressHasher: Sendable {
    /// The HMAC with the key already taken in, so that the key's hashing is not redone per click. It is never
    /// changed: each hash updates a copy, and the digests copy their state on write, as arrays do.
    private struct Keyed: @unchecked Sendable {
        let mac: HMAC<SHA256>
    }
    private let keyed: Keyed

    /// Creates a hasher with a secret key.
    package init(key: String) {
        keyed = Keyed(mac: HMAC<SHA256>(key: SymmetricKey(data: Array(key.utf8))))
    }

    /// The hash of an address (128 bits as hex).
    package func hash(_ address: IPAddress) -> String {
        hash(text: address.unmapped.description)
    }

    /// The hash of an address's network (/24 or /64).
    package func hashNetwork(_ address: IPAddress) -> String {
        hash(text: "net:" + address.unmapped.networkPrefix)
    }

    /// A keyed hash of any text (128 bits as hex), for identifiers derived from what a device sends.
    package func hash(text: String) -> String {
        var mac = keyed.mac
        var text = text
        text.withUTF8 { mac.update(data: UnsafeRawBufferPointer($0)) }
        return mac.finalize().withUnsafeBytes { Secrets.hex($0.prefix(16)) }
    }
}
#endif
