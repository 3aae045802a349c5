import Foundation

/// Reads an `Accept-Language` header into language tags, most preferred first.
package enum AcceptLanguage {
    /// The tags of `header` by falling quality (`fr-CH, fr;q=0.9, en;q=0.8` gives `fr-CH`, `fr`, `en`), at most 16,
    /// without `*` or tags longer than 35 characters.
    package static func tags(_ header: String) -> [String] {
        let entries = header.split(separator: ",").prefix(16).compactMap { part -> (String, Double)? in
            let pieces = part.split(separator: ";")
            guard let first = pieces.first else { return nil }
            let tag = first.trimmingCharacters(in: .whitespaces)
            guard !tag.isEmpty, tag != "*", tag.count <= 35 else { return nil }
            var quality = 1.0
            for piece in pieces.dropFirst() {
                let p = piece.trimmingCharacters(in: .whitespaces)
                if p.hasPrefix("q="), let q = Double(p.dropFirst(2)) { quality = q }
            }
            return (tag, quality)
        }
        return entries.enumerated().sorted { ($0.element.1, -$0.offset) > ($1.element.1, -$1.offset) }.map(\.element.0)
    }
}
