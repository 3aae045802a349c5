import FerryAPI
import FerryCore
import Foundation
import Testing
@testable import AttributionSimulation

extension SimulatorSuites {
    /// Where the learnt model and the unambiguous-only rule part ways, on a small population replayed both ways.
    @Suite struct MissAnalysisTests {
        @Test func itCountsExactlyTheInstallsOneFindsAndTheOtherMisses() throws {
            let population = Population.smallIndependentHTTPOnly()
            let plain = Simulation(population: population, matcher: AttributionMatcher())
            let rule = plain.runRule()
            let ferry = Simulation(population: population, matcher: AttributionMatcher(), keepsDeclinedPosteriors: true).runLearning().outcomes
            let analysis = MissAnalysis(population: population, ferry: ferry, rule: rule)
            let lost = analysis.lost, won = analysis.won
            #expect(!lost.isEmpty && !won.isEmpty)
            for pair in lost {
                #expect(pair.rule.correct && !pair.ferry.correct && pair.ferry.install == pair.rule.install)
                #expect(pair.ferry.tier == .probabilistic && population.installs[pair.ferry.install].t >= 0)
            }
            for pair in won { #expect(pair.ferry.correct && !pair.rule.correct) }
            // Every install counted once in each table, by what Ferry said.
            let byAnswer = analysis.counts(lost) { outcome, _ in MissAnalysis.answerAndPosterior(outcome) }
            #expect(byAnswer.values.reduce(0, +) == lost.count)
            #expect(analysis.render().contains("Ferry does not: \(lost.count); the other way round: \(won.count)"))
            // A decline states its likeliest candidate's posterior when it had candidates (but not an organic Android
            // install its Play Store referrer answered, which never reached the matcher), and only when asked.
            let declined = ferry.filter { $0.decline == .tooWeak && $0.candidates > 0 }
            #expect(declined.filter { $0.declinedPosterior != nil }.count > declined.count / 2)
            for outcome in declined {
                #expect(outcome.posterior == nil)
                if let posterior = outcome.declinedPosterior {
                    #expect(posterior >= 0 && posterior < 1)
                } else {
                    let install = population.installs[outcome.install]
                    #expect(population.devices[install.device].platform == .android && install.truth.clickIndex == nil)
                }
            }
            #expect(plain.run().allSatisfy { $0.declinedPosterior == nil })
        }
    }
}
