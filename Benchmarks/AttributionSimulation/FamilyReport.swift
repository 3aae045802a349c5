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
        /// Ferry with the model learnt online, when asked for.
        var learned: Metrics?
    }

    var rows: [Row] = []

    /// Generates and replays every family of `families` in both conditions, from `base` (seed, size, signals).
    init(families: [PopulationFamily], base: SimulationConfig, learning: Bool = false) {
        for family in families {
            for httpOnly in [false, true] {
                var config = family.config(from: base)
                if httpOnly { config.missingPageSignalsShare = 1 }
                var generator = PopulationGenerator(config: config)
                let population = generator.generate()
                let simulation = Simulation(population: population, matcher: AttributionMatcher())
                rows.append(Row(family: family, httpOnly: httpOnly, ferry: Metrics(population: population, outcomes: simulation.run()),
                                rule: Metrics(population: population, outcomes: simulation.runRule()),
                                learned: learning ? Metrics(population: population, outcomes: simulation.runLearning().outcomes) : nil))
            }
        }
    }

    func render() -> String {
        var header = ["family", "split", "clicks seen", "Ferry precision", "Ferry recall", "Ferry organic false",
                      "worst band gap", "rule precision", "rule recall", "rule organic false"]
        if rows.contains(where: { $0.learned != nil }) { header += ["learned precision", "learned recall", "learned organic false", "learned worst gap"] }
        var table = TextTable(header: header)
        for row in rows {
            let ferry = row.ferry.probabilistic, rule = row.rule.probabilistic
            var cells = [
                row.family.rawValue, row.family.isHeldOut ? "held out" : "training", row.httpOnly ? "HTTP only" : "with signals",
                Format.percent(ferry.precision), Format.percent(ferry.recall), Format.percent(ferry.organicFalseRate),
                Format.number(row.ferry.worstCalibrationGap()),
                Format.percent(rule.precision), Format.percent(rule.recall), Format.percent(rule.organicFalseRate),
            ]
            if let learned = row.learned {
                cells += [Format.percent(learned.probabilistic.precision), Format.percent(learned.probabilistic.recall),
                          Format.percent(learned.probabilistic.organicFalseRate), Format.number(learned.worstCalibrationGap())]
            }
            table.rows.append(cells)
        }
        return "Families: Ferry's probabilistic tier and the unambiguous-only rule on the same installs\n" + table.render()
    }
}
