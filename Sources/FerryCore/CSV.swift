import Foundation

/// Comma-separated values as spreadsheets read them (RFC 4180): fields with commas, quotes or line breaks are
/// quoted, quotes doubled, lines end with CRLF. A field that a spreadsheet would run as a formula (starting with
/// `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, so a hostile referrer or query cannot become
/// a formula in the marketing team's spreadsheet.
package enum CSV {
    /// One line, CRLF included.
    package static func line(_ fields: [String?]) -> String {
        fields.map { field($0 ?? "") }.joined(separator: ",") + "\r\n"
    }

    /// One field, quoted and neutralised as needed.
    package static func field(_ value: String) -> String {
        var text = value
        if let first = text.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            // Negative numbers stay numbers.
            if !(first == "-" && Double(text) != nil) { text = "'" + text }
        }
        // By scalar: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Parses CSV text into rows of fields: quoted fields may hold commas, doubled quotes and line breaks; CRLF, LF
    /// and CR end lines; a byte-order mark at the start is skipped. Throws on a quote left open or text after a
    /// closing quote.
    package static func parse(_ text: String) throws(CSVError) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var scalars = text.unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        var line = 1
        var index = scalars.startIndex
        var fieldStarted = false
        func endRow() {
            row.append(field)
            if !(row.count == 1 && row[0].isEmpty) { rows.append(row) }
            row = []
            field = ""
            fieldStarted = false
        }
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\"" && !fieldStarted && field.isEmpty {
                // A quoted field: up to the closing quote; "" is a quote.
                let openedOn = line
                index = scalars.index(after: index)
                var closed = false
                while index < scalars.endIndex {
                    let inner = scalars[index]
                    if inner == "\"" {
                        let next = scalars.index(after: index)
                        if next < scalars.endIndex && scalars[next] == "\"" {
                            field.unicodeScalars.append("\"")
                            index = scalars.index(after: next)
                            continue
                        }
                        index = next
                        closed = true
                        break
                    }
                    if inner == "\n" { line += 1 }
                    field.unicodeScalars.append(inner)
                    index = scalars.index(after: index)
                }
                guard closed else { throw CSVError(line: openedOn, message: "a quoted field opened on line \(openedOn) is never closed") }
                fieldStarted = true
                if index < scalars.endIndex, !["," , "\n", "\r"].contains(scalars[index]) {
                    throw CSVError(line: line, message: "line \(line): text after a closing quote")
                }
                continue
            }
            switch scalar {
            case ",":
                row.append(field)
                field = ""
                fieldStarted = false
            case "\r", "\n":
                endRow()
                line += 1
                let next = scalars.index(after: index)
                if scalar == "\r", next < scalars.endIndex, scalars[next] == "\n" { index = next }
            default:
                field.unicodeScalars.append(scalar)
                fieldStarted = true
            }
            index = scalars.index(after: index)
        }
        if fieldStarted || !field.isEmpty || !row.isEmpty { endRow() }
        return rows
    }
}

/// CSV text that cannot be read.
package struct CSVError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line the problem is on (1-based).
    package var line: Int
    /// A sentence for people.
    package var message: String
    package var description: String { message }
}
