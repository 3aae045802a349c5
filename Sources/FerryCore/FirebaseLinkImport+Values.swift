import Foundation

extension FirebaseLinkImport {
    /// Text safe to print on a terminal or in a one-line message: control characters (CR, LF, escape…) and the
    /// characters that reorder text on screen are written as escapes (`\r`, `\u{1B}`), everything else is kept.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnprintable) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard isUnprintable(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default: result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return result
    }

    /// Control characters and bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069).
    static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// `true`/`false`, `1`/`0`, `yes`/`no`, `y`/`n`, `on`/`off`, any case; nil for anything else.
    static func boolean(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1", "yes", "y", "on", "t": true
        case "false", "0", "no", "n", "off", "f", "": false
        default: nil
        }
    }

    /// The instants a creation time may name: 2000-01-01T00:00:00Z up to 2100-01-01T00:00:00Z. FDL started in
    /// 2016; a value outside this range is a misreading (a bare year taken for Unix seconds, say).
    static let plausibleTimestamps: Range<TimeInterval> = 946_684_800..<4_102_444_800

    /// A creation time as FDL exports may write it: ISO 8601 (`2023-05-01T12:34:56Z`, with fractional seconds, a
    /// `±HH:MM` offset, or no zone meaning UTC), `2023-05-01 12:34:56` (UTC; a trailing `UTC` or `GMT` is allowed), a
    /// date alone (midnight UTC), or Unix time in seconds or, from 10^11 on, milliseconds. Nil when unreadable or
    /// outside 2000–2100.
    static func timestamp(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        let seconds = unixTime(trimmed) ?? calendarTime(Array(trimmed.utf8))
        guard let seconds, plausibleTimestamps.contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Digits with an optional fraction: seconds, or milliseconds from 10^11 on (10^11 seconds is year 5138).
    static func unixTime(_ text: String) -> TimeInterval? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let value = Double(text)
        else { return nil }
        return value >= 1e11 ? value / 1000 : value
    }

    /// `YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][ ][Z|±HH[:MM]|UTC|GMT]`, as seconds since 1970.
    static func calendarTime(_ bytes: [UInt8]) -> TimeInterval? {
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func take(_ character: Character) -> Bool {
            guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
            index += 1
            return true
        }
        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2),
              (1...12).contains(month), (1...StatsRange.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = TimeInterval(StatsRange.daysFromCivil(year: year, month: month, day: day)) * 86400
        if take("T") || take("t") || take(" ") {
            guard let hour = number(2), take(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
            seconds += TimeInterval(hour * 3600 + minute * 60)
            if take(":") {
                guard let second = number(2), second <= 60 else { return nil }
                seconds += TimeInterval(second)
                if take(".") || take(",") {
                    var scale = 0.1, fraction = 0.0, digits = 0
                    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                        fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                        scale /= 10
                        digits += 1
                        index += 1
                    }
                    guard digits > 0 else { return nil }
                    seconds += fraction
                }
            }
        }
        _ = take(" ")
        if index == bytes.count { return seconds }
        let zone = String(decoding: bytes[index...], as: UTF8.self).uppercased()
        if zone == "Z" || zone == "UTC" || zone == "GMT" { return seconds }
        let sign = bytes[index]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        index += 1
        guard let hours = number(2), hours < 24 else { return nil }
        var minutes = 0
        if index < bytes.count {
            _ = take(":")
            guard let value = number(2), value < 60 else { return nil }
            minutes = value
        }
        guard index == bytes.count else { return nil }
        let offset = TimeInterval(hours * 3600 + minutes * 60)
        return sign == UInt8(ascii: "+") ? seconds - offset : seconds + offset
    }
}
