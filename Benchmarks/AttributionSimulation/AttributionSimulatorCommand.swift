import FerryAPI
import FerryCore
import Foundation

/// `FERRY_BENCHMARKS=1 swift run -c release AttributionSimulator [--seed N] [--installs N] [--days N]
/// [--signals all|minimal|none] [--families training|heldout|all] [--fit] [--sweep] [--raw] [--explain N]` (the executable is only in the package with `FERRY_BENCHMARKS` set; see Package.swift).
///
/// Generates a population, replays it against the real `AttributionMatcher` and prints precision, recall,
/// organic false attribution, calibration and a per-scenario breakdown.
///
/// - `--signals` limits what the apps send with their match request as FerryKit's `FerryOptions.deviceSignals` does
///   (`all`, the default; `minimal`: platform, OS version, first language; `none`: no signal); clicks are unchanged.
/// - `--families` replays each family of populations (`PopulationFamily`) with the page's signals and without, and
///   prints Ferry's matcher beside the unambiguous-only rule (`UnambiguousRule`) on the same installs, then Ferry's
///   expected calibration error overall and by kind of install, and the goals it misses (`FamilyReport`).
/// - `--fit` also measures the model's numbers on the population and fits a calibration (to paste into
///   `MatchModel` and `Calibration.default`; fit on one seed, report on another).
/// - `--sweep` reruns the population at several acceptance thresholds.
/// - `--raw` states posteriors as they are (identity calibration).
/// - `--misses` (with `--learn`) counts where the learnt model and the unambiguous-only rule part ways.
/// - `--frontier` (with `--learn`) replays the population at several thresholds with the learnt model and with an oracle
///   model fitted to the truth, to show what any threshold could reach, and each one's calibration error at its own
///   thresholds (`Frontier`).
/// - `--min-confidence X` (with `--learn`) answers as an app whose minimum confidence is X, in place of the learnt
///   thresholds.
/// - `--explain N` lists N wrong matches with what the install and the chosen click had in common (with `--learn`,
///   those of the model learnt online).
package enum AttributionSimulatorCommand {
    /// Runs the command with its arguments (the program's, without its name).
    package static func main(arguments: [String]) {
        var config = SimulationConfig()
        var fit = false, sweep = false, raw = false, learn = false, misses = false, frontier = false, explain = 0
        var minConfidence: Double?
        var families: [PopulationFamily]?
        var arguments = arguments[...]
        func value(_ name: String) -> String {
            guard let next = arguments.popFirst() else { fail("\(name) needs a value") }
            return next
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--seed":
                guard let seed = UInt64(value(argument)) else { fail("--seed takes a non-negative integer") }
                config.seed = seed
            case "--installs":
                guard let installs = Int(value(argument)), installs >= 100 else { fail("--installs takes an integer ≥ 100") }
                config.installs = installs
            case "--days":
                guard let days = Int(value(argument)), (1...30).contains(days) else { fail("--days takes 1…30") }
                config.days = days
            case "--signals":
                guard let policy = DeviceSignalsPolicy(rawValue: value(argument)) else { fail("--signals takes all, minimal or none") }
                config.installSignals = policy
            case "--families":
                switch value(argument) {
                case "training": families = PopulationFamily.training
                case "heldout": families = PopulationFamily.heldOut
                case "all": families = PopulationFamily.allCases
                default: fail("--families takes training, heldout or all")
                }
            case "--family":
                guard let family = PopulationFamily(rawValue: value(argument)) else {
                    fail("--family takes one of \(PopulationFamily.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                config = family.config(from: config)
            case "--http-only": config.missingPageSignalsShare = 1
            case "--fit": fit = true
            case "--sweep": sweep = true
            case "--raw": raw = true
            case "--learn": learn = true
            case "--misses": misses = true
            case "--frontier": frontier = true
            case "--min-confidence":
                guard let minimum = Double(value(argument)), MatchRequest.minConfidenceRange.contains(minimum) else {
                    fail("--min-confidence takes \(MatchRequest.minConfidenceRange.lowerBound)…\(MatchRequest.minConfidenceRange.upperBound)")
                }
                minConfidence = minimum
            case "--explain":
                guard let count = Int(value(argument)), count >= 0 else { fail("--explain takes a count") }
                explain = count
            case "-h", "--help":
                print("usage: AttributionSimulator [--seed N] [--installs N] [--days N] [--signals all|minimal|none] [--families training|heldout|all] [--family NAME] [--http-only] [--learn] [--min-confidence X] [--misses] [--frontier] [--fit] [--sweep] [--raw] [--explain N]")
                return
            default: fail("unknown argument \(argument)")
            }
        }

        if let families {
            print(FamilyReport(families: families, base: config, learning: learn).render())
            return
        }
        var generator = PopulationGenerator(config: config)
        let population = generator.generate()
        let matcher = AttributionMatcher(calibration: raw ? .identity : .default)
        if learn {
            var learning = Simulation.Learning()
            learning.minConfidence = minConfidence
            let (outcomes, models) = Simulation(population: population, matcher: matcher, keepsDeclinedPosteriors: misses).runLearning(learning)
            let final = models.last?.model ?? AttributionLearner.defaultPrior
            print(Report(population: population, metrics: Metrics(population: population, outcomes: outcomes),
                         matcher: AttributionMatcher(model: final, calibration: Simulation.Learning().calibration)).render())
            print(LearnedModelReport(models: models, window: config.window).render())
            if misses {
                let rule = Simulation(population: population, matcher: matcher).runRule()
                print("")
                print(MissAnalysis(population: population, ferry: outcomes, rule: rule).render())
            }
            if frontier {
                print("")
                print(Frontier(population: population, learnt: final).render())
            }
            if explain > 0 {
                print("")
                print(Explanation.wrongMatches(population: population, outcomes: outcomes, limit: explain))
            }
            return
        }
        let outcomes = Simulation(population: population, matcher: matcher).run()
        let metrics = Metrics(population: population, outcomes: outcomes)
        print(Report(population: population, metrics: metrics, matcher: matcher).render())

        if explain > 0 {
            print("")
            print(Explanation.wrongMatches(population: population, outcomes: outcomes, limit: explain))
        }

        if fit {
            print("")
            print(ModelEstimate(population: population).render())
            let samples = outcomes.compactMap { outcome -> (posterior: Double, correct: Bool)? in
                guard population.installs[outcome.install].t >= 0, outcome.tier == .probabilistic, let posterior = outcome.posterior else { return nil }
                return (posterior, outcome.correct)
            }
            let points = CalibrationFit.fit(samples)
            print("")
            print("Calibration fitted on this seed (posterior → observed precision), \(samples.count) matches:")
            print("    public static let `default` = Calibration(points: [")
            for point in points { print(String(format: "        (%.6f, %.4f),", point.posterior, point.confidence)) }
            print("    ])")
        }

        if sweep {
            print("")
            var table = TextTable(header: ["threshold", "matched", "precision", "recall", "organic false", "worst band gap"])
            for threshold in [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95] {
                var swept = matcher
                swept.model.acceptThreshold = threshold
                let result = Metrics(population: population, outcomes: Simulation(population: population, matcher: swept).run())
                let p = result.probabilistic
                table.rows.append([Format.number(threshold, digits: 2), "\(p.right + p.wrong)", Format.percent(p.precision), Format.percent(p.recall),
                                   Format.percent(p.organicFalseRate), Format.number(result.worstCalibrationGap())])
            }
            print("Acceptance threshold sweep (probabilistic tier)")
            print(table.render())
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("AttributionSimulator: \(message)\n".utf8))
        exit(2)
    }
}
