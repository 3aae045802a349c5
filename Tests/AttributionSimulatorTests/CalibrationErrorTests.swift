import FerryAPI
import FerryCore
import Foundation
import Testing
@testable import AttributionSimulation

extension SimulatorSuites {
    /// The expected calibration error, on matches whose answer is known.
    @Suite struct CalibrationErrorTests {
        @Test func twoBandsGiveTheirGapsWeightedByTheirMatches() {
            var error = CalibrationError()
            // 100 matches stated 0.92, 90 right: the band 0.90–0.95 states 0.02 too much.
            for i in 0..<100 { error.add(confidence: 0.92, correct: i < 90) }
            // 300 matches stated 0.96 or 0.98 (0.97 on average), 294 right (0.98): the band 0.95–1.00 states 0.01 too little.
            for i in 0..<300 { error.add(confidence: i.isMultiple(of: 2) ? 0.96 : 0.98, correct: i < 294) }
            #expect(error.count == 400)
            #expect(abs(error.value - (100.0 / 400 * 0.02 + 300.0 / 400 * 0.01)) < 1e-12, "\(error.value)")
        }

        @Test func theBandsRunFromFortyHundredthsToCertainty() {
            var error = CalibrationError()
            #expect(error.bands.count == 12)
            #expect(error.value.isNaN)
            error.add(confidence: 0.40, correct: true)
            error.add(confidence: 0.45, correct: true)
            error.add(confidence: 1.0, correct: true)
            error.add(confidence: 0.3999, correct: true)
            #expect(error.bands.map(\.count) == [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
            #expect(error.belowBands == 1 && error.count == 3)
            // Within a band, matches stated too low (0.86, 87% right) and too high (0.89, 88% right) offset each other:
            // the error is the band's (0.875 stated, 87.5% right).
            var mixed = CalibrationError()
            for i in 0..<200 { mixed.add(confidence: i < 100 ? 0.86 : 0.89, correct: i % 8 != 0) }
            #expect(mixed.value < 1e-12)
        }

        @Test func fewerThanAHundredMatchesSayTooLittle() {
            var error = CalibrationError()
            for _ in 0..<99 { error.add(confidence: 0.9, correct: false) }
            #expect(!error.isMeasured)
            #expect(Format.calibration(error) == "n<100")
            error.add(confidence: 0.9, correct: false)
            #expect(error.isMeasured)
            #expect(Format.calibration(error) == "0.900 (n=100)")
        }

        /// Hand-made outcomes over a generated population: the error of each segment is the one computed directly from
        /// the matches of the installs with that segment's label, and deterministic matches count nowhere.
        @Test func theMetricsSplitTheErrorByTheInstallsTrueKind() {
            let population = PopulationFamilyTests.population(.mixed)
            let confidences = [0.5, 0.72, 0.87, 0.93, 0.99]
            let outcomes = population.installs.indices.map { i in
                var outcome = InstallOutcome(install: i, tier: i.isMultiple(of: 11) ? .deterministic : .probabilistic)
                if !i.isMultiple(of: 3) {
                    outcome.matchedClick = 0
                    outcome.confidence = outcome.tier == .deterministic ? 1 : confidences[i % confidences.count]
                    outcome.correct = !i.isMultiple(of: 7)
                }
                return outcome
            }
            let metrics = Metrics(population: population, outcomes: outcomes)

            func expected(_ label: Scenario?) -> (Double, Int) {
                var bands: [Int: (n: Int, stated: Double, right: Int)] = [:]
                for outcome in outcomes where outcome.tier == .probabilistic && outcome.matchedClick != nil {
                    let install = population.installs[outcome.install]
                    guard install.t >= 0, label.map({ install.scenarios.contains($0) }) ?? true, let confidence = outcome.confidence else { continue }
                    let band = Int(((confidence - 0.4) / 0.05).rounded(.down))
                    bands[band, default: (0, 0, 0)].n += 1
                    bands[band, default: (0, 0, 0)].stated += confidence
                    if outcome.correct { bands[band, default: (0, 0, 0)].right += 1 }
                }
                let n = bands.values.reduce(0) { $0 + $1.n }
                let ece = bands.values.reduce(0.0) { $0 + Double($1.n) / Double(n) * abs($1.stated / Double($1.n) - Double($1.right) / Double($1.n)) }
                return (ece, n)
            }
            let (all, n) = expected(nil)
            #expect(metrics.calibration.count == n && n > 500)
            #expect(abs(metrics.calibration.value - all) < 1e-12)
            for segment in CalibrationSegment.allCases {
                let (ece, count) = expected(segment.scenario)
                #expect(count > 20, "\(segment): \(count) matches")
                #expect(metrics.calibration(segment).count == count, "\(segment)")
                #expect(abs(metrics.calibration(segment).value - ece) < 1e-12, "\(segment)")
            }
        }
    }
}
