import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

/// The per-app learner on synthetic installs drawn from known numbers: what it recovers, what bounds it keeps, and
/// that a model learnt this way changes the matcher's decisions where the fixed numbers fail.
@Suite(.takesTurns) struct AttributionLearnerTests {
    typealias M = AttributionMatcherTests
    static let window: TimeInterval = 86_400

    /// A small deterministic generator (the tests must not depend on the system's).
    struct Random {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        /// A standard normal draw.
        mutating func normal() -> Double {
            (-2 * Foundation.log(max(next(), 1e-300))).squareRoot() * Foundation.cos(2 * .pi * next())
        }
        /// A log-normal delay.
        mutating func delay(median: Double, spread: Double) -> Double { median * Foundation.exp(spread * normal()) }
    }

    /// An install and the one click it came from, `delay` seconds before, on the same home address.
    static func pair(_ n: Int, delay: TimeInterval, address: String? = nil) -> (InstallEvidence, ClickEvidence) {
        let home = address ?? "addr-\(n)"
        let install = InstallEvidence(addressHash: home, networkHash: "net-\(n)", signals: M.phone(), at: M.now)
        let click = ClickEvidence(clickID: "clk_\(n)", linkID: "lnk_a", createdAt: M.now.addingTimeInterval(-delay), addressHash: home,
                                  networkHash: "net-\(n)", osVersion: "18.7", appleDevice: "iphone", screenWidth: 393, screenHeight: 852,
                                  screenScale: 3, timeZone: "America/New_York", timeZoneOffsetSeconds: -18_000, languages: ["en-US"])
        return (install, click)
    }

    static func candidates(_ clicks: [ClickEvidence]) -> CandidateSet {
        CandidateSet(clicks: clicks, clicksInWindow: 2_000, sameAddressClicks: clicks.count, sameNetworkClicks: clicks.count)
    }

    @Test func withoutObservationsTheModelIsThePrior() {
        let learner = AttributionLearner()
        let fitted = learner.fit([], frequencies: nil)
        var prior = AttributionLearner.defaultPrior
        // The network curves come from a fit on the prior's own pseudo-outcomes: the grid's nearest point.
        #expect(abs(fitted.networkChangeShare - prior.networkChangeShare) <= 0.02)
        #expect(abs(fitted.networkChangeTime / prior.networkChangeTime - 1) < 0.15)
        #expect(abs(fitted.addressChangeShare - prior.addressChangeShare) <= 0.02)
        prior.networkChangeShare = fitted.networkChangeShare
        prior.networkChangeTime = fitted.networkChangeTime
        prior.addressChangeShare = fitted.addressChangeShare
        prior.addressChangeTime = fitted.addressChangeTime
        // The click shares by address are the platforms' shares, bucket by bucket.
        let buckets = MatchModel.addressBuckets
        #expect(fitted.clickedShareByAddress == [Array(repeating: prior.clickedShare, count: buckets), Array(repeating: prior.androidClickedShare, count: buckets)])
        prior.clickedShareByAddress = fitted.clickedShareByAddress
        #expect(fitted == prior)
    }

    /// Installs from homes with one recent click and from addresses with up to three clicks of the same link (which
    /// of them caused the install is unsure), every `plainEvery`-th of them on clicks that were HTTP requests only.
    static func crowdedPopulation(count: Int, seed: UInt64, plainEvery: Int = 2) -> [LearningObservation] {
        var random = Random(state: seed)
        var observations: [LearningObservation] = []
        for n in 0..<count {
            let (install, click) = Self.pair(n, delay: min(random.delay(median: 900, spread: 1.3), Self.window - 1))
            var clicks = [click]
            for extra in 0..<Int(random.next() * 4) {
                var other = click
                other.clickID = "clk_\(n)_\(extra)"
                other.createdAt = M.now.addingTimeInterval(-min(random.delay(median: 3_600, spread: 1.3), Self.window - 1))
                clicks.append(other)
            }
            if n % plainEvery == plainEvery - 1 {
                for index in clicks.indices {
                    clicks[index].screenWidth = nil
                    clicks[index].screenHeight = nil
                    clicks[index].screenScale = nil
                    clicks[index].timeZone = nil
                }
            }
            observations.append(LearningObservation(install: install, candidates: Self.candidates(clicks), window: Self.window, label: .unlabelled))
        }
        return observations
    }

    @Test func theDefaultThresholdKeepsTheModelsOwnPrecision() throws {
        // A third of the clicks without page signals: the app is held to the precision of matches with signals.
        let observations = Self.crowdedPopulation(count: 3_000, seed: 5, plainEvery: 3)
        let fitted = AttributionLearner().fit(observations, frequencies: nil)
        let thresholds = try #require(fitted.learntThresholds)
        #expect(thresholds.count == 2 && thresholds.allSatisfy { AttributionLearner.thresholdBounds[0].contains($0) }, "\(thresholds)")
        // By the model's own posteriors, the matches it makes by default are right 97% of the time on average, in each
        // class; one more install below the threshold would bring the mean under that.
        var matcher = AttributionMatcher(model: fitted, calibration: .identity)
        matcher.model.learntThresholds = nil
        for rich in [true, false] {
            var posteriors: [Double] = []
            for observation in observations where (observation.candidates.clicks.first?.screenWidth != nil) == rich {
                let weighed = matcher.posteriors(install: observation.install, candidates: observation.candidates, window: observation.window)
                if let best = weighed.map(\.posterior).max() { posteriors.append(best) }
            }
            let threshold = fitted.acceptThreshold(rich: rich)
            let kept = posteriors.filter { $0 >= threshold }
            let mean = kept.reduce(0, +) / Double(kept.count)
            #expect(mean >= AttributionLearner.targetPrecision, "rich \(rich): \(mean) at \(threshold)")
            if threshold > AttributionLearner.thresholdBounds[0].lowerBound, let next = posteriors.filter({ $0 < threshold }).max() {
                #expect((kept.reduce(0, +) + next) / Double(kept.count + 1) < AttributionLearner.targetPrecision, "rich \(rich): \(threshold) is the lowest")
            }
        }
        // The default decision follows them: each install is matched exactly when its best posterior reaches its
        // class's threshold (no install here is ambiguous: every click of an address is on the one link).
        let learnt = AttributionMatcher(model: fitted, calibration: .identity)
        var disagreements = 0
        for observation in observations {
            guard let best = matcher.posteriors(install: observation.install, candidates: observation.candidates, window: observation.window)
                .map(\.posterior).max() else { continue }
            let rich = observation.candidates.clicks.first?.screenWidth != nil
            if case .matched = learnt.match(install: observation.install, candidates: observation.candidates, window: observation.window) {
                if best < fitted.acceptThreshold(rich: rich) { disagreements += 1 }
            } else if best >= fitted.acceptThreshold(rich: rich) {
                disagreements += 1
            }
        }
        #expect(disagreements == 0)
        // Too few installs to say: the fixed threshold.
        #expect(AttributionLearner().fit(Array(observations.prefix(120)), frequencies: nil).learntThresholds == nil)
        #expect(AttributionLearner().fit([], frequencies: nil).acceptThreshold(rich: true) == MatchModel().acceptThreshold)
    }

    @Test func theThresholdRisesUntilTheMatchesAverageTheTargetAndNeverFallsBelowTheFixedOne() {
        func installs(_ groups: [(Double, Int)]) -> [AttributionLearner.Candidate] {
            groups.flatMap { posterior, count in Array(repeating: AttributionLearner.Candidate(posterior: posterior, weight: 1, organic: 0), count: count) }
        }
        let bounds = AttributionLearner.thresholdBounds[0]
        // 500 at 0.99 and 100 at 0.9 average 0.975: all are kept, and the threshold is the lowest of them.
        #expect(AttributionLearner.threshold(installs([(0.99, 500), (0.9, 100)]), bounds: bounds) == 0.9)
        // 300 at 0.99 and 100 at 0.9 average 0.9675: the doubtful ones go, and the threshold rises to its bound.
        #expect(AttributionLearner.threshold(installs([(0.99, 300), (0.9, 100)]), bounds: bounds) == bounds.upperBound)
        // Matches sure enough below the fixed threshold stay out (the organic installs there are underestimated).
        #expect(AttributionLearner.threshold(installs([(0.999, 900), (0.7, 10)]), bounds: bounds) == bounds.lowerBound)
        #expect(bounds.lowerBound == MatchModel().acceptThreshold)
        // Weights count as installs.
        func weighed(_ groups: [(Double, Double)]) -> [AttributionLearner.Candidate] {
            groups.map { AttributionLearner.Candidate(posterior: $0.0, weight: $0.1, organic: 0) }
        }
        #expect(AttributionLearner.threshold(weighed([(0.99, 3), (0.9, 1)]), bounds: bounds) == bounds.upperBound)
        #expect(AttributionLearner.threshold(weighed([(0.99, 5), (0.9, 1)]), bounds: bounds) == 0.9)
    }

    /// From the HTTP request only, the threshold may go below the fixed one while the matches average their target
    /// and the organic installs they would take, by the model's reckoning, stay within what is allowed.
    @Test func withoutPageSignalsTheThresholdGoesLowerOnlyWithinTheOrganicAllowance() {
        let bounds = AttributionLearner.thresholdBounds[1], fixed = MatchModel().acceptThreshold
        #expect(bounds.lowerBound < fixed)
        let target = AttributionLearner.targetPrecisionWithoutSignals
        // 900 sure matches, then 40 at 0.8 and 40 at 0.72, each with a 10% chance of being organic by the model.
        let installs = [(0.999, 900, 0.0), (0.8, 40, 0.1), (0.72, 40, 0.1)].flatMap { posterior, count, organic in
            Array(repeating: AttributionLearner.Candidate(posterior: posterior, weight: 1, organic: organic), count: count)
        }
        // The mean stays above the target all the way down: without a limit on organic installs, the lowest is taken.
        #expect(AttributionLearner.threshold(installs, bounds: bounds, target: target, below: fixed) == 0.72)
        // Room for the first 40 (4 organic installs) but not the next: 0.8.
        #expect(AttributionLearner.threshold(installs, bounds: bounds, target: target, organicAllowance: 5, below: fixed) == 0.8)
        // No room at all: the fixed threshold, though the matches above it would allow one higher.
        #expect(AttributionLearner.threshold(installs, bounds: bounds, target: target, organicAllowance: 0, below: fixed) == fixed)
        // Above the fixed threshold the allowance is not asked.
        let sure = [(0.999, 900, 0.0), (0.9, 50, 0.5)].flatMap { posterior, count, organic in
            Array(repeating: AttributionLearner.Candidate(posterior: posterior, weight: 1, organic: organic), count: count)
        }
        #expect(AttributionLearner.threshold(sure, bounds: bounds, target: target, organicAllowance: 0, below: fixed) == 0.9)
    }

    /// An app whose clicks mostly come without page signals gets the lower threshold for them; one whose clicks
    /// mostly carry them holds them to the threshold of installs with signals.
    @Test func theLowerThresholdIsForAppsWhoseClicksMostlyComeWithoutSignals() throws {
        // Installs from the HTTP request only, beside twice as many organic ones at addresses without clicks: the
        // organic installs the lower threshold may take are a small share of all of them.
        var plain = Self.crowdedPopulation(count: 3_000, seed: 7, plainEvery: 1)
        for n in 0..<6_000 {
            let (install, _) = Self.pair(10_000 + n, delay: 60)
            plain.append(LearningObservation(install: install, candidates: Self.candidates([]), window: Self.window, label: .unlabelled))
        }
        let fitted = AttributionLearner().fit(plain, frequencies: nil)
        let thresholds = try #require(fitted.learntThresholds)
        #expect(thresholds[0] == MatchModel().acceptThreshold, "no install with signals: the fixed threshold")
        #expect(AttributionLearner.thresholdBounds[1].contains(thresholds[1]))
        #expect(thresholds[1] < MatchModel().acceptThreshold, "\(thresholds)")
        // The same installs beside four times as many whose clicks sent signals: no lower than the fixed threshold.
        let mostlyRich = Self.crowdedPopulation(count: 3_000, seed: 7, plainEvery: 5)
        let held = try #require(AttributionLearner().fit(mostlyRich, frequencies: nil).learntThresholds)
        #expect(held[1] >= MatchModel().acceptThreshold, "\(held)")
    }

    @Test func theDefaultDecisionUsesTheThresholdOfTheInstallsClass() throws {
        // One install alone with its click on a home address, once with the page's signals and once from the HTTP
        // request only.
        let (install, click) = Self.pair(1, delay: 1_800)
        var plain = click
        plain.screenWidth = nil
        plain.screenHeight = nil
        plain.screenScale = nil
        plain.timeZone = nil
        var model = AttributionLearner.defaultPrior
        func decide(_ click: ClickEvidence) -> (posterior: Double, matched: Bool) {
            let matcher = AttributionMatcher(model: model, calibration: .identity)
            let posterior = matcher.posteriors(install: install, candidates: Self.candidates([click]), window: Self.window).first?.posterior ?? 0
            if case .matched = matcher.match(install: install, candidates: Self.candidates([click]), window: Self.window) { return (posterior, true) }
            return (posterior, false)
        }
        let rich = decide(click), poor = decide(plain)
        #expect(rich.matched && poor.matched, "\(rich) \(poor)")
        // A class's threshold just above its install's posterior declines it, and leaves the other class alone.
        model.learntThresholds = [rich.posterior.nextUp, model.acceptThreshold]
        #expect(!decide(click).matched && decide(plain).matched)
        model.learntThresholds = [model.acceptThreshold, poor.posterior.nextUp]
        #expect(decide(click).matched && !decide(plain).matched)
        // A request's own threshold replaces the learnt one.
        let matcher = AttributionMatcher(model: model, calibration: .identity)
        if case .matched = matcher.match(install: install, candidates: Self.candidates([plain]), window: Self.window, acceptThreshold: 0.5) {} else {
            Issue.record("an explicit threshold did not replace the learnt one")
        }
    }

    @Test func labelledDelaysMoveTheDelayModelWhereThePopulationIs() {
        // Most of this app's users open it within a minute of the click.
        var random = Random(state: 7)
        var observations: [LearningObservation] = []
        for n in 0..<3_000 {
            let delay = n % 10 < 6 ? random.delay(median: 35, spread: 0.5) : random.delay(median: 3 * 3600, spread: 0.8)
            let (install, click) = Self.pair(n, delay: min(delay, Self.window - 1))
            observations.append(LearningObservation(install: install, candidates: Self.candidates([click]), window: Self.window, label: .click(click)))
        }
        let fitted = AttributionLearner().fit(observations, frequencies: nil)
        let delays = try! #require(fitted.delayMixture)
        // About 60% within 2 minutes, against the prior's 17%.
        let quick = delays.cumulative(120, window: Self.window)
        #expect(quick > 0.5 && quick < 0.7, "\(quick)")
        #expect(DelayMixture.prior.cumulative(120, window: Self.window) < 0.2)
        // A launch 40 s after its click is now ordinary, not suspect.
        #expect(delays.ratio(40, window: Self.window) > 5 * DelayMixture.prior.ratio(40, window: Self.window))
        #expect(delays.floorWeight >= DelayMixture.floorBounds.lowerBound)
    }

    /// Half the installs open within minutes of their click, half some eight hours later; the longer they wait, the
    /// likelier they left the click's network (as the labelled tenth shows), and a click without page signals is then
    /// no candidate at all. The unlabelled installs' delays, counted as they come, would say a launch hours later is
    /// rarer than it is: each counts as many installs of its delay as one still on the network stands for.
    @Test func installsThatLeftTheirClicksNetworkDoNotMakeLongDelaysLookRare() throws {
        var random = Random(state: 23)
        var observations: [LearningObservation] = []
        var longDelays = 0
        let count = 4_000
        for n in 0..<count {
            let delay = min(n % 2 == 0 ? random.delay(median: 300, spread: 0.8) : random.delay(median: 8 * 3600, spread: 0.5), Self.window - 60)
            if delay >= 6 * 3600 { longDelays += 1 }
            let stayed = random.next() < 1 - 0.6 * (1 - Foundation.exp(-delay / (3.5 * 3600)))
            var (install, click) = Self.pair(n, delay: delay)
            // The page sent nothing: no screen or time zone to find the click by.
            (click.screenWidth, click.screenHeight, click.screenScale, click.timeZone, click.timeZoneOffsetSeconds) = (nil, nil, nil, nil, nil)
            if !stayed { (install.addressHash, install.networkHash) = ("away-\(n)", "away-net-\(n)") }
            if n % 10 == 0 {
                observations.append(LearningObservation(install: install, candidates: Self.candidates(stayed ? [click] : []), window: Self.window,
                                                        label: .click(click)))
            } else {
                observations.append(LearningObservation(install: install, candidates: Self.candidates(stayed ? [click] : []), window: Self.window,
                                                        label: .unlabelled))
            }
        }
        let fitted = AttributionLearner(iterations: 8).fit(observations, frequencies: nil)
        let delays = try #require(fitted.delayMixture)
        let truth = Double(longDelays) / Double(count)
        let learnt = 1 - delays.cumulative(6 * 3600, window: Self.window)
        #expect(abs(learnt - truth) < 0.06, "launches 6 hours or more after their click: learnt \(learnt), truly \(truth)")
        #expect(abs(fitted.networkChangeShare - 0.6) < 0.15, "\(fitted.networkChangeShare)")
        // Each such delay counts as 1 / P(still on the network), within bounds; a click with page signals counts once.
        #expect(AttributionLearner.selectionWeight(delay: 0, rich: false, model: fitted) == 1)
        let ten = AttributionLearner.selectionWeight(delay: 10 * 3600, rich: false, model: fitted)
        #expect(ten > 1.5 && ten <= AttributionLearner.maximumSelectionWeight)
        #expect(AttributionLearner.selectionWeight(delay: 10 * 3600, rich: true, model: fitted) == 1)
    }

    /// Each install came from its click hours before; the other clicks of its address were made by people using
    /// their phones at the same hours: 5 to 40 minutes before it.
    static func sameHoursPopulation(count: Int, seed: UInt64, labelledEvery: Int) -> [LearningObservation] {
        var random = Random(state: seed)
        return (0..<count).map { n in
            let (install, click) = Self.pair(n, delay: 3 * 3600 + random.next() * 6 * 3600)
            var clicks = [click]
            for extra in 0..<3 {
                var other = click
                other.clickID = "clk_\(n)_\(extra)"
                other.osVersion = "17.\(extra)"
                other.createdAt = M.now.addingTimeInterval(-(300 + random.next() * 2_100))
                clicks.append(other)
            }
            return LearningObservation(install: install, candidates: Self.candidates(clicks), window: Self.window,
                                       label: n % labelledEvery == 0 ? .click(click) : .unlabelled)
        }
    }

    @Test func theDelaysOfUnrelatedClicksAreLearntFromTheLabelsAndTheModelsOwnWeights() throws {
        for labelledEvery in [4, 1_000_000] {
            let fitted = AttributionLearner().fit(Self.sameHoursPopulation(count: 2_000, seed: 23, labelledEvery: labelledEvery), frequencies: nil)
            let unrelated = try #require(fitted.unrelatedDelays)
            // 5–15 and 15–60 minutes hold every unrelated click: far commoner than an even spread over a day says
            // (as sure as the bounds allow); beyond 12 hours there is none.
            let bins = [UnrelatedDelays.bin(600), UnrelatedDelays.bin(1_800)]
            #expect(bins.allSatisfy { unrelated.relative[$0] > 3 }, "\(unrelated.relative)")
            #expect(unrelated.relative[UnrelatedDelays.bin(13 * 3600)] < 0.5, "\(unrelated.relative)")
            // So a click 20 minutes before an install counts for less than the delay alone says.
            var without = fitted
            without.unrelatedDelays = nil
            let matcher = AttributionMatcher(model: fitted), plain = AttributionMatcher(model: without)
            #expect(matcher.delayRatio(1_200, window: Self.window) < plain.delayRatio(1_200, window: Self.window) / 3)
            #expect(matcher.delayRatio(5 * 3600, window: Self.window) == plain.delayRatio(5 * 3600, window: Self.window) / unrelated.factor(5 * 3600))
        }
        // Without any candidate, nothing is learnt: delays stay taken against an even spread.
        let lone = (0..<50).map { n in
            LearningObservation(install: Self.pair(n, delay: 60).0, candidates: Self.candidates([]), window: Self.window, label: .unlabelled)
        }
        #expect(AttributionLearner().fit(lone, frequencies: nil).unrelatedDelays == nil)
    }

    @Test func unrelatedDelaysAreCountedOverEachOnesOwnWindow() {
        // A two-hour window: the bins past it hold nothing and stay even; the tally never divides by zero.
        var tally = UnrelatedDelays.Tally()
        #expect(tally.isEmpty && tally.fitted(priorWeight: 10).relative == Array(repeating: 1, count: UnrelatedDelays.starts.count))
        for n in 0..<1_000 { tally.add(Double(n % 60) * 60, window: 7_200, weight: 1) }
        // Hostile samples count for nothing.
        tally.add(.nan, window: 7_200, weight: 1)
        tally.add(60, window: .infinity, weight: 1)
        tally.add(60, window: 7_200, weight: -1)
        tally.add(9_000, window: 7_200, weight: 1)
        let fitted = tally.fitted(priorWeight: 10)
        #expect(fitted.relative[UnrelatedDelays.bin(3 * 3600)] == 1 && fitted.relative[UnrelatedDelays.bin(13 * 3600)] == 1)
        // Every delay in the first hour of a two-hour window: twice an even spread there (less the prior's pull).
        #expect(fitted.relative[UnrelatedDelays.bin(1_800)] > 1.9 && fitted.relative[UnrelatedDelays.bin(1_800)] <= 2, "\(fitted.relative)")
        #expect(fitted.relative[UnrelatedDelays.bin(5_000)] == UnrelatedDelays.bounds.lowerBound)
        // A click a little after the install counts as the first bin; a malformed table says nothing.
        #expect(fitted.factor(-30) == fitted.relative[0])
        #expect(UnrelatedDelays(relative: [2, 2]).factor(600) == 1)
        #expect(UnrelatedDelays(relative: Array(repeating: .nan, count: UnrelatedDelays.starts.count)).factor(600) == 1)
    }

    @Test func unlabelledInstallsGiveTheShareThatCameFromAClick() {
        // 30% of the installs came from a click (at their address, minutes before); the rest are organic and share
        // nothing with any click.
        var random = Random(state: 11)
        var observations: [LearningObservation] = []
        for n in 0..<4_000 {
            if random.next() < 0.3 {
                let (install, click) = Self.pair(n, delay: random.delay(median: 300, spread: 1))
                observations.append(LearningObservation(install: install, candidates: Self.candidates([click]), window: Self.window, label: .unlabelled))
            } else {
                let (install, _) = Self.pair(n, delay: 60)
                observations.append(LearningObservation(install: install, candidates: Self.candidates([]), window: Self.window, label: .unlabelled))
            }
        }
        let fitted = AttributionLearner(iterations: 20).fit(observations, frequencies: nil)
        #expect(abs(fitted.clickedShare - 0.3) < 0.04, "\(fitted.clickedShare)")
        // By address: installs from an address with one recent click came from it; those from an address without any
        // came from none.
        let byAddress = try! #require(fitted.clickedShareByAddress?.first)
        #expect(byAddress[MatchModel.addressBucket(1)] > 0.9 && byAddress[MatchModel.addressBucket(0)] < 0.1, "\(byAddress)")
    }

    /// Installs the probabilistic tier answered and whose user's click became known later are still that tier's
    /// installs: they count as clicked in the share, where leaving them out would make clicks look rarer; and on
    /// Android they are not Play Store referrers, whose share they would raise.
    @Test func installsLabelledByTheirUsersClickStillCountAmongTheMatchersInstalls() throws {
        var random = Random(state: 23)
        var observations: [LearningObservation] = []
        for n in 0..<4_000 {
            if random.next() < 0.3 {
                let (install, click) = Self.pair(n, delay: random.delay(median: 300, spread: 1))
                // A third of the clicked installs' users had clicked signed in, and signed in in the app.
                let label: LearningObservation.Label = random.next() < 1.0 / 3 ? .userClick(click) : .unlabelled
                observations.append(LearningObservation(install: install, candidates: Self.candidates([click]), window: Self.window, label: label))
            } else {
                let (install, _) = Self.pair(n, delay: 60)
                observations.append(LearningObservation(install: install, candidates: Self.candidates([]), window: Self.window, label: .unlabelled))
            }
        }
        let labelled = observations.filter { $0.label != .unlabelled }.count
        #expect(labelled > 300 && labelled < 500)
        let fitted = AttributionLearner(iterations: 20).fit(observations, frequencies: nil)
        #expect(abs(fitted.clickedShare - 0.3) < 0.04, "\(fitted.clickedShare)")
        // Left out, the clicked share would fall to about 0.2 / 0.9.
        let withoutThem = AttributionLearner(iterations: 20).fit(observations.filter { $0.label == .unlabelled }, frequencies: nil)
        #expect(withoutThem.clickedShare < 0.27, "\(withoutThem.clickedShare)")

        // Android: the Play Store referrers that arrived all named no click, and the user clicks do not change that.
        let android = observations.prefix(600).map { observation -> LearningObservation in
            var observation = observation
            observation.install.signals = DeviceSignals(platform: "android", osVersion: "14", model: nil, languages: ["en-US"])
            return observation
        }
        let organic = (0..<100).map { n -> LearningObservation in
            let (install, click) = Self.pair(10_000 + n, delay: 60)
            var observation = LearningObservation(install: install, candidates: Self.candidates([click]), window: Self.window, label: .organic)
            observation.install.signals = DeviceSignals(platform: "android", osVersion: "14", model: nil, languages: ["en-US"])
            return observation
        }
        let androidFit = AttributionLearner().fit(Array(android) + organic, frequencies: nil)
        // (Taken for referrers that named their click, the 60 or so user clicks would have put it near 0.4.)
        #expect(androidFit.androidClickedShare < 0.05, "\(androidFit.androidClickedShare)")
    }

    @Test func playReferrersGiveTheAndroidClickShareTheUnlabelledInstallsHide() {
        // Android installs at addresses with one recent click: the Play Store referrer arrived for 400, tying 48 of
        // them to a click (12%) and naming none for the rest. 300 more came without a referrer, each beside a click
        // a minute old, which the matcher cannot tell from their own.
        var observations: [LearningObservation] = []
        func android(_ n: Int) -> (InstallEvidence, ClickEvidence) {
            var (install, click) = Self.pair(n, delay: 60)
            install.signals = DeviceSignals(platform: "android", osVersion: "14", model: nil, languages: ["en-US"])
            click.osVersion = "10"
            click.appleDevice = nil
            return (install, click)
        }
        for n in 0..<700 {
            let (install, click) = android(n)
            let label: LearningObservation.Label = n < 48 ? .click(click) : n < 400 ? .organic : .unlabelled
            observations.append(LearningObservation(install: install, candidates: Self.candidates([click]), window: Self.window, label: label))
        }
        let fitted = AttributionLearner().fit(observations, frequencies: nil)
        let bucket = MatchModel.addressBucket(1)
        let share = try! #require(fitted.clickedShareByAddress?[1][bucket])
        // 48 of 400, pulled a little towards the prior's 0.1 by 20 pseudo-installs.
        #expect(abs(share - (48 + 20 * fitted.androidClickedShare) / 420) < 1e-9 && share > 0.1 && share < 0.13, "\(share)")
        #expect(abs(fitted.androidClickedShare - (48 + 20 * 0.1) / 420) < 1e-9)

        // Without referrers, the same unlabelled installs alone say most came from their click.
        let unlabelled = observations.map { observation -> LearningObservation in
            var observation = observation
            observation.label = .unlabelled
            return observation
        }
        let guessed = try! #require(AttributionLearner().fit(unlabelled, frequencies: nil).clickedShareByAddress?[1][bucket])
        #expect(guessed > 0.5, "\(guessed)")
    }

    @Test func labelledPairsGiveHowInstallsLeaveTheirClicksNetwork() {
        // Half of the installs come from another network a few hours on (time constant 2 h).
        var random = Random(state: 3)
        var observations: [LearningObservation] = []
        for n in 0..<3_000 {
            let delay = 60 + random.next() * 20 * 3600
            var (install, click) = Self.pair(n, delay: delay)
            if random.next() < 0.5 * (1 - Foundation.exp(-delay / 7200)) {
                install.addressHash = "elsewhere-\(n)"
                install.networkHash = "elsewhere-net-\(n)"
            }
            observations.append(LearningObservation(install: install, candidates: Self.candidates([click]), window: Self.window, label: .click(click)))
        }
        let fitted = AttributionLearner().fit(observations, frequencies: nil)
        #expect(abs(fitted.networkChangeShare - 0.5) < 0.06, "\(fitted.networkChangeShare)")
        #expect(fitted.networkChangeTime > 3600 && fitted.networkChangeTime < 4 * 3600, "\(fitted.networkChangeTime)")
    }

    @Test func hostileObservationsKeepEveryNumberInItsBounds() {
        var observations: [LearningObservation] = []
        for n in 0..<500 {
            // Every delay 1 s, or the click after the launch, or weights that are not numbers.
            let (install, click) = Self.pair(n, delay: n % 3 == 0 ? 1 : n % 3 == 1 ? -30 : 0)
            observations.append(LearningObservation(install: install, candidates: Self.candidates([click]), window: Self.window,
                                                    label: n % 2 == 0 ? .click(click) : .unlabelled, weight: n % 7 == 0 ? .nan : 1))
        }
        let fitted = AttributionLearner().fit(observations, frequencies: nil)
        let delays = try! #require(fitted.delayMixture)
        for (k, component) in delays.components.enumerated() {
            #expect(DelayMixture.medianBounds[k].contains(component.median))
            #expect(DelayMixture.spreadBounds.contains(component.spread))
            #expect(component.weight.isFinite && component.weight > 0)
        }
        #expect(DelayMixture.floorBounds.contains(delays.floorWeight))
        let unrelated = try! #require(fitted.unrelatedDelays)
        #expect(unrelated.relative.count == UnrelatedDelays.starts.count && unrelated.relative.allSatisfy { UnrelatedDelays.bounds.contains($0) })
        for value in [fitted.clickedShare, fitted.androidClickedShare, fitted.pSameOS, fitted.pNoSharedKey, fitted.networkChangeShare] {
            #expect(value.isFinite && value > 0 && value < 1)
        }
        // Every delay inside the window keeps a chance.
        for delay in [5.0, 30, 600, 36_000, 86_000] { #expect(delays.ratio(delay, window: Self.window) > 0.001) }
    }

    @Test func theSameObservationsGiveTheSameModel() {
        var random = Random(state: 5)
        let observations = (0..<600).map { n -> LearningObservation in
            let (install, click) = Self.pair(n, delay: random.delay(median: 600, spread: 1.2))
            return LearningObservation(install: install, candidates: Self.candidates([click]), window: Self.window,
                                       label: n % 4 == 0 ? .click(click) : .unlabelled)
        }
        #expect(AttributionLearner().fit(observations, frequencies: nil) == AttributionLearner().fit(observations, frequencies: nil))
    }

    @Test func theDelayMixtureIsADensityOverTheWindow() {
        for mixture in [DelayMixture.prior, DelayMixture(components: [.init(weight: 1, median: 40, spread: 0.5)], floorWeight: 0.03)] {
            // Integrate over log(delay) from 5 s to the window.
            var integral = 0.0
            let steps = 20_000
            let a = Foundation.log(DelayMixture.shortest), b = Foundation.log(Self.window)
            for step in 0..<steps {
                let x = a + (b - a) * (Double(step) + 0.5) / Double(steps)
                let delay = Foundation.exp(x)
                integral += mixture.density(delay, window: Self.window) * delay * (b - a) / Double(steps)
            }
            #expect(abs(integral - 1) < 0.01, "\(integral)")
            #expect(abs(mixture.cumulative(Self.window, window: Self.window) - 1) < 1e-9)
            #expect(mixture.cumulative(60, window: Self.window) < mixture.cumulative(600, window: Self.window))
        }
    }

    @Test func anAppsOwnFrequenciesLetARareFingerprintFindItsSwitcher() throws {
        // The phone clicked at home two hours ago and installs from the office: only its screen and time zone say
        // it is the same device. The app has 8,000 clicks in the window.
        let rare = M.phone(width: 430, height: 932, scale: 3, zone: "Pacific/Chatham", offset: 49_500, os: "18.7.2", model: "iPhone16,2")
        let click = M.click("clk_home", minutesBefore: 120, address: "addr-home", network: "net-home", signals: rare)
        let install = M.install(rare, address: "addr-office", network: "net-office")
        let candidates = CandidateSet(clicks: [click], clicksInWindow: 8_000, sameAddressClicks: 0, sameNetworkClicks: 0)

        // With the fixed numbers, a fingerprint can never be rarer than a floor that 8,000 clicks drown.
        guard case .declined = AttributionMatcher().match(install: install, candidates: candidates, window: Self.window) else {
            Issue.record("the fixed model matched a switcher in a crowd of 8,000")
            return
        }
        // The app's clicks of the last week: this fingerprint once in 300,000 (this very click).
        var frequencies = ValueFrequencies()
        frequencies.add(click)
        let common = M.click("clk_x", minutesBefore: 1, signals: M.phone())
        frequencies.add(common, weight: 299_999)
        var model = AttributionLearner.defaultPrior
        model.frequencies = frequencies
        let outcome = AttributionMatcher(model: model, calibration: .identity).match(install: install, candidates: candidates, window: Self.window)
        guard case .matched(let clickID, _, let confidence) = outcome else {
            Issue.record("expected a match, got \(outcome)")
            return
        }
        #expect(clickID == "clk_home" && confidence > 0.85)

        // The same install, when the app's clicks show that fingerprint on one click in fifty: declined.
        var busy = ValueFrequencies()
        busy.add(click, weight: 1_000)
        busy.add(common, weight: 49_000)
        model.frequencies = busy
        guard case .declined = AttributionMatcher(model: model, calibration: .identity).match(install: install, candidates: candidates, window: Self.window) else {
            Issue.record("a common fingerprint matched a switcher")
            return
        }
    }

    @Test func aLanguageCommonInItsTimeZoneSaysLittleOnceTheZonesAgree() throws {
        // Nine clicks in ten from New York in English, one in ten from Madrid in Spanish.
        var frequencies = ValueFrequencies()
        for n in 0..<1_000 {
            var click = Self.pair(n, delay: 60).1
            if n % 10 == 0 { (click.timeZone, click.languages) = ("Europe/Madrid", ["es-ES"]) }
            frequencies.add(click)
        }
        let inMadrid = try #require(frequencies.languageShare("es-es", inZone: "Europe/Madrid", prior: 0.5))
        #expect(inMadrid > 0.8, "\(inMadrid)")
        #expect(frequencies.languageShare("es-es", inZone: "Asia/Tokyo", prior: 0.5) == nil)
        var model = AttributionLearner.defaultPrior
        model.frequencies = frequencies
        let matcher = AttributionMatcher(model: model)
        var (install, click) = Self.pair(1, delay: 600)
        install.signals.timeZone = "Europe/Madrid"
        install.signals.languages = ["es-ES"]
        (click.timeZone, click.languages) = ("Europe/Madrid", ["es-ES"])
        let candidates = Self.candidates([click])
        let context = AttributionMatcher.Context(install: install, clicks: [click], usable: [0], crowd: 2_000, window: Self.window, matcher: matcher)
        // Spanish is rare in the app (about one click in ten) but not in Madrid, whose agreement the zone already counted.
        let alone = matcher.languageRatio(click: click.languages, context: context)
        let inZone = matcher.languageRatio(click: click.languages, zone: "Europe/Madrid", context: context)
        #expect(alone > 5 && inZone < 1.2, "\(alone) \(inZone)")
        // The whole likelihood ratio takes the zone's: the zones agree.
        let agreeing = matcher.likelihoodRatio(install: install, click: click, candidates: candidates, context: context)
        #expect(agreeing == matcher.networkRatio(install: install, click: click, candidates: candidates, crowd: 2_000, delay: 600)
                * matcher.delayRatio(600, window: Self.window) * matcher.osRatio(click: click.osVersion, install: install.signals.osVersion,
                                                                                  platform: install.signals.platform, context: context)
                * matcher.deviceRatio(click: click, signals: install.signals, context: context) * inZone)
    }

    @Test func aValueNeverSeenIsRareNotImpossible() {
        var frequencies = ValueFrequencies()
        for n in 0..<1_000 { frequencies.add(M.click("clk_\(n)", minutesBefore: 1, signals: M.phone())) }
        let unseen = frequencies.share(of: "fr-fr", in: \.language, prior: 0.0)
        #expect(unseen > 0 && unseen <= 0.001)
        let english = frequencies.share(of: "en-us", in: \.language, prior: 0.5)
        #expect(english > 0.98)
        frequencies.keepMostCommon(1)
        #expect(frequencies.language.count == 1 && frequencies.clicks == 1_000)
    }
}
