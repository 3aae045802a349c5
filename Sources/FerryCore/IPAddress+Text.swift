/// Byte-level parsers and formatters of IP addresses and networks (no C library: every input is bounded and the
/// behaviour is the same on every platform).
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
