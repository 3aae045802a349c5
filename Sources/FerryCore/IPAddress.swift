// IP address parsing, CIDR matching and client-address resolution behind reverse proxies.
//
// Everything here works on the UTF-8 bytes of the input and never calls into the C
// library, so behaviour is identical on every platform and every input is bounded.

// MARK: - IPAddress

/// An IPv4 or IPv6 address, parsed strictly from text.
///
/// Accepted forms: dotted-quad IPv4 (`1.2.3.4`, no leading zeros), any RFC 4291 IPv6
/// text form (`::1`, `2001:db8::1`, `::ffff:1.2.3.4`), an IPv6 address in brackets
/// (`[2001:db8::1]`), and an IPv6 zone id (`fe80::1%eth0`), which is validated and dropped.
/// Anything longer than 64 characters is rejected without being examined.
///
/// Values compare by their bits and family: `::ffff:1.2.3.4` is not equal to `1.2.3.4`;
/// use ``unmapped`` to fold the two together.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt64, UInt64)   // high, low

    /// The longest text ``init(_:)`` examines.
    public static let maximumTextLength = 64

    public init?(_ text: some StringProtocol) {
        guard let bytes = IPText.boundedBytes(text, limit: IPAddress.maximumTextLength),
              let address = IPText.address(bytes[...], allowDecorations: true)
        else { return nil }
        self = address
    }

    /// Canonical text: dotted decimal for IPv4; RFC 5952 for IPv6 (lowercase, no leading
    /// zeros, the longest run of two or more zero groups compressed — the first on a tie —
    /// and IPv4-mapped addresses as `::ffff:1.2.3.4`).
    public var description: String {
        switch self {
        case .v4(let value):
            return IPText.formatV4(value)
        case .v6(let high, let low):
            return IPText.formatV6(high: high, low: low)
        }
    }

    /// `127.0.0.0/8`, `::1`, and `::ffff:127.0.0.0/104`.
    public var isLoopback: Bool {
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
    public var isPublic: Bool {
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
    public var isIPv4Mapped: Bool {
        if case .v6(let high, let low) = self {
            return high == 0 && low >> 32 == 0xFFFF
        }
        return false
    }

    /// IPv4-mapped IPv6 addresses become IPv4; everything else unchanged.
    public var unmapped: IPAddress {
        if case .v6(_, let low) = self, isIPv4Mapped {
            return .v4(UInt32(truncatingIfNeeded: low))
        }
        return self
    }

    /// The IPv4-mapped IPv6 form of an IPv4 address; IPv6 addresses are unchanged.
    public var mapped: IPAddress {
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
    public var networkPrefix: String {
        switch unmapped {
        case .v4(let value):
            return "\(IPAddress.v4(value & 0xFFFF_FF00))/24"
        case .v6(let high, _):
            return "\(IPAddress.v6(high, 0))/64"
        }
    }
}

// MARK: - IPNetwork

/// A CIDR block such as "10.0.0.0/8" or "2001:db8::/32"; a bare address means a single host.
///
/// Host bits are allowed in the text and cleared, so "10.1.2.3/8" is "10.0.0.0/8".
/// Brackets and zone ids are not accepted in network text, nor are prefix lengths with
/// leading zeros ("/08").
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network address, with every host bit cleared.
    public let address: IPAddress
    /// 0...32 for IPv4, 0...128 for IPv6.
    public let prefixLength: Int

    /// A network from an address and a prefix length; host bits of `address` are cleared.
    /// Returns nil when the prefix length is out of range for the address family.
    public init?(address: IPAddress, prefixLength: Int) {
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

    public init?(_ text: some StringProtocol) {
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
    public func contains(_ candidate: IPAddress) -> Bool {
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
    public var description: String {
        "\(address)/\(prefixLength)"
    }

    /// Parses a comma-separated list of networks from configuration, such as
    /// `"10.0.0.0/8, 192.168.1.7, 2001:db8::/32"`. Whitespace around entries and empty
    /// entries (a trailing comma, an empty setting) are ignored.
    /// - Throws: ``IPNetworkListError`` naming the first entry that is not a network.
    public static func parseList(_ text: String) throws -> [IPNetwork] {
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
public struct IPNetworkListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending entry, trimmed of surrounding whitespace.
    public let entry: String
    /// A human-readable explanation naming the entry.
    public let message: String

    public init(entry: String) {
        self.entry = entry
        let shown = entry.count > 80 ? String(entry.prefix(80)) + "…" : entry
        self.message = "invalid network \"\(shown)\": expected an IP address or a CIDR block such as 10.0.0.0/8 or 2001:db8::/32"
    }

    public var description: String { message }
}

// MARK: - ClientAddressResolver

/// Decides the client address of a request that may have passed through reverse proxies.
///
/// The socket peer is the client unless it is a trusted proxy. Behind a trusted proxy the
/// X-Forwarded-For entries are walked from right (nearest hop) to left, skipping trusted
/// proxies; the first untrusted entry is the client. The walk never moves past something it
/// cannot verify: an unparsable entry, an oversized header value, or the entry limit ends the
/// walk at the last trusted hop seen. The returned address is always ``IPAddress/unmapped``.
public struct ClientAddressResolver: Sendable {
    /// The most X-Forwarded-For entries examined per request.
    public static let maximumEntries = 32
    /// Header values longer than this many bytes are not parsed.
    public static let maximumHeaderValueLength = 4096

    public let trustedProxies: [IPNetwork]
    public let trustLoopback: Bool

    /// `trustedProxies`: networks whose X-Forwarded-For we believe. Loopback is trusted by default (`trustLoopback: true`).
    public init(trustedProxies: [IPNetwork] = [], trustLoopback: Bool = true) {
        self.trustedProxies = trustedProxies
        self.trustLoopback = trustLoopback
    }

    /// Whether X-Forwarded-For entries added by `address` are believed.
    public func isTrusted(_ address: IPAddress) -> Bool {
        if trustLoopback && address.isLoopback { return true }
        return trustedProxies.contains { $0.contains(address) }
    }

    /// `peer`: the socket peer address text (may be nil, e.g. unix socket); `forwardedFor`: every X-Forwarded-For header value in order (each may hold a comma-separated list).
    ///
    /// The peer and each entry may carry a port (`1.2.3.4:5678`, `[2001:db8::1]:443`).
    /// A nil peer (unix socket) is a local connection and is trusted exactly when loopback is;
    /// an unparsable peer yields nil. If every entry is trusted the leftmost one is the client;
    /// with no usable entries the trusted peer itself is.
    public func clientAddress(peer: String?, forwardedFor: [String]) -> IPAddress? {
        var lastTrusted: IPAddress?
        if let peer {
            guard let address = IPText.host(Array(peer.utf8)[...]) else { return nil }
            guard isTrusted(address) else { return address.unmapped }
            lastTrusted = address
        } else {
            guard trustLoopback else { return nil }
        }

        var examined = 0
        for value in forwardedFor.reversed() {
            // An oversized value cannot be verified, so nothing to its left can be either.
            guard value.utf8.count <= Self.maximumHeaderValueLength else { return lastTrusted?.unmapped }
            let bytes = Array(value.utf8)
            for rawEntry in bytes.split(separator: IPText.comma, omittingEmptySubsequences: false).reversed() {
                guard examined < Self.maximumEntries else { return lastTrusted?.unmapped }
                examined += 1
                guard let hop = IPText.host(IPText.trimmingWhitespace(rawEntry)) else {
                    return lastTrusted?.unmapped
                }
                guard isTrusted(hop) else { return hop.unmapped }
                lastTrusted = hop
            }
        }
        return lastTrusted?.unmapped
    }
}

// MARK: - Text parsing

/// Byte-level parsers and formatters shared by the types above.
enum IPText {
    static let dot = UInt8(ascii: ".")
    static let colon = UInt8(ascii: ":")
    static let slash = UInt8(ascii: "/")
    static let comma = UInt8(ascii: ",")
    static let percent = UInt8(ascii: "%")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")

    /// The UTF-8 bytes of `text`, or nil when there are more than `limit` of them.
    /// Reads at most `limit + 1` bytes whatever the length of `text`.
    static func boundedBytes(_ text: some StringProtocol, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(limit, 64))
        for byte in text.utf8 {
            guard bytes.count < limit else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    static func decimalValue(_ byte: UInt8) -> UInt32? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? UInt32(byte - UInt8(ascii: "0")) : nil
    }

    static func hexValue(_ byte: UInt8) -> UInt16? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt16(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt16(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt16(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }

    static func trimmingWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, isWhitespace(first) { slice.removeFirst() }
        while let last = slice.last, isWhitespace(last) { slice.removeLast() }
        return slice
    }

    static func trimmingWhitespace(_ text: Substring) -> Substring {
        var slice = text
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return slice
    }

    /// An address in any accepted form. `allowDecorations` admits brackets around IPv6
    /// addresses and IPv6 zone ids (which are dropped).
    static func address(_ bytes: ArraySlice<UInt8>, allowDecorations: Bool) -> IPAddress? {
        guard !bytes.isEmpty, bytes.count <= IPAddress.maximumTextLength else { return nil }
        var body = bytes
        var bracketed = false
        if body.first == openBracket {
            guard allowDecorations, body.count >= 2, body.last == closeBracket else { return nil }
            body = body.dropFirst().dropLast()
            bracketed = true
        }
        var hasZone = false
        if let percentIndex = body.firstIndex(of: percent) {
            guard allowDecorations, isValidZone(body[(percentIndex + 1)...]) else { return nil }
            body = body[..<percentIndex]
            hasZone = true
        }
        if body.contains(colon) {
            guard let (high, low) = v6(body) else { return nil }
            return .v6(high, low)
        }
        guard !bracketed, !hasZone, let value = v4(body) else { return nil }
        return .v4(value)
    }

    /// A zone id: one or more ASCII letters, digits, "-", "_", "." or "~".
    static func isValidZone(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        return bytes.allSatisfy { byte in
            decimalValue(byte) != nil
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
        }
    }

    /// Exactly four decimal octets, each 0...255 without leading zeros.
    static func v4(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        var completed = 0
        var octet: UInt32 = 0
        var digits = 0
        for byte in bytes {
            if byte == dot {
                guard digits > 0, completed < 3 else { return nil }
                value = value << 8 | octet
                completed += 1
                octet = 0
                digits = 0
            } else if let digit = decimalValue(byte) {
                guard !(digits == 1 && octet == 0) else { return nil }   // leading zero
                digits += 1
                octet = octet * 10 + digit
                guard octet <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, completed == 3 else { return nil }
        return value << 8 | octet
    }

    /// Eight 16-bit groups of one to four hex digits; one "::" may stand for one or more
    /// zero groups, and the last 32 bits may be written as a dotted IPv4 address.
    static func v6(_ bytes: ArraySlice<UInt8>) -> (UInt64, UInt64)? {
        var gap: Int?
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == colon && bytes[index + 1] == colon {
                guard gap == nil else { return nil }
                gap = index
                index += 2
            } else {
                index += 1
            }
        }

        var groups: [UInt16]
        if let gap {
            guard let head = v6Groups(bytes[..<gap], allowIPv4Tail: false),
                  let tail = v6Groups(bytes[(gap + 2)...], allowIPv4Tail: true),
                  head.count + tail.count <= 7
            else { return nil }
            groups = head
            groups.append(contentsOf: repeatElement(0, count: 8 - head.count - tail.count))
            groups.append(contentsOf: tail)
        } else {
            guard let all = v6Groups(bytes, allowIPv4Tail: true), all.count == 8 else { return nil }
            groups = all
        }

        var high: UInt64 = 0
        var low: UInt64 = 0
        for group in groups[0..<4] { high = high << 16 | UInt64(group) }
        for group in groups[4..<8] { low = low << 16 | UInt64(group) }
        return (high, low)
    }

    /// Colon-separated groups on one side of "::" (or the whole address). Empty input is no
    /// groups; an empty group anywhere else is an error. At most 8 groups are produced.
    private static func v6Groups(_ bytes: ArraySlice<UInt8>, allowIPv4Tail: Bool) -> [UInt16]? {
        if bytes.isEmpty { return [] }
        let pieces = bytes.split(separator: colon, omittingEmptySubsequences: false)
        guard pieces.count <= 8 else { return nil }
        var groups: [UInt16] = []
        for (position, piece) in pieces.enumerated() {
            if piece.contains(dot) {
                guard allowIPv4Tail, position == pieces.count - 1, let value = v4(piece) else { return nil }
                groups.append(UInt16(truncatingIfNeeded: value >> 16))
                groups.append(UInt16(truncatingIfNeeded: value))
            } else {
                guard (1...4).contains(piece.count) else { return nil }
                var group: UInt16 = 0
                for byte in piece {
                    guard let digit = hexValue(byte) else { return nil }
                    group = group << 4 | digit
                }
                groups.append(group)
            }
        }
        return groups.count <= 8 ? groups : nil
    }

    /// A prefix length: one to three decimal digits without leading zeros.
    static func prefixLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard (1...3).contains(bytes.count), !(bytes.count > 1 && bytes.first == UInt8(ascii: "0")) else {
            return nil
        }
        var value = 0
        for byte in bytes {
            guard let digit = decimalValue(byte) else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// An address as it appears in a socket peer or X-Forwarded-For entry: any accepted
    /// address form, optionally followed by a port (`1.2.3.4:80`, `[2001:db8::1]:443`).
    static func host(_ bytes: ArraySlice<UInt8>) -> IPAddress? {
        if bytes.first == openBracket {
            guard let close = bytes.firstIndex(of: closeBracket) else { return nil }
            let rest = bytes[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == colon, isPort(rest.dropFirst()) else { return nil }
            }
            return address(bytes[...close], allowDecorations: true)
        }
        let colons = bytes.lazy.filter { $0 == colon }.count
        if colons == 1, let separator = bytes.firstIndex(of: colon) {
            guard isPort(bytes[(separator + 1)...]),
                  case .v4(let value)? = address(bytes[..<separator], allowDecorations: false)
            else { return nil }
            return .v4(value)
        }
        return address(bytes, allowDecorations: true)
    }

    /// One to five decimal digits, at most 65535.
    static func isPort(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard (1...5).contains(bytes.count) else { return false }
        var value: UInt32 = 0
        for byte in bytes {
            guard let digit = decimalValue(byte) else { return false }
            value = value * 10 + digit
        }
        return value <= 65535
    }

    static func formatV4(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }

    static func formatV6(high: UInt64, low: UInt64) -> String {
        if high == 0 && low >> 32 == 0xFFFF {
            return "::ffff:" + formatV4(UInt32(truncatingIfNeeded: low))
        }
        var groups: [UInt16] = []
        groups.reserveCapacity(8)
        for shift in stride(from: 48, through: 0, by: -16) {
            groups.append(UInt16(truncatingIfNeeded: high >> UInt64(shift)))
        }
        for shift in stride(from: 48, through: 0, by: -16) {
            groups.append(UInt16(truncatingIfNeeded: low >> UInt64(shift)))
        }

        // The longest run of zero groups; the first wins a tie; a lone zero is not compressed.
        var bestStart = -1
        var bestLength = 1
        var runStart = -1
        for index in 0...8 {
            if index < 8 && groups[index] == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                let length = index - runStart
                if length > bestLength {
                    bestStart = runStart
                    bestLength = length
                }
                runStart = -1
            }
        }

        func hex(_ slice: ArraySlice<UInt16>) -> String {
            slice.map { String($0, radix: 16) }.joined(separator: ":")
        }
        if bestStart < 0 {
            return hex(groups[...])
        }
        return hex(groups[..<bestStart]) + "::" + hex(groups[(bestStart + bestLength)...])
    }
}
