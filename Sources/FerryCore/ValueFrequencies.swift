import FerryAPI
import Foundation

/// How common each signal value is among an app's own clicks: OS versions, first languages, screens, time zones and
/// fingerprints (screen and time zone together). The matcher weighs an agreement by how rare its value is among
/// clicks, so these replace one-size-fits-all shares: a fingerprint one click in a hundred thousand has says far
/// more than the most common iPhone in the app's main time zone.
package struct ValueFrequencies: Sendable, Hashable, Codable {
    /// Clicks counted per value, one table per signal.
    package var os: [String: Double] = [:]
    package var language: [String: Double] = [:]
    package var screen: [String: Double] = [:]
    package var zone: [String: Double] = [:]
    package var fingerprint: [String: Double] = [:]
    /// First languages by time zone (`Europe/Madrid|es-es`): a language common in one zone and rare in the app says
    /// little once the zones have agreed. Nil in tables counted before it was kept.
    package var languageByZone: [String: Double]?
    /// The clicks counted (each table's total may be smaller: not every click states every signal).
    package var clicks: Double = 0

    /// How many clicks' worth of weight a default share carries against the counts (a new app has few).
    package static let priorWeight = 20.0

    /// Creates empty tables.
    package init() {}

    /// Counts one click's values.
    package mutating func add(_ click: ClickEvidence, weight: Double = 1) {
        clicks += weight
        if let version = click.osVersion, let os = AttributionMatcher.majorMinor(version) { self.os[os, default: 0] += weight }
        if let first = click.languages.first, AttributionMatcher.plausibleTag(first, max: 35) { language[first.lowercased(), default: 0] += weight }
        if let screen = Self.screenKey(width: click.screenWidth, height: click.screenHeight, scale: click.screenScale) {
            self.screen[screen, default: 0] += weight
        }
        if let zone = click.timeZone, AttributionMatcher.plausibleTag(zone, max: 64) { self.zone[zone, default: 0] += weight }
        if let parts = DeviceFingerprint.Parts(of: click) { fingerprint[parts.key, default: 0] += weight }
        if let zone = click.timeZone, AttributionMatcher.plausibleTag(zone, max: 64), let first = click.languages.first,
           AttributionMatcher.plausibleTag(first, max: 35) {
            languageByZone = languageByZone ?? [:]
            languageByZone?[Self.zoneLanguageKey(zone: zone, language: first.lowercased()), default: 0] += weight
        }
    }

    /// The key of `languageByZone`.
    package static func zoneLanguageKey(zone: String, language: String) -> String { zone + "|" + language }

    /// The share of the clicks of time zone `zone` whose first language is `language` (lowercased), pulled towards
    /// `prior` by `priorWeight` clicks; nil without a table or a click of that zone.
    package func languageShare(_ language: String, inZone zone: String, prior: Double) -> Double? {
        guard let table = languageByZone, let inZone = self.zone[zone], inZone > 0 else { return nil }
        let count = table[Self.zoneLanguageKey(zone: zone, language: language), default: 0]
        let share = (count + Self.priorWeight * prior) / (inZone + Self.priorWeight)
        return min(1, max(share, 0.5 / inZone))
    }

    /// Keeps the `limit` most common values of each table (the rest only count in the totals), so that an app's
    /// tables stay small.
    package mutating func keepMostCommon(_ limit: Int) {
        func trim(_ table: inout [String: Double]) {
            guard table.count > limit else { return }
            let kept = table.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(limit)
            table = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        trim(&os); trim(&language); trim(&screen); trim(&zone); trim(&fingerprint)
        if var table = languageByZone {
            trim(&table)
            languageByZone = table
        }
    }

    /// The share of clicks with `value` in `table`, pulled towards `prior` by `priorWeight` clicks and never below
    /// half a click in all those counted (a value never seen is rare, not impossible).
    package func share(of value: String, in table: KeyPath<ValueFrequencies, [String: Double]>, prior: Double) -> Double {
        let counts = self[keyPath: table]
        let total = max(clicks, 1)
        let share = (counts[value, default: 0] + Self.priorWeight * prior) / (total + Self.priorWeight)
        return min(1, max(share, 0.5 / total))
    }

    /// The share for a fingerprint: as common as the app's clicks show it, or, never seen, as common as its screen
    /// and time zone apart.
    package func fingerprintShare(_ key: String, screen: String?, zone: String?) -> Double {
        let total = max(clicks, 1)
        let apart = (screen.map { self.screen[$0, default: 0] } ?? 0) / total * (zone.map { self.zone[$0, default: 0] } ?? 0) / total
        return share(of: key, in: \.fingerprint, prior: apart)
    }

    /// The key of a plausible screen (`393x852@3`, short side first).
    package static func screenKey(width: Int?, height: Int?, scale: Double?) -> String? {
        DeviceFingerprint.Parts(width: width, height: height, scale: scale, timeZone: "-").map { String($0.key.dropLast(2)) }
    }
}
