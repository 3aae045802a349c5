import Foundation

/// A `multipart/form-data` body (RFC 7578), as a browser sends a form with a file: its parts, each with its field
/// name, the file's name when it is a file, and its bytes. Only what browsers send is read: a boundary from the
/// `Content-Type`, CRLF line ends, `Content-Disposition: form-data` on each part. Anything else is refused with a
/// reason, never guessed at.
package struct MultipartForm: Sendable {
    /// One part.
    package struct Part: Sendable, Hashable {
        /// The form field's name.
        package var name: String
        /// The file's name as the browser gave it (for a file input), else nil.
        package var filename: String?
        /// The part's `Content-Type`, if given.
        package var contentType: String?
        /// The bytes.
        package var body: [UInt8]

        /// The bytes as text, when they are UTF-8 (a leading byte order mark dropped).
        package var text: String? {
            var bytes = body[...]
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            return String(bytes: bytes, encoding: .utf8)
        }
    }

    /// Why a body is not a form.
    package struct Refusal: Error, Sendable, Hashable {
        /// For people.
        package var message: String
    }

    /// The parts, in body order.
    package var parts: [Part]

    /// Most parts read; a body with more is refused.
    package static let maxParts = 32
    /// Longest header block of one part, in bytes.
    package static let maxHeaderBytes = 4096

    /// The boundary a `Content-Type` names, when it is `multipart/form-data` with a boundary of 1 to 70 characters.
    package static func boundary(contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "="), piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard (1...70).contains(value.utf8.count), value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            return value
        }
        return nil
    }

    /// The form in `body`, its parts separated by `boundary`.
    package init(body: [UInt8], boundary: String) throws(Refusal) {
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        let crlf: [UInt8] = [13, 10]
        // A preamble before the first delimiter is allowed and ignored.
        guard var position = Self.find(delimiter, in: body, from: 0) else { throw Refusal(message: "the form has no part") }
        position += delimiter.count
        var parts: [Part] = []
        while true {
            if body[position...].starts(with: [45, 45]) { break }  // "--": the last delimiter
            guard body[position...].starts(with: crlf) else { throw Refusal(message: "the form's parts are not separated as multipart/form-data requires") }
            position += 2
            guard let headerEnd = Self.find([13, 10, 13, 10], in: body, from: position), headerEnd - position <= Self.maxHeaderBytes else {
                throw Refusal(message: "a part of the form has no end to its headers")
            }
            let headers = String(decoding: body[position..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let contentEnd = Self.find(separator, in: body, from: contentStart) else {
                throw Refusal(message: "the form ends before its last part does")
            }
            parts.append(try Self.part(headers: headers, body: Array(body[contentStart..<contentEnd])))
            guard parts.count <= Self.maxParts else { throw Refusal(message: "the form has more than \(Self.maxParts) parts") }
            position = contentEnd + separator.count
        }
        self.parts = parts
    }

    /// A form of these parts.
    package init(parts: [Part]) {
        self.parts = parts
    }

    /// The first part named `name`.
    package func part(_ name: String) -> Part? { parts.first { $0.name == name } }

    /// The text fields (parts without a file name) as a query string, for code that reads forms by name.
    package var fields: QueryString {
        var query = QueryString("")
        for part in parts where part.filename == nil {
            if let text = part.text, !query.contains(part.name) { query.set(part.name, text) }
        }
        return query
    }

    private static func part(headers: String, body: [UInt8]) throws(Refusal) -> Part {
        var name: String?, filename: String?, contentType: String?
        for line in headers.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch field {
            case "content-disposition":
                let pieces = parameters(value)
                guard pieces.first?.key.lowercased() == "form-data" else { throw Refusal(message: "a part of the form is not form-data") }
                name = pieces.first { $0.key.lowercased() == "name" }?.value
                filename = pieces.first { $0.key.lowercased() == "filename" }?.value
            case "content-type":
                contentType = value
            default:
                continue
            }
        }
        guard let name, !name.isEmpty else { throw Refusal(message: "a part of the form has no name") }
        return Part(name: name, filename: filename, contentType: contentType, body: body)
    }

    /// `form-data; name="a"; filename="b.csv"` as (key, value) pairs, the first without a value; quotes removed, a
    /// semicolon inside quotes kept.
    private static func parameters(_ value: String) -> [(key: String, value: String?)] {
        var pieces: [String] = [], current = "", quoted = false, escaped = false
        for character in value {
            if escaped { current.append(character); escaped = false; continue }
            if quoted && character == "\\" { escaped = true; continue }
            if character == "\"" { quoted.toggle(); continue }
            if character == ";" && !quoted { pieces.append(current); current = ""; continue }
            current.append(character)
        }
        pieces.append(current)
        return pieces.map { piece in
            guard let equals = piece.firstIndex(of: "=") else { return (piece.trimmingCharacters(in: .whitespaces), nil) }
            return (piece[..<equals].trimmingCharacters(in: .whitespaces), String(piece[piece.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
        }
    }

    /// Where `needle` first starts in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            guard let hit = haystack[index...last].firstIndex(of: first) else { return nil }
            if haystack[hit..<(hit + needle.count)].elementsEqual(needle) { return hit }
            index = hit + 1
        }
        return nil
    }
}
