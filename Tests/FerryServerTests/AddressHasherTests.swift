#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Crypto
import FerryCore
@testable import FerryServer
import FerryTestSupport
import Foundation
import NIOCore
import Testing

/// The keyed hashes of addresses are the database's only record of an address, compared across releases: they must
/// stay exactly HMAC-SHA256 of the address's canonical text, cut to 128 bits, whatever shortcut computes them.
@Suite("Address hashes", .takesTurns)
struct AddressHasherTests {
    static func reference(key: String, text: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: Array(key.utf8)))
        return mac.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    @Test func sha256OnTheProcessorAndInPortableCIsTheLibrarys() {
        // Every length from empty to past two blocks, where the padding takes one block or two: the processor's
        // instructions (where this machine has them) and the portable code both give the library's digest.
        var generator = SystemRandomNumberGenerator()
        let message = (0..<200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in 0...message.count {
            let expected = Array(SHA256.hash(data: message[..<length]))
            for portable in [false, true] {
                var state = SHA256Words.initial
                message.withUnsafeBytes { state.finish(UnsafeRawBufferPointer(rebasing: $0[..<length]), after: 0, portable: portable) }
                #expect(state.withDigest { Array($0) } == expected, "\(length) bytes, portable: \(portable)")
            }
        }
    }

    @Test(arguments: ["k", String(repeating: "0123456789abcdef", count: 4), String(repeating: "long key ", count: 20), ""])
    func hashesAreHMACSHA256OfTheCanonicalText(key: String) throws {
        let hasher = AddressHasher(key: key)
        let addresses = ["0.0.0.0", "1.2.3.4", "10.200.7.254", "255.255.255.255", "192.168.100.10", "::ffff:198.51.100.7", "2001:db8::1",
                         "2a01:4f8:c17:b8f::2", "::1", "fe80::1%eth0"]
        for text in addresses {
            let address = try #require(IPAddress(text))
            #expect(hasher.hash(address) == Self.reference(key: key, text: address.unmapped.description), "\(text)")
            #expect(hasher.hashNetwork(address) == Self.reference(key: key, text: "net:" + address.unmapped.networkPrefix), "\(text)")
            #expect(hasher.digest(address).hex == hasher.hash(address))
            #expect(AddressDigest(hex: hasher.hash(address)) == hasher.digest(address))
        }
        #expect(hasher.hash(text: "observation:app|live|x") == Self.reference(key: key, text: "observation:app|live|x"))
        #expect(hasher.hash(text: "") == Self.reference(key: key, text: ""))
    }

    @Test func aNetworksHashRememberedIsTheHashItself() throws {
        let hasher = AddressHasher(key: "cache-test-key")
        // Four places: networks share them, push each other out, and come back; the families never mix.
        var cache = NetworkDigestCache(slots: 4)
        let texts = ["198.51.100.1", "198.51.100.200", "198.51.101.1", "2001:db8:1:2::1", "2001:db8:1:2::ffff", "2001:db8:1:3::1",
                     "::ffff:198.51.100.9", "0.0.0.1", "::1", "203.0.113.7", "192.0.2.1", "10.0.0.1"]
        for _ in 0..<3 {
            for text in texts {
                let address = try #require(IPAddress(text))
                #expect(cache.digest(address, hasher: hasher) == hasher.networkDigest(address), "\(text)")
            }
        }
        // A network that keeps coming back is hashed once: the addresses of one /24 (and of one /64) share a place.
        var remembered = NetworkDigestCache()
        for text in ["198.51.100.1", "198.51.100.2", "198.51.100.254", "2001:db8:1:2::1", "2001:db8:1:2::2", "198.51.100.3"] {
            _ = remembered.digest(try #require(IPAddress(text)), hasher: hasher)
        }
        #expect(remembered.hashed == 2)
    }

    @Test func onlyThirtyTwoLowercaseHexDigitsSpellADigest() {
        #expect(AddressDigest(hex: "000102030405060708090a0b0c0d0e0f") == AddressDigest(high: 0x0001_0203_0405_0607, low: 0x0809_0A0B_0C0D_0E0F))
        #expect(AddressDigest(high: 0xFFFF_0000_0000_0001, low: 0).hex == "ffff0000000000010000000000000000")
        for text in ["", "0", "000102030405060708090a0b0c0d0e0", "000102030405060708090a0b0c0d0e0f0", "000102030405060708090A0B0C0D0E0F",
                     "g00102030405060708090a0b0c0d0e0f", "0001020304050607 8090a0b0c0d0e0f"] {
            #expect(AddressDigest(hex: text) == nil, "\(text)")
        }
    }

    @Test func aSocketsAddressResolvesAsItsTextDoes() throws {
        let resolver = ClientAddressResolver(trustedProxies: [try #require(IPNetwork("203.0.113.0/24"))])
        let cases: [(peer: String, forwarded: [String])] = [
            ("198.51.100.7", []), ("127.0.0.1", ["10.1.2.3"]), ("203.0.113.5", ["192.0.2.1, 10.0.0.9"]), ("::1", ["2001:db8::5"]),
            ("2001:db8::77", ["10.9.9.9"]), ("::ffff:198.51.100.8", []), ("::ffff:127.0.0.1", ["192.0.2.44"]), ("127.0.0.1", ["not an address"]),
        ]
        for (peer, forwarded) in cases {
            let socket = try SocketAddress(ipAddress: peer, port: 443)
            let fromSocket = ClickOrigin(socketPeer: socket, forwardedFor: forwarded).clientAddress(using: resolver)
            let fromText = resolver.clientAddress(peer: peer, forwardedFor: forwarded)
            #expect(fromSocket == fromText, "\(peer) \(forwarded)")
            #expect(fromSocket != nil)
        }
        #expect(ClickOrigin(socketPeer: nil, forwardedFor: ["192.0.2.9"]).clientAddress(using: resolver) == IPAddress("192.0.2.9"))
        #expect(ClickOrigin(socketPeer: nil, forwardedFor: []).clientAddress(using: ClientAddressResolver(trustLoopback: false)) == nil)
    }
}
#endif
