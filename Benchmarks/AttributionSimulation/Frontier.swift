import FerryAPI
import FerryCore
import Foundation

/// What any threshold on a model's posteriors can reach on one population: precision, recall and organic installs
/// falsely attributed at each acceptance threshold, for the model the learner ended with and for an *oracle* model
/// fitted to the population's truth (every install labelled with its real click or as organic), beside the
/// unambiguous-only rule. When not even the oracle's curve passes through the goals (precision, organic false and
/// the rule's recall at once), no threshold of this model family can meet them on that population; when the oracle's
/// does and the learnt model's does not, what the learner estimates is at fault.
struct Frontier {
    struct Point {
        var threshold: Double
        var metrics: Metrics.Tally
    }

    let population: Population
    let rule: Metrics.Tally
    let learned: [Point]
    let oracle: [Point]
    let oracleModel: MatchModel
    let precisionGoal: Double
    /// The calibration of each model at its own thresholds (the oracle's are the fixed ones: it learns none without
    /// unlabelled installs), its posteriors stated as a learnt model states them.
    let calibration: [(name: String, metrics: Metrics)]

    static let thresholds = [0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]

    /// The curves of `learnt` (the model the online replay ended with, replayed without refits) and of the oracle.
    init(population: Population, learnt: MatchModel, learner: AttributionLearner = AttributionLearner()) {
        self.population = population
        precisionGoal = population.config.missingPageSignalsShare >= 1 ? 0.95 : 0.97
        rule = Metrics(population: population, outcomes: Simulation(population: population, matcher: AttributionMatcher()).runRule()).probabilistic
        let oracleModel = Self.oracleModel(population: population, learner: learner)
        self.oracleModel = oracleModel
        func curve(_ model: MatchModel) -> [Point] {
            Self.thresholds.map { threshold in
                var swept = model
                swept.learntThresholds = [threshold, threshold]
                let outcomes = Simulation(population: population, matcher: AttributionMatcher(model: swept, calibration: .identity),
                                          answersOrganicReferrers: true).run()
                return Point(threshold: threshold, metrics: Metrics(population: population, outcomes: outcomes).probabilistic)
            }
        }
        learned = curve(learnt)
        oracle = curve(oracleModel)
        calibration = [("learnt", learnt), ("oracle", oracleModel)].map { name, model in
            let matcher = AttributionMatcher(model: model, calibration: Simulation.Learning().calibration)
            return (name, Metrics(population: population, outcomes: Simulation(population: population, matcher: matcher, answersOrganicReferrers: true).run()))
        }
    }

    /// The model the learner fits when it is told the truth: every install of the population, in order, labelled with
    /// the click that caused it (consumed then, as a perfect matcher would) or as organic, with the click shares by
    /// platform and address counted from the truth (the learner takes those from unlabelled installs only).
    static func oracleModel(population: Population, learner: AttributionLearner) -> MatchModel {
        let config = population.config
        var index = ClickIndex(clicks: population.clicks, start: config.start)
        var observations: [LearningObservation] = []
        let buckets = MatchModel.addressBuckets
        var clicked = [[Double]](repeating: [Double](repeating: 0, count: buckets), count: 2), total = clicked
        var organicReferrers = Simulation.organicReferrerStream(config)
        for install in population.installs {
            let at = population.date(install.t)
            let android = population.devices[install.device].platform == .android
            let signals = android ? install.signals : config.installSignals.apply(to: install.signals)
            let evidence = InstallEvidence(addressHash: install.endpoint.address, networkHash: install.endpoint.network, signals: signals, at: at)
            let query = CandidateQuery(appID: "app_sim", environment: .live, install: evidence, window: config.window)
            let candidates = index.candidates(query, platform: signals.platform, now: at)
            var truth: Int?
            if let click = install.truth.clickIndex, !index.isConsumed(click), population.clicks[click].t >= install.t - config.window,
               population.clicks[click].t <= install.t {
                truth = click
            }
            observations.append(LearningObservation(install: evidence, candidates: candidates, window: config.window,
                                                    label: truth.map { .click(population.clicks[$0].evidence) } ?? .organic))
            if let truth { index.consume(truth) }
            // The shares describe the installs the probabilistic tier sees: not those a click token or referrer ties,
            // nor the organic ones whose referrer says so.
            guard install.deterministic == nil || truth == nil,
                  !Simulation.hasOrganicReferrer(install, population: population, random: &organicReferrers) else { continue }
            let bucket = MatchModel.addressBucket(candidates.sameAddressClicks), platform = android ? 1 : 0
            total[platform][bucket] += 1
            if truth != nil { clicked[platform][bucket] += 1 }
        }
        var frequencies = ValueFrequencies()
        for click in population.clicks where click.platform != .desktop { frequencies.add(click.evidence) }
        frequencies.keepMostCommon(AttributionLearner.frequencyValues)
        var model = learner.fit(observations, frequencies: frequencies)
        func share(_ clicked: Double, _ total: Double) -> Double { total > 0 ? min(0.98, max(0.02, clicked / total)) : 0.5 }
        let shares = (0..<2).map { share(clicked[$0].reduce(0, +), total[$0].reduce(0, +)) }
        model.clickedShare = shares[0]
        model.androidClickedShare = shares[1]
        model.clickedShareByAddress = (0..<2).map { platform in
            (0..<buckets).map { total[platform][$0] >= 20 ? share(clicked[platform][$0], total[platform][$0]) : shares[platform] }
        }
        return model
    }

    /// The highest recall on `curve` at which precision and organic false meet their goals, or nil.
    func bestRecall(_ curve: [Point]) -> Double? {
        curve.filter { $0.metrics.precision >= precisionGoal && $0.metrics.organicFalseRate <= FamilyReport.organicFalseGoal }
            .map(\.metrics.recall).max()
    }

    func render() -> String {
        var table = TextTable(header: ["model", "threshold", "matched", "precision", "recall", "organic false"])
        for (name, curve) in [("learnt", learned), ("oracle", oracle)] {
            for point in curve {
                let p = point.metrics
                table.rows.append([name, Format.number(point.threshold, digits: 2), "\(p.right + p.wrong)", Format.percent(p.precision),
                                   Format.percent(p.recall), Format.percent(p.organicFalseRate)])
            }
        }
        table.rows.append(["rule", "", "\(rule.right + rule.wrong)", Format.percent(rule.precision), Format.percent(rule.recall),
                           Format.percent(rule.organicFalseRate)])
        func best(_ curve: [Point]) -> String { bestRecall(curve).map { Format.percent($0) } ?? "none meets both" }
        return ([
            "Frontier (probabilistic tier): every threshold on the learnt model's posteriors and on an oracle model fitted to the truth",
            table.render(),
            LearnedModelReport(models: [(0, oracleModel)], window: population.config.window, title: "The oracle model").render(),
            "Best recall with precision ≥ \(Int((precisionGoal * 100).rounded()))% and organic false ≤ 1%: learnt \(best(learned)), "
                + "oracle \(best(oracle)); the rule's recall \(Format.percent(rule.recall))",
            "Expected calibration error at each model's own thresholds (the oracle's posteriors are as sure as the model's structure lets",
            "a model with true parameters be):",
        ] + calibration.map { name, m in
            "  \(name): all \(Format.calibration(m.calibration)), "
                + CalibrationSegment.allCases.map { "\($0.rawValue) \(Format.calibration(m.calibration($0)))" }.joined(separator: ", ")
        }).joined(separator: "\n")
    }
}
