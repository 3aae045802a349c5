import FerryAPI
import FerryCore
import Foundation

/// The figures of one run, over the installs after the warm-up day.
struct Metrics {
    typealias Band = CalibrationError.Band

    struct Tally {
        var installs = 0
        var clicked = 0
        var clickedInWindow = 0
        var organic = 0
        var right = 0
        var wrong = 0
        var organicMatched = 0
        var declined = 0
        var precision: Double { right + wrong == 0 ? .nan : Double(right) / Double(right + wrong) }
        var recall: Double { clicked == 0 ? .nan : Double(right) / Double(clicked) }
        var recallInWindow: Double { clickedInWindow == 0 ? .nan : Double(right) / Double(clickedInWindow) }
        var organicFalseRate: Double { organic == 0 ? .nan : Double(organicMatched) / Double(organic) }
    }

    var measured = 0
    var clickCaused = 0
    var organicInstalls = 0
    var deterministicSignals = 0
    var deterministicMatched = 0
    var deterministicCorrect = 0
    var deterministicFellThrough = 0
    var probabilistic = Tally()
    /// The probabilistic tier on iOS installs only, and the click-caused iOS installs attributed right by either tier.
    var iOSProbabilistic = Tally()
    var iOSClickCaused = 0
    var iOSDeterministicCorrect = 0
    var wrongOrganic = 0
    var wrongRightLink = 0
    var wrongOtherLink = 0
    var declines: [MatchOutcome.DeclineReason: Int] = [:]
    var trueClickOffered = 0
    /// Click-caused installs (click inside the window) that came from their click's network, and how many were matched right.
    var stayedOnNetwork = 0
    var stayedOnNetworkRight = 0
    var bands: [Band] = []
    /// Expected calibration error of the probabilistic matches, all of them and by the true kind of install.
    var calibration = CalibrationError()
    var segmentCalibration: [CalibrationSegment: CalibrationError] = [:]
    var scenarios: [(Scenario, Tally)] = []
    /// Why click-caused installs whose click was inside the window were not matched to it.
    var misses: [String: Int] = [:]

    static let bandEdges: [Double] = [0, 0.75, 0.80, 0.85, 0.90, 0.95, 1.0000001]

    init(population: Population, outcomes: [InstallOutcome]) {
        bands = zip(Self.bandEdges, Self.bandEdges.dropFirst()).map { Band(low: $0, high: $1) }
        var perScenario: [Scenario: Tally] = [:]
        let window = population.config.window
        for outcome in outcomes {
            let install = population.installs[outcome.install]
            guard install.t >= 0 else { continue }  // warm-up
            measured += 1
            let truthDelay: Double? = if case .clicked(_, let delay) = install.truth { delay } else { nil }
            let onIOS = population.devices[install.device].platform == .iOS
            if truthDelay != nil { clickCaused += 1 } else { organicInstalls += 1 }
            if truthDelay != nil, onIOS { iOSClickCaused += 1 }
            if install.deterministic != nil { deterministicSignals += 1 }
            if outcome.tier == .deterministic {
                deterministicMatched += 1
                if outcome.correct { deterministicCorrect += 1 }
                if outcome.correct, onIOS { iOSDeterministicCorrect += 1 }
                continue
            }
            if outcome.tokenClickTaken { deterministicFellThrough += 1 }
            if outcome.trueClickOffered { trueClickOffered += 1 }
            if let truthDelay, truthDelay <= window, case .clicked(let index, _) = install.truth,
               population.clicks[index].endpoint.network == install.endpoint.network, population.clicks[index].platform != .desktop {
                stayedOnNetwork += 1
                if outcome.correct { stayedOnNetworkRight += 1 }
            }

            func add(_ tally: inout Tally) {
                tally.installs += 1
                if let truthDelay {
                    tally.clicked += 1
                    if truthDelay <= window { tally.clickedInWindow += 1 }
                } else {
                    tally.organic += 1
                }
                if outcome.matchedClick != nil {
                    if outcome.correct { tally.right += 1 } else { tally.wrong += 1 }
                    if truthDelay == nil { tally.organicMatched += 1 }
                } else {
                    tally.declined += 1
                }
            }
            add(&probabilistic)
            if onIOS { add(&iOSProbabilistic) }
            for scenario in install.scenarios { add(&perScenario[scenario, default: Tally()]) }

            if outcome.matchedClick != nil, let confidence = outcome.confidence {
                if !outcome.correct {
                    if truthDelay == nil { wrongOrganic += 1 } else if outcome.rightLinkOtherDevice { wrongRightLink += 1 } else { wrongOtherLink += 1 }
                }
                bands.add(confidence: confidence, correct: outcome.correct)
                calibration.add(confidence: confidence, correct: outcome.correct)
                for segment in CalibrationSegment.allCases where install.scenarios.contains(segment.scenario) {
                    segmentCalibration[segment, default: CalibrationError()].add(confidence: confidence, correct: outcome.correct)
                }
            }
            if let reason = outcome.decline { declines[reason, default: 0] += 1 }
            if let truthDelay, truthDelay <= window, !outcome.correct, case .clicked(let index, _) = install.truth {
                let click = population.clicks[index]
                let reason: String
                if outcome.trueClickOffered {
                    reason = outcome.matchedClick != nil ? "offered, another click chosen" : "offered, declined (\(outcome.decline?.rawValue ?? "?"))"
                } else if click.platform == .desktop {
                    reason = "not offered: iPad click looked like a Mac"
                } else if click.t > install.t {
                    reason = "not offered: click after the launch"
                } else if click.endpoint.network != install.endpoint.network && click.fingerprint == nil {
                    reason = "not offered: network changed, click page sent no signals"
                } else if click.endpoint.network != install.endpoint.network, onIOS, population.config.installSignals != .all {
                    reason = "not offered: network changed, the app sent no screen and time zone"
                } else if click.endpoint.network != install.endpoint.network {
                    reason = "not offered: network changed, fingerprint beyond the per-key limit"
                } else {
                    reason = "not offered: other (consumed or beyond the limit)"
                }
                misses[reason, default: 0] += 1
            }
        }
        scenarios = Scenario.allCases.compactMap { scenario in perScenario[scenario].map { (scenario, $0) } }
    }

    /// The largest gap between stated confidence and observed precision over bands with enough matches to say.
    func worstCalibrationGap(minimumCount: Int = 50) -> Double {
        bands.filter { $0.count >= minimumCount }.map { abs($0.meanConfidence - $0.precision) }.max() ?? 0
    }

    /// The calibration error of the matches of installs of one true kind (empty when there were none).
    func calibration(_ segment: CalibrationSegment) -> CalibrationError {
        segmentCalibration[segment] ?? CalibrationError()
    }
}

/// The true kinds of install that calibration is judged on, beside all matches together.
enum CalibrationSegment: String, CaseIterable, Sendable {
    case household, carrierNAT = "CGNAT", office, switchers

    /// The scenario label that puts an install in the segment.
    var scenario: Scenario {
        switch self {
        case .household: .householdWiFi
        case .carrierNAT: .cgnat
        case .office: .office
        case .switchers: .networkSwitch
        }
    }
}

enum Format {
    static func percent(_ value: Double, digits: Int = 2) -> String {
        value.isNaN ? "—" : String(format: "%.\(digits)f%%", value * 100)
    }

    static func number(_ value: Double, digits: Int = 3) -> String {
        value.isNaN ? "—" : String(format: "%.\(digits)f", value)
    }

    static func signed(_ value: Double, digits: Int = 3) -> String {
        value.isNaN ? "—" : String(format: "%+.\(digits)f", value)
    }

    /// `0.012 (n=840)`, or `n<100` when there are too few matches to say.
    static func calibration(_ error: CalibrationError) -> String {
        error.isMeasured ? "\(number(error.value)) (n=\(error.count))" : "n<\(CalibrationError.minimumCount)"
    }
}

/// Writes the report of a run.
struct Report {
    let population: Population
    let metrics: Metrics
    let matcher: AttributionMatcher

    /// A calibration band's range, its last band ending at 1.00.
    static func label(_ band: CalibrationError.Band) -> String {
        band.high > 1 ? String(format: "%.2f–1.00", band.low) : String(format: "%.2f–%.2f", band.low, band.high)
    }

    func render() -> String {
        let config = population.config
        let m = metrics
        var out: [String] = []
        let clicksByPlatform = Dictionary(grouping: population.clicks, by: \.platform).mapValues(\.count)
        out.append("Ferry attribution simulator — seed \(config.seed), \(config.installs) installs over \(config.days) days "
            + "(after 1 day of warm-up), window \(Int(config.window / 3600)) h, iOS apps' signals: \(config.installSignals.rawValue)")
        out.append("")
        out.append("Population")
        out.append("  devices \(population.devices.count), households \(population.households.count), offices \(population.offices.count)")
        out.append("  clicks \(population.clicks.count) (iOS \(clicksByPlatform[.iOS, default: 0]), Android \(clicksByPlatform[.android, default: 0]), "
            + "iPad desktop-mode \(clicksByPlatform[.desktop, default: 0]))")
        out.append("  measured installs \(m.measured): click-caused \(m.clickCaused), organic \(m.organicInstalls)")
        var buckets: [(String, ClosedRange<Double>, Int, Int)] = [("< 1 h", 0...3600, 0, 0), ("1–6 h", 3600...21_600, 0, 0),
                                                                   ("6–24 h", 21_600...86_400, 0, 0), ("> 24 h", 86_400...Double.infinity, 0, 0)]
        for install in population.installs where install.t >= 0 {
            guard case .clicked(let index, let delay) = install.truth, let b = buckets.firstIndex(where: { $0.1.contains(delay) }) else { continue }
            buckets[b].2 += 1
            if population.clicks[index].endpoint.network != install.endpoint.network { buckets[b].3 += 1 }
        }
        out.append("  click-to-launch delay of click-caused installs, and how many changed network in between:")
        out.append("    " + buckets.map { "\($0.0): \($0.2) (\(Format.percent(Double($0.3) / Double(max($0.2, 1)), digits: 0)) switched)" }.joined(separator: ", "))
        out.append("")
        out.append("Deterministic tier (click token, Play Store referrer)")
        out.append("  installs with a token or referrer   \(m.deterministicSignals)")
        out.append("  matched                             \(m.deterministicMatched)")
        out.append("  precision                           \(Format.percent(m.deterministicMatched == 0 ? .nan : Double(m.deterministicCorrect) / Double(m.deterministicMatched)))")
        out.append("  fell through (click already taken)  \(m.deterministicFellThrough)")
        out.append("")
        let p = m.probabilistic
        out.append("Probabilistic tier")
        out.append("  installs                            \(p.installs) (click-caused \(p.clicked), of which click inside the window \(p.clickedInWindow); organic \(p.organic))")
        out.append("  matched                             \(p.right + p.wrong) (right \(p.right), wrong \(p.wrong): organic \(m.wrongOrganic), "
            + "right link but another device \(m.wrongRightLink), another link \(m.wrongOtherLink))")
        out.append("  precision                           \(Format.percent(p.precision))")
        out.append("  recall (all click-caused)           \(Format.percent(p.recall))")
        out.append("  recall (click inside the window)    \(Format.percent(p.recallInWindow))")
        out.append("  recall (click inside the window, install on the click's network)  "
            + "\(Format.percent(m.stayedOnNetwork == 0 ? .nan : Double(m.stayedOnNetworkRight) / Double(m.stayedOnNetwork))) of \(m.stayedOnNetwork)")
        out.append("  organic false attribution           \(Format.percent(p.organicFalseRate))")
        out.append("  true click among the candidates     \(Format.percent(p.clicked == 0 ? .nan : Double(m.trueClickOffered) / Double(p.clicked)))")
        let declines = MatchOutcomeReasons.all.map { "\($0.rawValue) \(m.declines[$0, default: 0])" }.joined(separator: ", ")
        out.append("  declined                            \(p.declined) (\(declines))")
        out.append("  click-caused installs (click inside the window) not matched to their click:")
        for (reason, count) in m.misses.sorted(by: { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
            out.append("    \(reason): \(count)")
        }
        out.append("")
        out.append("Both tiers")
        let attributed = m.deterministicCorrect + p.right
        out.append("  click-caused installs attributed to their click (coverage)  \(attributed) of \(m.clickCaused): "
            + Format.percent(m.clickCaused == 0 ? .nan : Double(attributed) / Double(m.clickCaused)))
        out.append("")
        let ios = m.iOSProbabilistic, iOSAttributed = m.iOSDeterministicCorrect + ios.right
        out.append("iOS installs (what FerryKit's signals choice changes)")
        out.append("  probabilistic precision             \(Format.percent(ios.precision)) (\(ios.right + ios.wrong) matched)")
        out.append("  probabilistic recall                \(Format.percent(ios.recall)) (click inside the window: \(Format.percent(ios.recallInWindow)))")
        out.append("  organic false attribution           \(Format.percent(ios.organicFalseRate))")
        out.append("  coverage (both tiers)               \(iOSAttributed) of \(m.iOSClickCaused): "
            + Format.percent(m.iOSClickCaused == 0 ? .nan : Double(iOSAttributed) / Double(m.iOSClickCaused)))
        out.append("")
        out.append("Calibration (probabilistic matches by stated confidence)")
        var calibration = TextTable(header: ["band", "matches", "mean stated", "observed precision", "difference"])
        for band in m.bands where band.low >= matcher.model.acceptThreshold - 1e-9 || band.count > 0 {
            calibration.rows.append([Self.label(band), "\(band.count)", Format.number(band.meanConfidence), Format.number(band.precision),
                                     Format.signed(band.precision - band.meanConfidence)])
        }
        out.append(calibration.render())
        out.append("  worst |difference| over bands with ≥ 50 matches: \(Format.number(m.worstCalibrationGap()))")
        out.append("  expected calibration error (bands of 0.05 from 0.40): all \(Format.calibration(m.calibration)), "
            + CalibrationSegment.allCases.map { "\($0.rawValue) \(Format.calibration(m.calibration($0)))" }.joined(separator: ", "))
        var bySegment = TextTable(header: ["kind", "band", "matches", "mean stated", "observed precision", "difference"])
        for segment in CalibrationSegment.allCases {
            for band in m.calibration(segment).bands where band.count > 0 {
                    bySegment.rows.append([segment.rawValue, Self.label(band), "\(band.count)", Format.number(band.meanConfidence), Format.number(band.precision),
                                       Format.signed(band.precision - band.meanConfidence)])
            }
        }
        out.append("  by the installs' true kind:")
        out.append(bySegment.render())
        out.append("")
        out.append("Per scenario (probabilistic tier; an install can be in several rows)")
        var scenarios = TextTable(header: ["scenario", "installs", "click-caused", "organic", "right", "wrong", "precision", "recall", "organic matched"])
        for (scenario, t) in m.scenarios {
            scenarios.rows.append([scenario.rawValue, "\(t.installs)", "\(t.clicked)", "\(t.organic)", "\(t.right)", "\(t.wrong)",
                                   Format.percent(t.precision, digits: 1), Format.percent(t.recall, digits: 1),
                                   Format.percent(t.organicFalseRate, digits: 2)])
        }
        out.append(scenarios.render())
        return out.joined(separator: "\n")
    }
}

enum MatchOutcomeReasons {
    static let all: [MatchOutcome.DeclineReason] = [.noCandidates, .tooWeak, .ambiguous]
}

/// Fits a monotone map from posterior to observed precision (pool-adjacent-violators over equal-count bins).
enum CalibrationFit {
    static func fit(_ samples: [(posterior: Double, correct: Bool)], binSize: Int = 400) -> [(posterior: Double, confidence: Double)] {
        let sorted = samples.sorted { $0.posterior < $1.posterior }
        guard !sorted.isEmpty else { return [] }
        // Equal-count bins: (mean posterior, mean correctness, weight).
        var blocks: [(x: Double, y: Double, w: Double)] = []
        var start = 0
        while start < sorted.count {
            var end = min(sorted.count, start + binSize)
            if sorted.count - end < binSize / 2 { end = sorted.count }
            let slice = sorted[start..<end]
            let w = Double(slice.count)
            blocks.append((slice.reduce(0) { $0 + $1.posterior } / w, Double(slice.filter(\.correct).count) / w, w))
            start = end
        }
        // Pool adjacent violators.
        var pooled: [(x: Double, y: Double, w: Double)] = []
        for block in blocks {
            pooled.append(block)
            while pooled.count > 1, pooled[pooled.count - 2].y > pooled[pooled.count - 1].y {
                let b = pooled.removeLast(), a = pooled.removeLast()
                let w = a.w + b.w
                pooled.append(((a.x * a.w + b.x * b.w) / w, (a.y * a.w + b.y * b.w) / w, w))
            }
        }
        // Knots at distinct posteriors (the last bins crowd against 1), and a probabilistic answer never states
        // certainty: 1 is for deterministic matches.
        var points: [(posterior: Double, confidence: Double)] = []
        for block in pooled {
            let x = (block.x * 1_000_000).rounded() / 1_000_000, y = min(maximumConfidence, (block.y * 10_000).rounded() / 10_000)
            if let last = points.last, last.posterior == x { points[points.count - 1].confidence = max(last.confidence, y) } else { points.append((x, y)) }
        }
        return points
    }

    static let maximumConfidence = 0.998
}
