// IP addresses (see IPNetwork.swift for CIDR blocks and ClientAddressResolver.swift for addresses behind proxies).
//
// Everything here works on the UTF-8 bytes of the input and never calls into the C
// library, so behaviour is identical on every platform and every input is bounded.

/// An IPv4 or IPv6 address, parsed strictly from text.
///
/// Accepted forms: dotted-quad IPv4 (`1.2.3.4`, no leading zeros), any RFC 4291 IPv6
/// text form (`::1`, `2001:db8::1`, `::ffff:1.2.3.4`), an IPv6 address in brackets
/// (`[2001:db8::1]`), and an IPv6 zone id (`fe80::1%eth0`), which is validated and dropped.
/// Anything longer than 64 characters is rejected without being examined.
///
/// Values compare by their bits and family: `::ffff:1.2.3.4` is not equal to `1.2.3.4`;
/// use ``unmapped`` to fold the two together.
package enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt64, UInt64)   // high, low

    /// The longest text ``init(_:)`` examines.
    package static let maximumTextLength = 64

    package init?(_ text: some StringProtocol) {
        guard let bytes = IPText.boundedBytes(text, limit: IPAddress.maximumTextLength),
              let address = IPText.address(bytes[...], allowDecorations: true)
        else { return nil }
        self = address
    }

    /// Canonical text: dotted decimal for IPv4; RFC 5952 for IPv6 (lowercase, no leading
    /// zeros, the longest run of two or more zero groups compressed — the first on a tie —
    /// and IPv4-mapped addresses as `::ffff:1.2.3.4`).
    package var description: String {
        switch self {
        case .v4(let value):
            return IPText.formatV4(value)
        case .v6(let high, let low):
            return IPText.formatV6(high: high, low: low)
        }
    }

    /// `127.0.0.0/8`, `::1`, and `::ffff:127.0.0.0/104`.
    package var isLoopback: Bool {
        switch unmapped {
        case .v4(let value):
            return value >> 24 == 127
        case .v6(let high, let low):
            return high == 0 && low == 1
        }
    }

    /// Whether the address belongs to the public internet: not loopback, private (RFC 1918, unique-local), shared
    /// (carrier-grade NAT), link-local (cloud metadata services live there), multicast, unspecified or reserved.
    /// IPv4 carried in IPv6 (mapped, or NAT64's `64:ff9b::/96`) is judged as the IPv4 address it carries.
    package var isPublic: Bool {
        switch unmapped {
        case .v4(let value):
            let reserved: [(UInt32, UInt32)] = [
                (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16), (0xAC10_0000, 12),
                (0xC000_0000, 24), (0xC0A8_0000, 16), (0xC612_0000, 15), (0xE000_0000, 4), (0xF000_0000, 4),
            ]
            return !reserved.contains { network, bits in value >> (32 - bits) == network >> (32 - bits) }
        case .v6(let high, let low):
            if high == 0x0064_FF9B_0000_0000 && low >> 32 == 0 { return IPAddress.v4(UInt32(truncatingIfNeeded: low)).isPublic }
            if high == 0 { return false }  // ::, ::1, IPv4-compatible and the rest of ::/64
            let top = high >> 48
            if top & 0xFE00 == 0xFC00 { return false }  // fc00::/7 unique-local
            if top & 0xFFC0 == 0xFE80 || top & 0xFFC0 == 0xFEC0 { return false }  // link-local, old site-local
            if top & 0xFF00 == 0xFF00 { return false }  // multicast
            return true
        }
    }

    /// Whether this is an IPv4-mapped IPv6 address (`::ffff:0:0/96`).
    package var isIPv4Mapped: Bool {
        if case .v6(let high, let low) = self {
            return high == 0 && low >> 32 == 0xFFFF
        }
        return false
    }

    /// IPv4-mapped IPv6 addresses become IPv4; everything else unchanged.
    package var unmapped: IPAddress {
        if case .v6(_, let low) = self, isIPv4Mapped {
            return .v4(UInt32(truncatingIfNeeded: low))
        }
        return self
    }

    /// The IPv4-mapped IPv6 form of an IPv4 address; IPv6 addresses are unchanged.
    package var mapped: IPAddress {
        if case .v4(let value) = self {
            return .v6(0, 0xFFFF_0000_0000 | UInt64(value))
        }
        return self
    }

    /// The network prefix used to group devices behind one network: /24 for IPv4, /64 for IPv6,
    /// as a canonical string such as "203.0.113.0/24" or "2001:db8:1:2::/64".
    ///
    /// IPv4-mapped addresses are grouped as the IPv4 address they carry, so a client seen
    /// over a dual-stack socket lands in the same group as over an IPv4 socket.
    package var networkPrefix: String {
        switch unmapped {
        case .v4(let value):
            return "\(IPAddress.v4(value & 0xFFFF_FF00))/24"
        case .v6(let high, _):
            return "\(IPAddress.v6(high, 0))/64"
        }
    }
}
