// CIDR networks and lists of them, as trusted proxies and allowed clients are written.

/// A CIDR block such as "10.0.0.0/8" or "2001:db8::/32"; a bare address means a single host.
///
/// Host bits are allowed in the text and cleared, so "10.1.2.3/8" is "10.0.0.0/8".
/// Brackets and zone ids are not accepted in network text, nor are prefix lengths with
/// leading zeros ("/08").
package struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network address, with every host bit cleared.
    package let address: IPAddress
    /// 0...32 for IPv4, 0...128 for IPv6.
    package let prefixLength: Int

    /// A network from an address and a prefix length; host bits of `address` are cleared.
    /// Returns nil when the prefix length is out of range for the address family.
    package init?(address: IPAddress, prefixLength: Int) {
        switch address {
        case .v4(let value):
            guard (0...32).contains(prefixLength) else { return nil }
            self.address = .v4(value & IPNetwork.mask32(prefixLength))
        case .v6(let high, let low):
            guard (0...128).contains(prefixLength) else { return nil }
            let mask = IPNetwork.mask128(prefixLength)
            self.address = .v6(high & mask.high, low & mask.low)
        }
        self.prefixLength = prefixLength
    }

    package init?(_ text: some StringProtocol) {
        // An address plus "/128".
        guard let bytes = IPText.boundedBytes(text, limit: IPAddress.maximumTextLength + 4) else {
            return nil
        }
        let parts = bytes.split(separator: IPText.slash, maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPText.address(parts[0], allowDecorations: false) else { return nil }
        let prefixLength: Int
        if parts.count == 2 {
            guard let length = IPText.prefixLength(parts[1]) else { return nil }
            prefixLength = length
        } else {
            switch address {
            case .v4: prefixLength = 32
            case .v6: prefixLength = 128
            }
        }
        self.init(address: address, prefixLength: prefixLength)
    }

    /// Whether `candidate` lies in this network.
    ///
    /// IPv4 and IPv4-mapped IPv6 addresses are treated as the same address: an IPv4 network
    /// contains the mapped form of its addresses, and an IPv6 network contains an IPv4 address
    /// when it contains that address's mapped form (so `::ffff:0:0/96` and `::/0` contain every
    /// IPv4 address).
    package func contains(_ candidate: IPAddress) -> Bool {
        switch (address, candidate) {
        case (.v4(let network), .v4(let value)):
            return value & IPNetwork.mask32(prefixLength) == network
        case (.v4, .v6):
            guard case .v4 = candidate.unmapped else { return false }
            return contains(candidate.unmapped)
        case (.v6(let networkHigh, let networkLow), .v6(let high, let low)):
            let mask = IPNetwork.mask128(prefixLength)
            return high & mask.high == networkHigh && low & mask.low == networkLow
        case (.v6, .v4):
            return contains(candidate.mapped)
        }
    }

    /// "address/prefix" with the canonical address text, e.g. "2001:db8::/32".
    package var description: String {
        "\(address)/\(prefixLength)"
    }

    /// Parses a comma-separated list of networks from configuration, such as
    /// `"10.0.0.0/8, 192.168.1.7, 2001:db8::/32"`. Whitespace around entries and empty
    /// entries (a trailing comma, an empty setting) are ignored.
    /// - Throws: ``IPNetworkListError`` naming the first entry that is not a network.
    package static func parseList(_ text: String) throws -> [IPNetwork] {
        var networks: [IPNetwork] = []
        for rawEntry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = IPText.trimmingWhitespace(rawEntry)
            if entry.isEmpty { continue }
            guard let network = IPNetwork(entry) else {
                throw IPNetworkListError(entry: String(entry))
            }
            networks.append(network)
        }
        return networks
    }

    static func mask32(_ prefixLength: Int) -> UInt32 {
        prefixLength == 0 ? 0 : UInt32.max << UInt32(32 - prefixLength)
    }

    static func mask128(_ prefixLength: Int) -> (high: UInt64, low: UInt64) {
        if prefixLength <= 64 {
            return (prefixLength == 0 ? 0 : UInt64.max << UInt64(64 - prefixLength), 0)
        }
        return (UInt64.max, UInt64.max << UInt64(128 - prefixLength))
    }
}

/// A network list entry that is not an address or CIDR block.
package struct IPNetworkListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending entry, trimmed of surrounding whitespace.
    package let entry: String
    /// A human-readable explanation naming the entry.
    package let message: String

    package init(entry: String) {
        self.entry = entry
        let shown = entry.count > 80 ? String(entry.prefix(80)) + "…" : entry
        self.message = "invalid network \"\(shown)\": expected an IP address or a CIDR block such as 10.0.0.0/8 or 2001:db8::/32"
    }

    package var description: String { message }
}
