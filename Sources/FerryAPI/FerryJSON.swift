import Foundation

/// The JSON conventions of the Ferry API: ISO 8601 dates (fractional seconds optional on input,
/// milliseconds on output) and sorted keys on output.
package enum FerryJSON {
    /// An encoder following the API's conventions.
    package static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        return encoder
    }

    /// A decoder following the API's conventions.
    package static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an ISO 8601 date such as 2026-01-31T12:00:00Z")
            }
            return date
        }
        return decoder
    }

    /// Formats a date as `2026-01-31T12:00:00.000Z`.
    package static func formatDate(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Parses an ISO 8601 date with or without fractional seconds; nil for anything else.
    package static func parseDate(_ text: String) -> Date? {
        // Foundation's parser is lenient (it rolls `25:00` and February 30 over and ignores trailing text),
        // so the shape and ranges are checked here first.
        guard text.utf8.count <= 64, hasStrictISO8601Shape(text) else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// Whether `text` is exactly `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` with every field in range.
    static func hasStrictISO8601Shape(_ text: String) -> Bool {
        let b = Array(text.utf8)
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for byte in b[start..<start + count] {
                guard isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard b.count >= 20,
              let year = number(0, 4), b[4] == UInt8(ascii: "-"), let month = number(5, 2), b[7] == UInt8(ascii: "-"),
              let day = number(8, 2), b[10] == UInt8(ascii: "T"), let hour = number(11, 2), b[13] == UInt8(ascii: ":"),
              let minute = number(14, 2), b[16] == UInt8(ascii: ":"), let second = number(17, 2),
              year >= 1, (1...12).contains(month), hour < 24, minute < 60, second < 60
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        var index = 19
        if b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, isDigit(b[index]) { index += 1 }
            guard (1...9).contains(index - start) else { return false }
        }
        guard index < b.count else { return false }
        if b[index] == UInt8(ascii: "Z") { return index + 1 == b.count }
        guard b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"), b.count == index + 6,
              let offsetHours = number(index + 1, 2), b[index + 3] == UInt8(ascii: ":"), let offsetMinutes = number(index + 4, 2)
        else { return false }
        return offsetHours < 24 && offsetMinutes < 60
    }
}
