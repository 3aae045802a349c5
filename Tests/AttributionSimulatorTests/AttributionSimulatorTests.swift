import FerryAPI
import FerryCore
import Foundation
import Testing
@testable import AttributionSimulation

extension SimulatorSuites {
    /// A small population through the real matcher: the aims, loosely (the figures in docs/attribution.md come from
    /// the full run), and the run's determinism.
    @Suite struct AttributionSimulatorTests {
        static func run(seed: UInt64, signals: DeviceSignalsPolicy = .all) -> (Population, Metrics) {
            var config = SimulationConfig()
            config.seed = seed
            config.installSignals = signals
            config.installs = 3_000
            config.days = 3
            var generator = PopulationGenerator(config: config)
            let population = generator.generate()
            let outcomes = Simulation(population: population, matcher: AttributionMatcher()).run()
            return (population, Metrics(population: population, outcomes: outcomes))
        }

        @Test func smallPopulationMeetsTheAimsLoosely() {
            let (population, metrics) = Self.run(seed: 7)
            #expect(metrics.measured > 2_000)
            #expect(population.clicks.count > metrics.measured)
            // Deterministic tiers: every token and referrer maps back to its own click.
            #expect(metrics.deterministicMatched > 0)
            #expect(metrics.deterministicCorrect == metrics.deterministicMatched)
            let p = metrics.probabilistic
            #expect(p.clicked > 500 && p.organic > 500)
            #expect(p.precision >= 0.95)
            #expect(p.organicFalseRate <= 0.02)
            #expect(p.recallInWindow >= 0.6)
            #expect(metrics.worstCalibrationGap(minimumCount: 200) <= 0.08)
        }

        @Test func sameSeedSameFigures() {
            let (a, first) = Self.run(seed: 11)
            let (b, second) = Self.run(seed: 11)
            #expect(a.clicks.map(\.evidence) == b.clicks.map(\.evidence))
            #expect(first.probabilistic.right == second.probabilistic.right)
            #expect(first.probabilistic.wrong == second.probabilistic.wrong)
            let (_, other) = Self.run(seed: 12)
            #expect(other.probabilistic.right != first.probabilistic.right || other.measured != first.measured)
        }

        @Test func candidateIndexFollowsTheStoreRules() {
            let (population, _) = Self.run(seed: 3)
            var index = ClickIndex(clicks: population.clicks, start: population.config.start)
            guard let install = population.installs.first(where: { $0.t > 86_400 && $0.truth.clickIndex != nil }) else {
                Issue.record("no click-caused install")
                return
            }
            let at = population.date(install.t)
            let evidence = InstallEvidence(addressHash: install.endpoint.address, networkHash: install.endpoint.network, signals: install.signals, at: at)
            let query = CandidateQuery(appID: "app", environment: .live, install: evidence, window: population.config.window)
            let before = index.candidates(query, platform: install.signals.platform ?? "ios", now: at)
            for click in before.clicks {
                #expect(click.createdAt >= query.since && click.createdAt <= at)
                #expect(click.addressHash == evidence.addressHash || click.networkHash == evidence.networkHash
                        || DeviceFingerprint.key(width: click.screenWidth, height: click.screenHeight, scale: click.screenScale, timeZone: click.timeZone) == query.fingerprint)
            }
            #expect(before.clicks.count <= 3 * CandidateQuery.limitPerKey)
            // A consumed click is never offered again, but still counts in the crowd.
            guard let first = before.clicks.first, let position = population.clicks.firstIndex(where: { $0.evidence.clickID == first.clickID }) else { return }
            index.consume(position)
            let after = index.candidates(query, platform: install.signals.platform ?? "ios", now: at)
            #expect(!after.clicks.contains { $0.clickID == first.clickID })
            #expect(after.clicksInWindow == before.clicksInWindow)
            #expect(after.sameAddressClicks == before.sameAddressClicks)
        }

        @Test func fewerSignalsFromTheAppMatchFewerInstallsOnTheSamePopulation() {
            let runs = DeviceSignalsPolicy.allCases.map { Self.run(seed: 7, signals: $0) }
            let (all, minimal, none) = (runs[0].1, runs[1].1, runs[2].1)
            // The population is the same: only what iOS installs send changes.
            #expect(runs[0].0.clicks.map(\.evidence) == runs[2].0.clicks.map(\.evidence))
            #expect(all.iOSClickCaused == none.iOSClickCaused && all.iOSClickCaused > 300)
            #expect(all.iOSProbabilistic.recall > minimal.iOSProbabilistic.recall)
            #expect(minimal.iOSProbabilistic.recall > none.iOSProbabilistic.recall)
            for metrics in [all, minimal, none] { #expect(metrics.iOSProbabilistic.precision >= 0.9) }
        }

        @Test func anInstallThatDoesNotSayItsPlatformIsOfferedTheClicksOfBoth() {
            let (population, _) = Self.run(seed: 3)
            let index = ClickIndex(clicks: population.clicks, start: population.config.start)
            let installs = population.installs.filter { $0.t > 86_400 }.prefix(300)
            var compared = 0
            for install in installs {
                let at = population.date(install.t)
                let evidence = InstallEvidence(addressHash: install.endpoint.address, networkHash: install.endpoint.network, signals: DeviceSignals(), at: at)
                let query = CandidateQuery(appID: "app", environment: .live, install: evidence, window: population.config.window)
                let ios = index.candidates(query, platform: "ios", now: at), android = index.candidates(query, platform: "android", now: at)
                let either = index.candidates(query, platform: nil, now: at)
                #expect(either.clicksInWindow == ios.clicksInWindow + android.clicksInWindow)
                #expect(either.sameAddressClicks == ios.sameAddressClicks + android.sameAddressClicks)
                #expect(either.sameNetworkClicks == ios.sameNetworkClicks + android.sameNetworkClicks)
                let each = Set((ios.clicks + android.clicks).map(\.clickID))
                #expect(Set(either.clicks.map(\.clickID)).isSubset(of: each))
                if ios.clicks.count + android.clicks.count < CandidateQuery.limitPerKey {
                    #expect(Set(either.clicks.map(\.clickID)) == each)
                    compared += 1
                }
            }
            #expect(compared > 100)
        }
    }
}
