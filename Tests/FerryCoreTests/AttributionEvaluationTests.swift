import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

/// The report of an app's attribution model: labelled installs answered again without their token, by segment, with
/// calibration bands, the text an operator reads and the chart.
@Suite(.takesTurns) struct AttributionEvaluationTests {
    typealias M = AttributionMatcherTests
    typealias L = AttributionLearnerTests

    /// A learning app's observations: households found 20 minutes to 3 hours after their click, one whose click was
    /// not among the candidates while a stranger's click from the same address was (any match is wrong), people who
    /// changed network, one who shares nothing with their click, organic Android installs and unlabelled ones.
    static func population() -> [LearningObservation] {
        var observations: [LearningObservation] = []
        for (n, delay) in [1_200.0, 1_800, 2_400, 3_600, 5_400, 7_200, 9_000, 10_800].enumerated() {
            let (install, click) = L.pair(n, delay: delay)
            observations.append(LearningObservation(install: install, candidates: L.candidates([click]), window: M.window, label: .click(click)))
        }
        // The install came from a click the store did not offer; a click of another phone of the house, made 10 minutes
        // before, was offered.
        let (install, truth) = L.pair(20, delay: 4 * 3600)
        var stranger = truth
        stranger.clickID = "clk_stranger"
        stranger.createdAt = M.now.addingTimeInterval(-600)
        observations.append(LearningObservation(install: install, candidates: L.candidates([stranger]), window: M.window, label: .click(truth)))
        // Changed network: only the screen and time zone tie them.
        for n in 30..<32 {
            let (install, click) = L.pair(n, delay: 45 * 60)
            var moved = click
            moved.addressHash = "cell-\(n)"
            moved.networkHash = "carrier"
            observations.append(LearningObservation(install: install, candidates: CandidateSet(clicks: [moved], clicksInWindow: 2_000, sameAddressClicks: 0,
                                                                                               sameNetworkClicks: 0),
                                                    window: M.window, label: .click(moved)))
        }
        // Nothing shared: the store offered nothing.
        let (lost, lostClick) = L.pair(40, delay: 3600)
        var elsewhere = lostClick
        elsewhere.addressHash = "far"
        elsewhere.networkHash = "far"
        elsewhere.timeZone = "Asia/Tokyo"
        observations.append(LearningObservation(install: lost, candidates: L.candidates([]), window: M.window, label: .click(elsewhere)))
        // Organic Android installs, one from an address with a recent Android click.
        var android = M.phone()
        android.platform = "android"
        for n in 50..<52 {
            let install = InstallEvidence(addressHash: "addr-\(n)", networkHash: "net-\(n)", signals: android, at: M.now)
            let nearby = ClickEvidence(clickID: "clk_\(n)", linkID: "lnk_a", createdAt: M.now.addingTimeInterval(-900), addressHash: "addr-\(n)",
                                       networkHash: "net-\(n)", screenWidth: 393, screenHeight: 852, screenScale: 3, timeZone: "America/New_York",
                                       languages: ["en-US"])
            observations.append(LearningObservation(install: install, candidates: L.candidates(n == 50 ? [nearby] : []), window: M.window, label: .organic))
        }
        for n in 60..<65 {
            let (install, click) = L.pair(n, delay: 600)
            observations.append(LearningObservation(install: install, candidates: L.candidates([click]), window: M.window, label: .unlabelled))
        }
        return observations
    }

    @Test func labelledInstallsAreAnsweredAgainWithoutTheirTokenBySegment() {
        let matcher = AttributionMatcher(model: AttributionLearner.defaultPrior, calibration: .identity)
        let observations = Self.population()
        let evaluation = AttributionEvaluation(matcher: matcher, observations: observations, minConfidence: nil)
        #expect(evaluation.overall.labelled == 12)
        #expect(evaluation.segments[.household]?.labelled == 9 && evaluation.segments[.switcher]?.labelled == 2)
        #expect(evaluation.segments[.unreachable]?.labelled == 1 && evaluation.segments[.sharedAddress] == nil && evaluation.segments[.network] == nil)
        // Each figure is what the matcher answers for the observation, at the matcher's own threshold and at 0.40.
        var answered = 0, correct = 0, lowest = 0
        for observation in observations {
            guard case .click(let truth) = observation.label else { continue }
            if case .matched(let clickID, _, _) = matcher.match(install: observation.install, candidates: observation.candidates, window: observation.window) {
                answered += 1
                if clickID == truth.clickID { correct += 1 }
            }
            if case .matched = matcher.match(install: observation.install, candidates: observation.candidates, window: observation.window, minConfidence: 0.4) {
                lowest += 1
            }
        }
        #expect(evaluation.overall.answered == answered && evaluation.overall.correct == correct)
        #expect(evaluation.overall.calibration.count + evaluation.overall.calibration.belowBands == lowest)
        // The households are found, the one whose click was not offered is answered wrong, and nothing is found for
        // the install that shares nothing.
        let household = try! #require(evaluation.segments[.household])
        #expect(household.correct == 8 && household.answered == 9 && household.precision == 8.0 / 9)
        #expect(evaluation.segments[.unreachable]?.answered == 0 && evaluation.segments[.unreachable]?.recall == 0)
        #expect(evaluation.overall.recall == Double(correct) / 12)
        // The organic install with an Android click on its address is the only one that can be matched.
        #expect(evaluation.organic == 2 && evaluation.organicAttributed <= 1)
        // The segments add up to the whole.
        #expect(evaluation.segments.values.reduce(0) { $0 + $1.labelled } == evaluation.overall.labelled)
        #expect(evaluation.segments.values.reduce(0) { $0 + $1.calibration.count } == evaluation.overall.calibration.count)
    }

    @Test func aStricterMinimumOnlyDropsMatchesStatedBelowIt() {
        let matcher = AttributionMatcher(model: AttributionLearner.defaultPrior, calibration: .identity)
        let loose = AttributionEvaluation(matcher: matcher, observations: Self.population(), minConfidence: 0.4)
        let strict = AttributionEvaluation(matcher: matcher, observations: Self.population(), minConfidence: 0.99)
        #expect(strict.overall.answered <= loose.overall.answered && strict.overall.correct <= loose.overall.correct)
        // Calibration is over every match at 0.40, whatever the minimum.
        #expect(strict.overall.calibration == loose.overall.calibration)
        #expect(loose.overall.answered == loose.overall.calibration.count)
    }

    @Test func calibrationBandsAndTheirError() {
        var error = CalibrationError()
        #expect(error.value.isNaN && !error.isMeasured)
        error.add(confidence: 0.42, correct: true)
        error.add(confidence: 0.44, correct: false)
        error.add(confidence: 1.0, correct: true)
        error.add(confidence: 0.3, correct: true)
        #expect(error.count == 3 && error.belowBands == 1)
        #expect(error.bands.first?.count == 2 && abs(error.bands.first!.meanConfidence - 0.43) < 1e-12 && error.bands.first?.precision == 0.5)
        #expect(error.bands.last?.count == 1, "1.0 falls in the last band")
        // (2/3)·|0.43 − 0.5| + (1/3)·|1 − 1|
        #expect(abs(error.value - 2.0 / 3 * 0.07) < 1e-12)
    }

    @Test func theReportReadsAsTextAndTheChartIsPlainSVG() {
        let matcher = AttributionMatcher(model: AttributionLearner.defaultPrior, calibration: .identity)
        let evaluation = AttributionEvaluation(matcher: matcher, observations: Self.population(), minConfidence: 0.85)
        var fitted = AttributionLearner.defaultPrior
        fitted.clickedShare = 0.37
        fitted.unrelatedDelays = UnrelatedDelays(relative: [1.6, 1.55, 1.5, 1.45, 1.3, 1.1, 0.9, 0.85])
        let report = AttributionReport(
            appID: "app_1", environment: .live, model: .learned,
            active: .init(version: 3, createdAt: M.now, status: "active", observations: 1_234_567),
            parameters: AttributionReport.parameters(prior: AttributionLearner.defaultPrior, fitted: fitted, window: M.window),
            observations: .init(Self.population(), oldest: M.now.addingTimeInterval(-86_400)), evaluation: evaluation,
            versions: [.init(version: 3, createdAt: M.now, status: "active", observations: 1_234_567),
                       .init(version: 2, createdAt: M.now.addingTimeInterval(-21_600), status: "superseded", observations: 900)])
        let text = report.text
        #expect(text.hasPrefix("Attribution model of app_1 (live): answers with the learned model; version 3, fitted 2026-01-05 20:00 UTC on 1,234,567 observations\n"))
        #expect(text.contains("Observations read since 2026-01-04 20:00 UTC: 19 — labelled 12, organic 2, unlabelled 5"))
        #expect(text.contains("installs from a click, iOS") && text.contains("50.0%") && text.contains("37.0%"))
        #expect(text.contains("Accuracy on labelled installs at minConfidence 0.85"))
        // How unrelated clicks' delays spread: even for the prior, learnt for the fitted model.
        let unrelated = text.split(separator: "\n").filter { $0.contains("unrelated clicks") }
        #expect(unrelated.count == UnrelatedDelays.starts.count)
        #expect(unrelated.first.map { $0.contains("under 1 min") && $0.contains("even") && $0.contains("1.60×") } == true, "\(unrelated)")
        let household = evaluation.segments[.household]!
        #expect(text.contains("household address") && text.contains("changed network") && text.contains("nothing shared"))
        #expect(text.split(separator: "\n").contains { $0.hasPrefix("  household address") && $0.contains(" \(household.labelled) ") })
        #expect(text.contains("organic installs (Play Store referrer without a click) attributed to a click: \(evaluation.organicAttributed) of 2"))
        #expect(text.contains("2026-01-05 14:00 UTC") && text.contains("superseded"))
        #expect(!text.split(separator: "\n").contains { $0.hasSuffix(" ") })

        let svg = CalibrationChart.svg(evaluation)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.hasSuffix("</svg>"))
        #expect(!svg.contains("<script") && !svg.contains("style=") && !svg.contains("href"))
        // A dot per band with matches, in every series, and a legend entry per series.
        let series = [evaluation.overall.calibration] + AttributionEvaluation.Segment.allCases.compactMap { evaluation.segments[$0]?.calibration }.filter { $0.count > 0 }
        let dots = series.reduce(0) { $0 + $1.bands.filter { $0.count > 0 }.count }
        #expect(svg.components(separatedBy: "<circle").count - 1 == dots + series.count)
        #expect(svg.contains("household address (ECE "))
    }

    @Test func countsAndDurationsReadAsPeopleWriteThem() {
        #expect(AttributionReport.count(0) == "0" && AttributionReport.count(999) == "999" && AttributionReport.count(1_000) == "1,000")
        #expect(AttributionReport.count(1_234_567) == "1,234,567" && AttributionReport.count(-4_200) == "-4,200")
        #expect(AttributionReport.duration(30) == "30 s" && AttributionReport.duration(600) == "10 min" && AttributionReport.duration(5_400) == "1.5 h")
    }
}
