/// Who made a click, as far as the edge can tell. Every click is answered; only a person's is counted in clicks,
/// visitors and platforms, offered to attribution and sent to `link.clicked` webhooks. The others are recorded with
/// their kind and counted apart (`StatsMetric.filtered`).
package enum ClickTraffic: String, Sendable, Hashable, CaseIterable, Codable {
    /// A person's browser or app.
    case person
    /// A crawler, link unfurler, uptime monitor, HTTP library or headless browser (`UserAgentClassifier`).
    case bot
    /// A browser fetching ahead of a possible navigation (`Sec-Purpose: prefetch`, `Purpose: prefetch`,
    /// `X-Moz: prefetch`, Safari's `X-Purpose: preview`).
    case prefetch
    /// An email security service opening the links of a message before (or instead of) its reader: by its user
    /// agent, by a network its vendor publishes, or by how it clicks (`ScannerBurstDetector`).
    case scanner

    /// The kind of a request from what its headers say: a prefetch first (a browser's own), then what the user
    /// agent's classification says.
    package static func of(client: ClientInfo, prefetch: Bool) -> ClickTraffic {
        if prefetch { return .prefetch }
        if client.isMailScanner { return .scanner }
        return client.isBot ? .bot : .person
    }
}

/// The request fields by which browsers say a request is speculative, and the values that say so.
package enum PrefetchHeaders {
    /// Lowercase field names: Chromium's and the Fetch standard's `Sec-Purpose`, the older `Purpose`, Firefox's
    /// `X-Moz`, and Safari's `X-Purpose` (its Top Sites previews).
    package static let names = ["sec-purpose", "purpose", "x-moz", "x-purpose"]

    /// Whether a field's value names a speculative fetch: a `prefetch` or `preview` item (a structured-field list
    /// such as `prefetch;prerender`, or a bare token), compared without case.
    package static func isSpeculative(_ value: String) -> Bool {
        for item in value.utf8.split(whereSeparator: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") }) {
            let trimmed = item.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
            for word in ["prefetch", "preview"] where trimmed.count == word.utf8.count
                && zip(trimmed, word.utf8).allSatisfy({ $0 | 0x20 == $1 }) {
                return true
            }
        }
        return false
    }
}
