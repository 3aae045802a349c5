/// Percent-encoded query strings, handled as text so that what a visitor sent reaches the destination byte for byte.
package struct QueryString: Sendable, Hashable {
    /// The raw `name=value` pairs, still percent-encoded.
    package var items: [(name: String, value: String?)] {
        get { storage.map { ($0.name, $0.value) } }
    }

    private struct Item: Sendable, Hashable {
        var name: String
        var value: String?
        var decodedName: String
    }

    private var storage: [Item]

    /// Most pairs kept from an incoming query; the rest are dropped.
    package static let maxItems = 64
    /// Longest incoming query kept, in bytes.
    package static let maxBytes = 4096

    /// Parses a raw query (without `?`). Over-long queries and pairs beyond the limit are dropped.
    package init(_ text: some StringProtocol) {
        self.init(text, maxItems: Self.maxItems, maxBytes: Self.maxBytes)
    }

    /// Parses an `application/x-www-form-urlencoded` body (at most 500 fields and 256 KiB).
    package static func form(_ text: some StringProtocol) -> QueryString {
        QueryString(text, maxItems: 500, maxBytes: 256 * 1024)
    }

    /// Parses a raw query with explicit limits (`URLParts` uses none: a stored URL's query is kept whole).
    package init(_ text: some StringProtocol, maxItems: Int, maxBytes: Int) {
        storage = []
        let raw = Substring(text)
        guard !raw.isEmpty, raw.utf8.count <= maxBytes else { return }
        // Split on the bytes `&` and `=` (ASCII, so every index found is also a character boundary).
        let bytes = raw.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex, storage.count < maxItems {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if let eq = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) {
                let name = raw[start..<eq]
                if !name.isEmpty {
                    storage.append(Item(name: String(name), value: String(raw[bytes.index(after: eq)..<end]), decodedName: Self.decode(name)))
                }
            } else if start < end {
                let name = raw[start..<end]
                storage.append(Item(name: String(name), value: nil, decodedName: Self.decode(name)))
            }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
    }

    /// True when there are no pairs.
    package var isEmpty: Bool { storage.isEmpty }

    /// Whether a pair with this (decoded) name exists.
    package func contains(_ name: String) -> Bool { storage.contains { $0.decodedName == name } }

    /// The decoded value of the first pair with this name.
    package func value(of name: String) -> String? {
        storage.first { $0.decodedName == name }.flatMap { $0.value.map { Self.decode(Substring($0)) } }
    }

    /// The decoded values of every pair with this name, in order (a form's checkboxes of one name).
    package func values(of name: String) -> [String] {
        storage.filter { $0.decodedName == name }.compactMap { $0.value.map { Self.decode(Substring($0)) } }
    }

    /// Sets a pair, encoding the value, replacing any pairs of that name.
    package mutating func set(_ name: String, _ value: String) {
        let encoded = Self.encode(value)
        if let index = storage.firstIndex(where: { $0.decodedName == name }) {
            var kept = storage[index]
            kept.value = encoded
            storage.removeAll { $0.decodedName == name }
            storage.insert(kept, at: min(index, storage.count))
        } else {
            storage.append(Item(name: Self.encode(name), value: encoded, decodedName: name))
        }
    }

    /// Removes every pair with this (decoded) name.
    package mutating func remove(_ name: String) {
        storage.removeAll { $0.decodedName == name }
    }

    /// Adds a pair only when no pair of that name exists.
    package mutating func setIfAbsent(_ name: String, _ value: String) {
        if !contains(name) { set(name, value) }
    }

    /// Overlays another query: its pairs replace same-named pairs here, the rest are appended, raw encoding kept.
    package mutating func overlay(_ other: QueryString) {
        let names = Set(other.storage.map(\.decodedName))
        storage.removeAll { names.contains($0.decodedName) }
        storage.append(contentsOf: other.storage)
    }

    /// The query text, without `?`.
    package var encoded: String {
        storage.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }.joined(separator: "&")
    }

    /// Percent-encodes everything but unreserved characters.
    package static func encode(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether every name and value decodes to valid UTF-8 (a pair such as `title=%FF` would otherwise decode to a
    /// replacement character instead of what was sent).
    package var decodesAsUTF8: Bool {
        storage.allSatisfy { item in
            Self.isUTF8(Self.decodedBytes(Substring(item.name))) && (item.value.map { Self.isUTF8(Self.decodedBytes(Substring($0))) } ?? true)
        }
    }

    /// Whether bytes are valid UTF-8.
    package static func isUTF8(_ bytes: some Collection<UInt8>) -> Bool {
        String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
    }

    /// Decodes `%XX` and `+` (as a space); invalid escapes are kept as they are.
    package static func decode(_ text: Substring) -> String {
        String(decoding: decodedBytes(text), as: UTF8.self)
    }

    /// The bytes `decode` makes text of.
    static func decodedBytes(_ text: Substring) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                      let high = hexValue(iterator[iterator.startIndex]), let low = hexValue(iterator[iterator.startIndex + 1]) {
                out.append(high << 4 | low)
                iterator.removeFirst(2)
            } else {
                out.append(byte)
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    package static func == (lhs: QueryString, rhs: QueryString) -> Bool { lhs.storage == rhs.storage }
    package func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}

/// Splits a URL into the part before its query, its query and its fragment, and puts them back together.
package struct URLParts: Sendable, Hashable {
    /// Scheme, authority and path.
    package var base: String
    /// The query.
    package var query: QueryString
    /// The fragment, without `#`.
    package var fragment: String?

    /// Splits a URL.
    package init(_ url: String) {
        let bytes = url.utf8
        var end = bytes.endIndex
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) {
            fragment = String(url[bytes.index(after: hash)...])
            end = hash
        } else {
            fragment = nil
        }
        if let question = bytes[..<end].firstIndex(of: UInt8(ascii: "?")) {
            // Not capped like a visitor's query: this is a whole URL we were given (a destination, already bounded).
            query = QueryString(url[bytes.index(after: question)..<end], maxItems: .max, maxBytes: .max)
            base = String(url[..<question])
        } else {
            query = QueryString("")
            base = end == bytes.endIndex ? url : String(url[..<end])
        }
    }

    /// The URL text.
    package var url: String {
        var text = base
        if !query.isEmpty { text += "?" + query.encoded }
        if let fragment { text += "#" + fragment }
        return text
    }
}
