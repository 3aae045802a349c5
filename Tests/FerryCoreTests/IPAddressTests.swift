import FerryTestSupport
import Testing
@testable import FerryCore

private func ip(_ text: String) -> IPAddress {
    guard let address = IPAddress(text) else {
        Issue.record("test fixture \(text) is not an address")
        return .v4(0)
    }
    return address
}

private func net(_ text: String) -> IPNetwork {
    guard let network = IPNetwork(text) else {
        Issue.record("test fixture \(text) is not a network")
        return IPNetwork(address: .v4(0), prefixLength: 32)!
    }
    return network
}

// MARK: - IPv4 parsing

@Suite("IPAddress IPv4 parsing", .takesTurns)
struct IPv4ParsingTests {
    @Test(arguments: [
        ("0.0.0.0", UInt32(0)),
        ("1.2.3.4", 0x0102_0304),
        ("127.0.0.1", 0x7F00_0001),
        ("10.0.0.0", 0x0A00_0000),
        ("192.168.100.200", 0xC0A8_64C8),
        ("0.1.10.100", 0x0001_0A64),
        ("255.255.255.255", 0xFFFF_FFFF),
    ])
    func valid(text: String, value: UInt32) {
        #expect(IPAddress(text) == .v4(value))
        #expect(IPAddress(text)?.description == text)
    }

    @Test(arguments: [
        "", ".", "...", "1", "1.2", "1.2.3", "1.2.3.4.5",
        "256.1.1.1", "1.2.3.256", "999.999.999.999", "1.2.3.1000", "4294967295",
        "01.2.3.4", "1.02.3.4", "1.2.03.4", "1.2.3.04", "1.2.3.00", "00.0.0.0", "1.2.3.0004",
        "1..2.3", ".1.2.3", "1.2.3.", "1.2.3.4.", "-1.2.3.4", "1.2.3.-1", "+1.2.3.4",
        "1.2.3.a", "0x1.2.3.4", "1.2.3.4a", "a.b.c.d",
        " 1.2.3.4", "1.2.3.4 ", "1 .2.3.4", "1.2.3.4\n", "\t1.2.3.4", "1.2.3.4\0",
        "1.2.3.4/24", "1.2.3.4:80", "[1.2.3.4]", "1.2.3.4%eth0",
        "١.٢.٣.٤", "１.2.3.4", "1,2,3,4",
    ])
    func invalid(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func parsesSubstrings() {
        let text = "x203.0.113.9y"
        #expect(IPAddress(text.dropFirst().dropLast()) == .v4(0xCB00_7109))
    }
}

// MARK: - IPv6 parsing and RFC 5952 printing

@Suite("IPAddress IPv6 parsing", .takesTurns)
struct IPv6ParsingTests {
    @Test(arguments: [
        ("::", "::"),
        ("::1", "::1"),
        ("1::", "1::"),
        ("::0", "::"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("2001:db8::1", "2001:db8::1"),
        ("2001:DB8::1", "2001:db8::1"),
        ("2001:Db8:0:0:0:0:0:1", "2001:db8::1"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
        ("1:0:0:0:2:0:0:3", "1::2:0:0:3"),
        ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ("0:0:1:0:0:0:0:0", "0:0:1::"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("2001:db8::1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
        ("FE80::ABCD:EF01", "fe80::abcd:ef01"),
        ("2001:db8:a::", "2001:db8:a::"),
        ("::ffff:1.2.3.4", "::ffff:1.2.3.4"),
        ("::FFFF:1.2.3.4", "::ffff:1.2.3.4"),
        ("0:0:0:0:0:ffff:1.2.3.4", "::ffff:1.2.3.4"),
        ("::ffff:c000:0280", "::ffff:192.0.2.128"),
        ("::ffff:0.0.0.0", "::ffff:0.0.0.0"),
        ("::1.2.3.4", "::102:304"),
        ("::ffff:0:1.2.3.4", "::ffff:0:102:304"),
        ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
        ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
        ("[2001:db8::1]", "2001:db8::1"),
        ("[::ffff:1.2.3.4]", "::ffff:1.2.3.4"),
        ("[::]", "::"),
        ("fe80::1%eth0", "fe80::1"),
        ("fe80::1%25", "fe80::1"),
        ("fe80::1%en0.100", "fe80::1"),
        ("fe80::1%wlan-0_x~", "fe80::1"),
        ("[fe80::1%en0]", "fe80::1"),
        ("1:2:3:4:5:6:7:8%eth0", "1:2:3:4:5:6:7:8"),
    ])
    func valid(text: String, canonical: String) {
        let address = IPAddress(text)
        #expect(address?.description == canonical)
        // Canonical text parses back to the same value.
        #expect(address.flatMap { IPAddress($0.description) } == address)
    }

    @Test func bitLayout() {
        #expect(IPAddress("2001:db8::1") == .v6(0x2001_0DB8_0000_0000, 1))
        #expect(IPAddress("1:2:3:4:5:6:7:8") == .v6(0x0001_0002_0003_0004, 0x0005_0006_0007_0008))
        #expect(IPAddress("::ffff:1.2.3.4") == .v6(0, 0x0000_FFFF_0102_0304))
        #expect(IPAddress("::") == .v6(0, 0))
    }

    @Test(arguments: [
        ":", ":::", "::::", "1:::2", "1::2::3", "::1::", "1::2:3::4",
        ":1::", "::1:", ":1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:", "1:", ":1",
        "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8",
        "1:2:3:4::5:6:7:8", "1:2:3:4:5:6:7:1.2.3.4", "::1:2:3:4:5:6:1.2.3.4",
        "12345::", "::12345", "00000::1", "g::1", "2001:db8::x", "2001:db8:::1",
        "::1.2.3", "::01.2.3.4", "::256.1.1.1", "::ffff:1.2.3.4.5", "::1.2.3.4:1",
        "1.2.3.4::", "1.2.3.4::1", "::1.2.3.4.", "::ffff:1.2.3.04",
        "[::1", "::1]", "[[::1]]", "[::1]:80", "[]", "[", "]", "[:]",
        "fe80::1%", "%eth0", "fe80::1%eth 0", "fe80::1%eth0%1", "fe80::1%é", "[fe80::1]%eth0",
        "::1 ", " ::1", ":: 1", "2001:db8::1\n", "2001:db8::1/64", "2001:db8::-1",
        "::+1", "::0x1", "2001:db8::1:",
    ])
    func invalid(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func lengthLimit() {
        // Exactly 64 characters: accepted.
        let zone = String(repeating: "z", count: 64 - "[fe80::1%]".count)
        let atLimit = "[fe80::1%\(zone)]"
        #expect(atLimit.utf8.count == 64)
        #expect(IPAddress(atLimit) == IPAddress("fe80::1"))
        // 65 characters: rejected, even though it would otherwise be valid.
        #expect(IPAddress("[fe80::1%\(zone)z]") == nil)
        #expect(IPAddress(String(repeating: "0", count: 10_000) + "::1") == nil)
        #expect(IPAddress(String(repeating: "1", count: 1_000_000)) == nil)
    }

    @Test func equalValuesHashAlike() {
        let set: Set<IPAddress> = [ip("2001:DB8::1"), ip("2001:db8:0::1"), ip("2001:0db8:0:0:0:0:0:1"), ip("[2001:db8::1]")]
        #expect(set.count == 1)
        // Family is part of the value: the mapped form is a different value.
        #expect(ip("::ffff:1.2.3.4") != ip("1.2.3.4"))
    }
}

// MARK: - Properties

@Suite("IPAddress properties", .takesTurns)
struct IPAddressPropertyTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("127.0.0.0", true), ("127.255.255.255", true), ("127.1.2.3", true),
        ("::1", true), ("[::1]", true), ("::ffff:127.0.0.1", true), ("::ffff:127.9.9.9", true),
        ("126.255.255.255", false), ("128.0.0.0", false), ("0.0.0.0", false), ("10.0.0.1", false),
        ("::", false), ("::2", false), ("1::1", false), ("fe80::1", false),
        ("::ffff:128.0.0.1", false), ("::127.0.0.1", false), ("::1:0:0:1", false),
    ])
    func loopback(text: String, expected: Bool) {
        #expect(ip(text).isLoopback == expected)
    }

    @Test func unmapping() {
        #expect(ip("::ffff:1.2.3.4").unmapped == .v4(0x0102_0304))
        #expect(ip("::ffff:0.0.0.0").unmapped == .v4(0))
        #expect(ip("::1.2.3.4").unmapped == ip("::1.2.3.4"))
        #expect(ip("::ffff:0:1.2.3.4").unmapped == ip("::ffff:0:1.2.3.4"))
        #expect(ip("1.2.3.4").unmapped == ip("1.2.3.4"))
        #expect(ip("2001:db8::1").unmapped == ip("2001:db8::1"))
        #expect(ip("1.2.3.4").mapped == ip("::ffff:1.2.3.4"))
        #expect(ip("1.2.3.4").mapped.unmapped == ip("1.2.3.4"))
        #expect(ip("::ffff:1.2.3.4").isIPv4Mapped)
        #expect(!ip("1.2.3.4").isIPv4Mapped)
        #expect(!ip("::1.2.3.4").isIPv4Mapped)
    }

    @Test(arguments: [
        ("203.0.113.77", "203.0.113.0/24"),
        ("203.0.113.0", "203.0.113.0/24"),
        ("10.1.2.255", "10.1.2.0/24"),
        ("0.0.0.0", "0.0.0.0/24"),
        ("255.255.255.255", "255.255.255.0/24"),
        ("::ffff:203.0.113.9", "203.0.113.0/24"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::", "2001:db8:1:2::/64"),
        ("2001:db8::1", "2001:db8::/64"),
        ("2001:db8:0:0:ffff::1", "2001:db8::/64"),
        ("2001:DB8:AAAA:BBBB:CCCC::", "2001:db8:aaaa:bbbb::/64"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4::/64"),
        ("::1", "::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::1.2.3.4", "::/64"),
    ])
    func networkPrefix(text: String, prefix: String) {
        #expect(ip(text).networkPrefix == prefix)
        // The prefix is itself a valid network containing the address.
        #expect(IPNetwork(prefix).map { $0.contains(ip(text)) } == true)
    }

    @Test func networkPrefixGroupsDevices() {
        #expect(ip("198.51.100.1").networkPrefix == ip("198.51.100.254").networkPrefix)
        #expect(ip("198.51.100.1").networkPrefix != ip("198.51.101.1").networkPrefix)
        #expect(ip("198.51.100.1").networkPrefix == ip("::ffff:198.51.100.2").networkPrefix)
        #expect(ip("2001:db8:5:6:aaaa::1").networkPrefix == ip("2001:db8:5:6:bbbb::2").networkPrefix)
        #expect(ip("2001:db8:5:6::1").networkPrefix != ip("2001:db8:5:7::1").networkPrefix)
    }
}

// MARK: - IPNetwork

@Suite("IPNetwork", .takesTurns)
struct IPNetworkTests {
    @Test(arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("10.1.2.3/8", "10.0.0.0/8"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("203.0.113.9/0", "0.0.0.0/0"),
        ("1.2.3.4", "1.2.3.4/32"),
        ("1.2.3.4/32", "1.2.3.4/32"),
        ("192.168.1.129/25", "192.168.1.128/25"),
        ("172.31.255.255/12", "172.16.0.0/12"),
        ("255.255.255.255/1", "128.0.0.0/1"),
        ("255.255.255.255/31", "255.255.255.254/31"),
        ("2001:db8::/32", "2001:db8::/32"),
        ("2001:DB8:ffff::1/32", "2001:db8::/32"),
        ("2001:db8::/48", "2001:db8::/48"),
        ("::/0", "::/0"),
        ("ffff::1/0", "::/0"),
        ("::1", "::1/128"),
        ("2001:db8::1/128", "2001:db8::1/128"),
        ("2001:db8:1:2:3:4:5:6/64", "2001:db8:1:2::/64"),
        ("2001:db8::ffff/127", "2001:db8::fffe/127"),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/65", "ffff:ffff:ffff:ffff:8000::/65"),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/63", "ffff:ffff:ffff:fffe::/63"),
        ("::ffff:10.1.2.3/104", "::ffff:10.0.0.0/104"),
        ("::ffff:0:0/96", "::ffff:0.0.0.0/96"),
    ])
    func valid(text: String, canonical: String) {
        let network = IPNetwork(text)
        #expect(network?.description == canonical)
        #expect(network.flatMap { IPNetwork($0.description) } == network)
    }

    @Test(arguments: [
        "", "/", "/8", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/08",
        "10.0.0.0/008", "10.0.0.0/8/8", "10.0.0.0//8", "10.0.0.0/a", "10.0.0.0/8a", "10.0.0.0/1000",
        "::/129", "::/00", "2001:db8::/1000", "2001:db8::/", "2001:db8::/-0",
        "10.0.0.0 /8", "10.0.0.0/ 8", " 10.0.0.0/8", "10.0.0.0/8 ",
        "[2001:db8::]/32", "[2001:db8::1]", "fe80::%eth0/64", "fe80::1%eth0",
        "garbage", "10.0.0/8", "01.0.0.0/8", "10.0.0.0.0/8", "2001:db8:::/32",
    ])
    func invalid(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test func prefixLengthRangeFromValues() {
        #expect(IPNetwork(address: ip("1.2.3.4"), prefixLength: 33) == nil)
        #expect(IPNetwork(address: ip("1.2.3.4"), prefixLength: -1) == nil)
        #expect(IPNetwork(address: ip("::1"), prefixLength: 129) == nil)
        #expect(IPNetwork(address: ip("1.2.3.4"), prefixLength: 16)?.description == "1.2.0.0/16")
        #expect(IPNetwork(address: ip("1.2.3.4"), prefixLength: 16)?.prefixLength == 16)
        #expect(IPNetwork(address: ip("1.2.3.4"), prefixLength: 16)?.address == ip("1.2.0.0"))
    }

    @Test func hostBitsDoNotAffectEquality() {
        #expect(net("10.1.2.3/8") == net("10.0.0.0/8"))
        #expect(net("2001:db8::1/32") == net("2001:db8::/32"))
        #expect(net("10.0.0.0/8") != net("10.0.0.0/9"))
    }

    @Test(arguments: [
        // /0
        ("0.0.0.0/0", "0.0.0.0", true),
        ("0.0.0.0/0", "255.255.255.255", true),
        ("0.0.0.0/0", "::ffff:1.2.3.4", true),
        ("0.0.0.0/0", "::", false),
        ("0.0.0.0/0", "::1", false),
        ("0.0.0.0/0", "2001:db8::1", false),
        ("0.0.0.0/0", "::1.2.3.4", false),
        ("::/0", "::", true),
        ("::/0", "2001:db8::1", true),
        ("::/0", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ("::/0", "1.2.3.4", true),
        // /32 and /128
        ("1.2.3.4/32", "1.2.3.4", true),
        ("1.2.3.4/32", "::ffff:1.2.3.4", true),
        ("1.2.3.4/32", "1.2.3.5", false),
        ("1.2.3.4/32", "1.2.3.3", false),
        ("1.2.3.4/32", "::1.2.3.4", false),
        ("1.2.3.4", "1.2.3.4", true),
        ("2001:db8::1/128", "2001:db8::1", true),
        ("2001:db8::1/128", "2001:db8::2", false),
        ("2001:db8::1/128", "2001:db8::", false),
        ("2001:db8::1/128", "2001:db8::1:0:0:1", false),
        ("::1", "::1", true),
        ("::1", "127.0.0.1", false),
        // IPv4 boundaries and mapped forms
        ("10.0.0.0/8", "10.0.0.0", true),
        ("10.0.0.0/8", "10.255.255.255", true),
        ("10.0.0.0/8", "11.0.0.0", false),
        ("10.0.0.0/8", "9.255.255.255", false),
        ("10.0.0.0/8", "::ffff:10.9.8.7", true),
        ("10.0.0.0/8", "::ffff:11.9.8.7", false),
        ("10.0.0.0/8", "::10.9.8.7", false),
        ("10.0.0.0/8", "a00::", false),
        ("192.168.1.128/25", "192.168.1.127", false),
        ("192.168.1.128/25", "192.168.1.128", true),
        ("192.168.1.128/25", "192.168.1.255", true),
        ("128.0.0.0/1", "127.255.255.255", false),
        ("128.0.0.0/1", "128.0.0.0", true),
        // IPv6 boundaries
        ("2001:db8::/32", "2001:db8::", true),
        ("2001:db8::/32", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ("2001:db8::/32", "2001:db9::", false),
        ("2001:db8::/32", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false),
        ("2001:db8::/32", "32.1.13.184", false),
        ("2001:db8:1:2::/64", "2001:db8:1:2:ffff:ffff:ffff:ffff", true),
        ("2001:db8:1:2::/64", "2001:db8:1:3::", false),
        ("2001:db8::/65", "2001:db8::7fff:ffff:ffff:ffff", true),
        ("2001:db8::/65", "2001:db8::8000:0:0:0", false),
        ("2001:db8::/127", "2001:db8::1", true),
        ("2001:db8::/127", "2001:db8::2", false),
        ("fe80::/10", "febf:ffff::1", true),
        ("fe80::/10", "fec0::1", false),
        ("fe80::/10", "fe80::1%eth0", true),
        // IPv6 networks over the mapped range contain plain IPv4 addresses
        ("::ffff:0:0/96", "1.2.3.4", true),
        ("::ffff:0:0/96", "::ffff:1.2.3.4", true),
        ("::ffff:0:0/96", "::1", false),
        ("::ffff:10.0.0.0/104", "10.1.2.3", true),
        ("::ffff:10.0.0.0/104", "::ffff:10.1.2.3", true),
        ("::ffff:10.0.0.0/104", "11.0.0.0", false),
    ])
    func containment(network: String, address: String, expected: Bool) {
        #expect(net(network).contains(ip(address)) == expected)
    }

    @Test func parseListAcceptsConfigText() throws {
        let networks = try IPNetwork.parseList("10.0.0.0/8, 192.168.1.7 ,2001:db8::/32,\t::1\n")
        #expect(networks == [net("10.0.0.0/8"), net("192.168.1.7/32"), net("2001:db8::/32"), net("::1/128")])
        #expect(try IPNetwork.parseList("") == [])
        #expect(try IPNetwork.parseList("   ") == [])
        #expect(try IPNetwork.parseList(" , ,") == [])
        #expect(try IPNetwork.parseList("10.0.0.0/8,") == [net("10.0.0.0/8")])
        #expect(try IPNetwork.parseList("10.1.2.3/8") == [net("10.0.0.0/8")])
    }

    @Test(arguments: [
        ("10.0.0.0/8, nope, ::1", "nope"),
        ("10.0.0.0/33", "10.0.0.0/33"),
        ("10.0.0.0/8,  01.2.3.4  ", "01.2.3.4"),
        ("::1, 2001:db8::/129", "2001:db8::/129"),
        ("10.0.0.0/8;192.168.0.0/16", "10.0.0.0/8;192.168.0.0/16"),
        ("fe80::1%eth0", "fe80::1%eth0"),
    ])
    func parseListNamesBadEntry(text: String, badEntry: String) {
        let error = #expect(throws: IPNetworkListError.self) {
            try IPNetwork.parseList(text)
        }
        #expect(error?.entry == badEntry)
        #expect(error?.message.contains("\"\(badEntry)\"") == true)
        #expect(error?.description == error?.message)
    }

    @Test func parseListErrorTruncatesHugeEntries() {
        let huge = String(repeating: "x", count: 10_000)
        let error = #expect(throws: IPNetworkListError.self) {
            try IPNetwork.parseList("10.0.0.0/8,\(huge)")
        }
        #expect(error?.entry == huge)
        #expect((error?.message.count ?? .max) < 300)
    }
}

// MARK: - ClientAddressResolver

@Suite("ClientAddressResolver", .takesTurns)
struct ClientAddressResolverTests {
    let loopbackOnly = ClientAddressResolver()
    let tenNet = ClientAddressResolver(trustedProxies: [IPNetwork("10.0.0.0/8")!])

    @Test func untrustedPeerIgnoresSpoofedHeader() {
        #expect(loopbackOnly.clientAddress(peer: "203.0.113.5", forwardedFor: ["1.1.1.1"]) == ip("203.0.113.5"))
        #expect(loopbackOnly.clientAddress(peer: "203.0.113.5", forwardedFor: ["127.0.0.1"]) == ip("203.0.113.5"))
        #expect(tenNet.clientAddress(peer: "203.0.113.5", forwardedFor: ["10.0.0.1, 1.1.1.1", "10.0.0.2"]) == ip("203.0.113.5"))
        #expect(loopbackOnly.clientAddress(peer: "2001:db8::5", forwardedFor: ["1.1.1.1"]) == ip("2001:db8::5"))
        #expect(loopbackOnly.clientAddress(peer: "203.0.113.5", forwardedFor: []) == ip("203.0.113.5"))
    }

    @Test func peerForms() {
        #expect(loopbackOnly.clientAddress(peer: "203.0.113.5:44321", forwardedFor: ["1.1.1.1"]) == ip("203.0.113.5"))
        #expect(loopbackOnly.clientAddress(peer: "[2001:db8::5]:443", forwardedFor: ["1.1.1.1"]) == ip("2001:db8::5"))
        #expect(loopbackOnly.clientAddress(peer: "[2001:db8::5]", forwardedFor: []) == ip("2001:db8::5"))
        // Dual-stack sockets report IPv4 peers in mapped form; the result is plain IPv4.
        #expect(loopbackOnly.clientAddress(peer: "::ffff:203.0.113.5", forwardedFor: []) == .v4(0xCB00_7105))
        #expect(loopbackOnly.clientAddress(peer: "::ffff:127.0.0.1", forwardedFor: ["198.51.100.7"]) == ip("198.51.100.7"))
        #expect(tenNet.clientAddress(peer: "::ffff:10.0.0.2", forwardedFor: ["198.51.100.7"]) == ip("198.51.100.7"))
        #expect(loopbackOnly.clientAddress(peer: "[::1]:8080", forwardedFor: ["198.51.100.7"]) == ip("198.51.100.7"))
    }

    @Test func unparsablePeerYieldsNothing() {
        #expect(loopbackOnly.clientAddress(peer: "garbage", forwardedFor: ["198.51.100.7"]) == nil)
        #expect(loopbackOnly.clientAddress(peer: "unix:/run/ferry.sock", forwardedFor: ["198.51.100.7"]) == nil)
        #expect(loopbackOnly.clientAddress(peer: "", forwardedFor: ["198.51.100.7"]) == nil)
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1:99999", forwardedFor: ["198.51.100.7"]) == nil)
    }

    @Test func missingPeerIsLocal() {
        #expect(loopbackOnly.clientAddress(peer: nil, forwardedFor: ["6.6.6.6, 198.51.100.7"]) == ip("198.51.100.7"))
        #expect(loopbackOnly.clientAddress(peer: nil, forwardedFor: []) == nil)
        #expect(loopbackOnly.clientAddress(peer: nil, forwardedFor: ["garbage"]) == nil)
        #expect(loopbackOnly.clientAddress(peer: nil, forwardedFor: ["198.51.100.7, 127.0.0.1"]) == ip("198.51.100.7"))
        let noLoopback = ClientAddressResolver(trustedProxies: [IPNetwork("10.0.0.0/8")!], trustLoopback: false)
        #expect(noLoopback.clientAddress(peer: nil, forwardedFor: ["198.51.100.7"]) == nil)
    }

    @Test func loopbackProxyWithChain() {
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: []) == ip("127.0.0.1"))
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: ["198.51.100.7"]) == ip("198.51.100.7"))
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: ["6.6.6.6, 198.51.100.7"]) == ip("198.51.100.7"))
        #expect(loopbackOnly.clientAddress(peer: "::1", forwardedFor: ["198.51.100.7, 127.0.0.1"]) == ip("198.51.100.7"))
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: ["198.51.100.7, ::1, 127.0.0.2"]) == ip("198.51.100.7"))
        // Only loopback is trusted: a private address in the chain is the client.
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: ["198.51.100.7, 10.0.0.9"]) == ip("10.0.0.9"))
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: ["2001:db8::42"]) == ip("2001:db8::42"))
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: ["::ffff:198.51.100.7"]) == .v4(0xC633_6407))
    }

    @Test func loopbackTrustCanBeDisabled() {
        let resolver = ClientAddressResolver(trustLoopback: false)
        #expect(resolver.clientAddress(peer: "127.0.0.1", forwardedFor: ["6.6.6.6"]) == ip("127.0.0.1"))
        #expect(resolver.clientAddress(peer: "::1", forwardedFor: ["6.6.6.6"]) == ip("::1"))
        #expect(!resolver.isTrusted(ip("127.0.0.1")))
        #expect(loopbackOnly.isTrusted(ip("127.0.0.1")))
        #expect(!loopbackOnly.isTrusted(ip("10.0.0.1")))
    }

    @Test func customTrustedNetworkChain() {
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["6.6.6.6, 198.51.100.7, 10.0.0.9"]) == ip("198.51.100.7"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["6.6.6.6, 198.51.100.7", "10.0.0.9"]) == ip("198.51.100.7"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.7", "10.1.1.1, 10.0.0.9"]) == ip("198.51.100.7"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.7, 127.0.0.1, 10.0.0.9"]) == ip("198.51.100.7"))
        // Every entry trusted: the leftmost one is the client.
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["10.0.0.3, 10.0.0.4"]) == ip("10.0.0.3"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["10.0.0.3", "10.0.0.4"]) == ip("10.0.0.3"))
        // No header: the trusted peer itself.
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: []) == ip("10.0.0.2"))

        let v6 = ClientAddressResolver(trustedProxies: [IPNetwork("2001:db8:ffff::/48")!, IPNetwork("192.0.2.0/24")!])
        #expect(v6.clientAddress(peer: "2001:db8:ffff::1", forwardedFor: ["2001:db8:1::42, 192.0.2.8, 2001:db8:ffff::2"]) == ip("2001:db8:1::42"))
        #expect(v6.clientAddress(peer: "192.0.2.1", forwardedFor: ["198.51.100.7, 2001:db8:ffff::9"]) == ip("198.51.100.7"))
        #expect(v6.clientAddress(peer: "2001:db8:fffe::1", forwardedFor: ["198.51.100.7"]) == ip("2001:db8:fffe::1"))
    }

    @Test func garbageStopsTheWalk() {
        // Unparsable entry: the last trusted hop seen is the answer.
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.7, garbage, 10.0.0.9"]) == ip("10.0.0.9"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["6.6.6.6, garbage"]) == ip("10.0.0.2"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.7", "garbage", "10.0.0.9"]) == ip("10.0.0.9"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.7, , 10.0.0.9"]) == ip("10.0.0.9"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: [""]) == ip("10.0.0.2"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.7,"]) == ip("10.0.0.2"))
        for entry in ["unknown", "01.2.3.4", "1.2.3", "_hidden", "198.51.100.7 1.1.1.1", "[1.2.3.4]:80", "fe80::1%", "1.2.3.4%eth0"] {
            #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.7, \(entry)"]) == ip("10.0.0.2"), "\(entry)")
        }
        // Garbage to the left of the client is never reached.
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["garbage, 198.51.100.7, 10.0.0.9"]) == ip("198.51.100.7"))
    }

    @Test(arguments: [
        ("198.51.100.7:5678", "198.51.100.7"),
        ("198.51.100.7:0", "198.51.100.7"),
        ("198.51.100.7:65535", "198.51.100.7"),
        ("[2001:db8::1]:443", "2001:db8::1"),
        ("[2001:db8::1]", "2001:db8::1"),
        ("2001:db8::1", "2001:db8::1"),
        ("[fe80::1%eth0]:80", "fe80::1"),
        ("fe80::1%eth0", "fe80::1"),
        ("[::ffff:198.51.100.7]:80", "198.51.100.7"),
        ("  198.51.100.7  ", "198.51.100.7"),
        ("\t[2001:db8::1]:443 ", "2001:db8::1"),
    ])
    func entriesWithPorts(entry: String, client: String) {
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["6.6.6.6, \(entry), 10.0.0.9:1234"]) == ip(client))
    }

    @Test(arguments: [
        "198.51.100.7:", "198.51.100.7:65536", "198.51.100.7:123456", "198.51.100.7:http", "198.51.100.7:-1",
        "198.51.100.7:80:80", "[2001:db8::1]:", "[2001:db8::1]x", "[2001:db8::1]:99999", "[2001:db8::1", "2001:db8::1]:80",
    ])
    func malformedPortsAreGarbage(entry: String) {
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["6.6.6.6, \(entry), 10.0.0.9"]) == ip("10.0.0.9"))
    }

    @Test func hugeHeaderValues() {
        let huge = String(repeating: "6.6.6.6, ", count: 600) + "198.51.100.7"
        #expect(huge.utf8.count > 4096)
        // An oversized value is never parsed and nothing to its left is believed.
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: [huge]) == ip("127.0.0.1"))
        #expect(tenNet.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.7", huge, "10.0.0.9"]) == ip("10.0.0.9"))
        // An oversized value to the left of the client does not matter.
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: [huge, "198.51.100.8"]) == ip("198.51.100.8"))

        let tail = ", 198.51.100.7"
        let atLimit = String(repeating: " ", count: 4096 - tail.utf8.count) + tail
        #expect(atLimit.utf8.count == 4096)
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: [atLimit]) == ip("198.51.100.7"))
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: [" " + atLimit]) == ip("127.0.0.1"))

        // Huge single entries inside an acceptable value are rejected as addresses.
        let longEntry = String(repeating: "1", count: 3000)
        #expect(loopbackOnly.clientAddress(peer: "127.0.0.1", forwardedFor: [longEntry]) == ip("127.0.0.1"))
    }

    @Test func entryLimit() {
        let trustedHops = (1...40).map { "10.0.0.\($0)" }
        // The client is the 32nd entry from the right: found.
        let within = ["198.51.100.7"] + trustedHops.suffix(31)
        #expect(within.count == 32)
        #expect(tenNet.clientAddress(peer: "10.0.0.254", forwardedFor: [within.joined(separator: ", ")]) == ip("198.51.100.7"))
        #expect(tenNet.clientAddress(peer: "10.0.0.254", forwardedFor: within) == ip("198.51.100.7"))
        // The client is the 33rd: not examined; the leftmost examined trusted hop is used.
        let beyond = ["198.51.100.7"] + trustedHops.suffix(32)
        #expect(tenNet.clientAddress(peer: "10.0.0.254", forwardedFor: [beyond.joined(separator: ", ")]) == ip("10.0.0.9"))
        #expect(tenNet.clientAddress(peer: "10.0.0.254", forwardedFor: beyond) == ip("10.0.0.9"))
        // Many header values are bounded the same way.
        let many = ["198.51.100.7"] + Array(repeating: "10.0.0.1, 10.0.0.2", count: 100_000)
        #expect(tenNet.clientAddress(peer: "10.0.0.254", forwardedFor: many) == ip("10.0.0.1"))
    }
}

@Suite("Public addresses", .takesTurns)
struct PublicAddressTests {
    @Test func internalRangesAreNotPublic() {
        for text in ["0.0.0.0", "10.0.0.1", "100.64.0.1", "100.127.255.255", "127.0.0.1", "169.254.169.254", "172.16.0.1", "172.31.255.255",
                     "192.0.0.8", "192.168.0.1", "198.18.0.1", "224.0.0.1", "255.255.255.255", "::", "::1", "::ffff:10.0.0.1", "fc00::1", "fd12::1",
                     "fe80::1", "fec0::1", "ff02::1", "64:ff9b::a9fe:a9fe"] {
            #expect(IPAddress(text)?.isPublic == false, "\(text)")
        }
        for text in ["1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1", "192.0.1.1", "198.20.0.1",
                     "2606:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808"] {
            #expect(IPAddress(text)?.isPublic == true, "\(text)")
        }
    }

    @Test func numericHostsAreReadAsTheResolverReadsThem() {
        #expect(NumericHost.addresses("127.1") == [IPAddress("127.0.0.1")!])
        #expect(NumericHost.addresses("2130706433") == [IPAddress("127.0.0.1")!])
        #expect(NumericHost.addresses("0x7f.0.0.1") == [IPAddress("127.0.0.1")!])
        #expect(NumericHost.addresses("::1") == [IPAddress("::1")!])
        #expect(NumericHost.addresses("hooks.example.com") == nil)
        #expect(NumericHost.addresses("") == nil)
        #expect(WebhookRules.destinationRefusal(url: "https://hooks.example.com/x") == nil)
        #expect(WebhookRules.destinationRefusal(url: "http://0177.0.0.1/x") != nil)
    }
}
