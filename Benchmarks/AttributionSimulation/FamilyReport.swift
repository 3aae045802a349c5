import FerryCore
import Foundation

/// Ferry's matcher beside the unambiguous-only rule, family by family, with the page's signals and without them
/// ("no script ran": every click an HTTP request only), on the probabilistic tier.
struct FamilyReport {
    /// One family in one condition.
    struct Row {
        var family: PopulationFamily
        var httpOnly: Bool
        var ferry: Metrics
        var rule: Metrics
    }

    var rows: [Row] = []

    /// Generates and replays every family of `families` in both conditions, from `base` (seed, size, signals).
    init(families: [PopulationFamily], base: SimulationConfig) {
        for family in families {
            for httpOnly in [false, true] {
                var config = family.config(from: base)
                if httpOnly { config.missingPageSignalsShare = 1 }
                var generator = PopulationGenerator(config: config)
                let population = generator.generate()
                let simulation = Simulation(population: population, matcher: AttributionMatcher())
                rows.append(Row(family: family, httpOnly: httpOnly, ferry: Metrics(population: population, outcomes: simulation.run()),
                                rule: Metrics(population: population, outcomes: simulation.runRule())))
            }
        }
    }

    func render() -> String {
        var table = TextTable(header: ["family", "split", "clicks seen", "Ferry precision", "Ferry recall", "Ferry organic false",
                                       "worst band gap", "rule precision", "rule recall", "rule organic false"])
        for row in rows {
            let ferry = row.ferry.probabilistic, rule = row.rule.probabilistic
            table.rows.append([
                row.family.rawValue, row.family.isHeldOut ? "held out" : "training", row.httpOnly ? "HTTP only" : "with signals",
                Format.percent(ferry.precision), Format.percent(ferry.recall), Format.percent(ferry.organicFalseRate),
                Format.number(row.ferry.worstCalibrationGap()),
                Format.percent(rule.precision), Format.percent(rule.recall), Format.percent(rule.organicFalseRate),
            ])
        }
        return "Families: Ferry's probabilistic tier and the unambiguous-only rule on the same installs\n" + table.render()
    }
}
