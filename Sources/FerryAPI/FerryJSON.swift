import Foundation

/// The JSON conventions of the Ferry API: ISO 8601 dates (fractional seconds optional on input,
/// milliseconds on output) and sorted keys on output.
public enum FerryJSON {
    /// An encoder following the API's conventions.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        return encoder
    }

    /// A decoder following the API's conventions.
    public static func makeDecoder() -> JSONDecoder {
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
    public static func formatDate(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Parses an ISO 8601 date with or without fractional seconds; nil for anything else.
    public static func parseDate(_ text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
