import FerryAPI
import FerryCore
import Foundation
import Testing
@testable import AttributionSimulation

extension SimulatorSuites {
    /// What any threshold could reach: the learnt model's curve and the oracle's, fitted to the population's truth.
    @Suite struct FrontierTests {
        @Test func theOracleIsFittedToTheTruthAndEachCurveCoversEveryThreshold() throws {
            let population = Population.smallIndependentHTTPOnly()
            let oracle = Frontier.oracleModel(population: population, learner: AttributionLearner())
            // Told the truth, the learner knows that an install from a home with one click came from it and one from an
            // address without clicks mostly did not (the prior says 0.5 for both).
            let iOS = try #require(oracle.clickedShareByAddress?.first)
            #expect(iOS[MatchModel.addressBucket(1)] > 0.8 && iOS[MatchModel.addressBucket(0)] < 0.4, "\(iOS)")

            let learnt = try #require(Simulation(population: population, matcher: AttributionMatcher()).runLearning().models.last?.model)
            let frontier = Frontier(population: population, learnt: learnt)
            for curve in [frontier.learned, frontier.oracle] {
                #expect(curve.map(\.threshold) == Frontier.thresholds)
                #expect(curve.allSatisfy { $0.metrics.right + $0.metrics.wrong > 0 })
            }
            // The surest threshold matches no more than the loosest, on either curve.
            #expect(frontier.oracle.last!.metrics.right + frontier.oracle.last!.metrics.wrong
                    <= frontier.oracle.first!.metrics.right + frontier.oracle.first!.metrics.wrong)
            // The best recall within the goals is a point that meets them.
            if let best = frontier.bestRecall(frontier.oracle) {
                #expect(frontier.oracle.contains { $0.metrics.recall == best && $0.metrics.precision >= 0.95
                    && $0.metrics.organicFalseRate <= FamilyReport.organicFalseGoal })
            }
            #expect(frontier.render().contains("the rule's recall"))
            // Each model's calibration is judged on the matches it makes at its own thresholds. The oracle learns none (it
            // has no unlabelled installs), so it makes the matches of its curve's point at the fixed threshold.
            #expect(frontier.calibration.map(\.name) == ["learnt", "oracle"])
            let oracleAtFixed = try #require(frontier.oracle.first { $0.threshold == MatchModel().acceptThreshold })
            let oracleMatches = frontier.calibration[1].metrics.probabilistic
            #expect(oracleMatches.right + oracleMatches.wrong == oracleAtFixed.metrics.right + oracleAtFixed.metrics.wrong)
            #expect(frontier.calibration.allSatisfy { $0.metrics.calibration.count > 0 && $0.metrics.calibration.value.isFinite })
            #expect(frontier.render().contains("oracle: all "))
        }
    }
}
