import FerryCore
import Foundation

/// The model learnt during a replay, refit by refit: what it believes of the population.
struct LearnedModelReport {
    /// A delay as `45 s`, `12 min` or `3.5 h`.
    static func duration(_ seconds: TimeInterval) -> String {
        if seconds < 90 { return String(format: "%.0f s", seconds) }
        if seconds < 5400 { return String(format: "%.0f min", seconds / 60) }
        return String(format: "%.1f h", seconds / 3600)
    }

    var models: [(t: Double, model: MatchModel)]
    var window: TimeInterval
    var title = "The model learnt online (refitted every 6 simulated hours, and sooner while young)"

    func render() -> String {
        var table = TextTable(header: ["refit at", "π iOS", "π Android", "delay ≤30 s", "≤1 min", "median", "≥6 h",
                                       "leaves network", "in", "p OS", "p screen", "p zone", "p language", "ρ", "thresholds"])
        // Every fourth refit, and the last.
        let shown = models.enumerated().filter { $0.offset % 4 == 3 || $0.offset == models.count - 1 }.map(\.element)
        for (t, model) in shown {
            let delays = model.delayMixture ?? .prior
            var median = 60.0
            while median < window && delays.cumulative(median, window: window) < 0.5 { median *= 1.1 }
            table.rows.append([
                String(format: "day %.2f", t / 86400), Format.number(model.clickedShare), Format.number(model.androidClickedShare),
                Format.percent(delays.cumulative(30, window: window)), Format.percent(delays.cumulative(60, window: window)),
                Self.duration(median), Format.percent(1 - delays.cumulative(6 * 3600, window: window)),
                Format.number(model.networkChangeShare), Self.duration(model.networkChangeTime),
                Format.number(model.pSameOS), Format.number(model.pSameScreen), Format.number(model.pSameTimeZone),
                Format.number(model.pSameLanguage), Format.number(model.pNoSharedKey),
                model.learntThresholds.map { $0.map { Format.number($0) }.joined(separator: " / ") } ?? "fixed",
            ])
        }
        var lines = [title, table.render()]
        if let table = models.last?.model.clickedShareByAddress, table.count == 2 {
            lines.append("  click share by the clicks of the install's address (none, 1, 2, 3–5, 6–20, more), last refit:")
            lines.append("    iOS     " + table[0].map { Format.number($0) }.joined(separator: "  "))
            lines.append("    Android " + table[1].map { Format.number($0) }.joined(separator: "  "))
        }
        if let mixture = models.last?.model.delayMixture {
            lines.append("  delay components, last refit (weight, median, spread): " + mixture.components.map {
                "\(Format.number($0.weight)) \(Self.duration($0.median)) \(Format.number($0.spread))"
            }.joined(separator: "; ") + "; floor \(Format.number(mixture.floorWeight))")
        }
        if let unrelated = models.last?.model.unrelatedDelays {
            lines.append("  unrelated clicks' delays against an even spread (\(UnrelatedDelays.binNames.joined(separator: ", "))), last refit: "
                + unrelated.relative.map { Format.number($0) }.joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }
}
