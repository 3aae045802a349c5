#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation

/// JSON text columns (params, bundle ids, fingerprints).
enum JSONText {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    static func decode<T: Decodable>(_ text: String?) -> T? {
        guard let text else { return nil }
        // Most links have no params: an empty object needs no JSON decoder.
        if text == "{}", let empty = [String: String]() as? T { return empty }
        // An app's bundle ids and fingerprints are read with every API request it makes.
        if T.self == [String].self, let list = plainStrings(text) as? T { return list }
        return try? JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    /// A JSON array of strings as `encode` writes it (`["a","b"]`, no spaces), when no string holds an escape; nil for
    /// anything else, which the JSON decoder then reads.
    static func plainStrings(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]"), !bytes.contains(UInt8(ascii: "\\")) else { return nil }
        var list: [String] = []
        var index = 1
        let end = bytes.count - 1
        while index < end {
            guard bytes[index] == UInt8(ascii: "\""), let close = bytes[(index + 1)..<end].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            guard bytes[(index + 1)..<close].allSatisfy({ $0 >= 0x20 }) else { return nil }
            list.append(String(decoding: bytes[(index + 1)..<close], as: UTF8.self))
            index = close + 1
            if index < end {
                guard bytes[index] == UInt8(ascii: ","), index + 1 < end else { return nil }
                index += 1
            }
        }
        return list
    }
}
#endif
