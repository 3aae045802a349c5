import FerryAPI
import Foundation

/// One install as the learner sees it: what the matcher saw when it answered, and what is known of its cause.
package struct LearningObservation: Sendable {
    /// What is known of the install's cause.
    package enum Label: Sendable, Hashable {
        /// Nothing: the probabilistic tier answered it (or declined).
        case unlabelled
        /// A deterministic match (a click token or the Play Store referrer) tied it to this click.
        case click(ClickEvidence)
        /// The probabilistic tier answered it, and the user later bound to it had made this click, their token in its
        /// URL (`UserClickToken`): the click is known, though the install reached the probabilistic tier.
        case userClick(ClickEvidence)
        /// It is known to have come without a click (a Play Store referrer naming no campaign of the app).
        case organic
    }

    /// The install.
    package var install: InstallEvidence
    /// The candidates the store offered for it (for a labelled install, the ones it would have been offered had it
    /// carried no token).
    package var candidates: CandidateSet
    /// The attribution window then.
    package var window: TimeInterval
    /// What is known of its cause.
    package var label: Label
    /// How much it counts (older observations count less).
    package var weight: Double

    /// Creates an observation.
    package init(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval, label: Label, weight: Double = 1) {
        self.install = install
        self.candidates = candidates
        self.window = window
        self.label = label
        self.weight = weight
    }

    /// Whether the install reached the probabilistic tier: unlabelled, or labelled later by its user's click.
    var reachedMatcher: Bool {
        switch label {
        case .unlabelled, .userClick: true
        case .click, .organic: false
        }
    }

    /// Whether the install came from Android (the other platform is iOS).
    var isAndroid: Bool { install.signals.platform?.lowercased() == "android" }
}

/// Learns an app's matching model from its own installs: the deterministic matches are labelled examples of how a
/// click and its install relate (delay, network, signals), and the installs the probabilistic tier answered are used
/// without labels, by expectation–maximisation over the matcher's own weights (how many installs come from a click,
/// how long after it). Every parameter starts from, and is pulled towards, a weak prior that suits a new app; how
/// common each signal value is comes from the app's clicks (`ValueFrequencies`).
///
/// Pure and deterministic: the same observations in the same order give the same model.
package struct AttributionLearner: Sendable {
    /// Where every app starts, and what each estimate is pulled towards.
    package var prior: MatchModel
    /// Rounds of expectation–maximisation.
    package var iterations: Int

    /// How far back a refit reads an app's observations…
    package static let observationMemory: TimeInterval = 28 * 86400
    /// …each counting half as much every `observationHalfLife`.
    package static let observationHalfLife: TimeInterval = 14 * 86400
    /// How many of the most common values of each signal a refit's `ValueFrequencies` keep.
    package static let frequencyValues = 500

    /// How much an observation `age` seconds old counts.
    package static func weight(age: TimeInterval) -> Double {
        Foundation.pow(2, -max(0, age) / observationHalfLife)
    }

    /// Pseudo-counts: how many installs' worth of evidence each prior carries.
    package static let clickedSharePriorWeight = 20.0
    package static let agreementPriorWeight = 50.0
    package static let delayPriorWeight = 50.0
    package static let networkPriorWeight = 40.0

    /// Creates a learner.
    package init(prior: MatchModel = AttributionLearner.defaultPrior, iterations: Int = 4) {
        self.prior = prior
        self.iterations = iterations
    }

    /// The prior: no marketing assumption (half the installs that reach the probabilistic tier came from a click on
    /// iOS; on Android, where the Play Store referrer finds most, a tenth), heavy-tailed delays, and signals that
    /// agree between a click and its install nearly always but not quite (a browser's language is not always the
    /// app's).
    package static let defaultPrior: MatchModel = {
        var model = MatchModel()
        model.clickedShare = 0.5
        model.androidClickedShare = 0.1
        model.pNoSharedKey = 0.02
        model.pSameOS = 0.97
        model.pSameScreen = 0.97
        model.pSameTimeZone = 0.97
        model.pSameLanguage = 0.95
        model.delayMixture = .prior
        return model
    }()

    /// The model fitted to `observations`, starting from `start` (the app's current model; the prior by default),
    /// with the app's value frequencies.
    package func fit(_ observations: [LearningObservation], frequencies: ValueFrequencies?, start: MatchModel? = nil) -> MatchModel {
        var model = start ?? prior
        model.frequencies = frequencies
        if model.delayMixture == nil { model.delayMixture = prior.delayMixture ?? .prior }
        let labelled = LabelledStatistics(observations)
        labelled.apply(to: &model, prior: prior)
        labelled.applyReferrerShares(to: &model, prior: prior)
        let unlabelled = observations.filter { $0.label == .unlabelled }
        // Installs the probabilistic tier answered whose click became known later: they count among that tier's
        // installs as clicked, as surely as the unlabelled ones count as clicked as likely as the model says.
        let knownClicked = observations.filter { if case .userClick = $0.label { true } else { false } }
        let labelledUnrelated = Self.unrelatedDelays(labelled: observations, model: model)
        for _ in 0..<max(0, iterations) {
            let matcher = AttributionMatcher(model: model, calibration: .identity)
            var unrelated = labelledUnrelated
            var clicked = [0.0, 0.0], total = [0.0, 0.0]
            let buckets = MatchModel.addressBuckets
            var clickedByAddress = [[Double]](repeating: [Double](repeating: 0, count: buckets), count: 2), totalByAddress = clickedByAddress
            var samples = labelled.delays
            for observation in unlabelled {
                let weights = matcher.weights(install: observation.install, candidates: observation.candidates, window: observation.window)
                let sum = weights.total
                guard sum.isFinite, sum > 0 else { continue }
                let platform = observation.isAndroid ? 1 : 0
                clicked[platform] += observation.weight * (1 - weights.organic / sum)
                total[platform] += observation.weight
                let bucket = MatchModel.addressBucket(observation.candidates.sameAddressClicks)
                clickedByAddress[platform][bucket] += observation.weight * (1 - weights.organic / sum)
                totalByAddress[platform][bucket] += observation.weight
                for (index, weight) in weights.clicks {
                    let share = weight / sum
                    let click = observation.candidates.clicks[index]
                    let delay = observation.install.at.timeIntervalSince(click.createdAt)
                    unrelated.add(delay, window: observation.window, weight: observation.weight * (1 - share))
                    guard share > 1e-3 else { continue }
                    let counts = Self.selectionWeight(delay: delay, rich: DeviceFingerprint.Parts(of: click) != nil, model: model)
                    samples.append(DelaySample(delay: delay, window: observation.window, weight: observation.weight * share * counts))
                }
            }
            for observation in knownClicked {
                let platform = observation.isAndroid ? 1 : 0, bucket = MatchModel.addressBucket(observation.candidates.sameAddressClicks)
                clicked[platform] += observation.weight
                total[platform] += observation.weight
                clickedByAddress[platform][bucket] += observation.weight
                totalByAddress[platform][bucket] += observation.weight
            }
            let m = Self.clickedSharePriorWeight
            model.clickedShare = Self.clamp((clicked[0] + m * prior.clickedShare) / (total[0] + m), 0.02...0.98)
            model.androidClickedShare = Self.clamp((clicked[1] + m * prior.androidClickedShare) / (total[1] + m), 0.02...0.98)
            // By address, each pulled towards its platform's share.
            let shares = [model.clickedShare, model.androidClickedShare]
            model.clickedShareByAddress = (0..<2).map { platform in
                (0..<buckets).map { Self.clamp((clickedByAddress[platform][$0] + m * shares[platform]) / (totalByAddress[platform][$0] + m), 0.02...0.98) }
            }
            labelled.applyReferrerShares(to: &model, prior: prior)
            model.delayMixture = Self.fitDelays(samples, start: model.delayMixture ?? .prior, prior: prior.delayMixture ?? .prior)
            model.unrelatedDelays = unrelated.isEmpty ? nil : unrelated.fitted(priorWeight: Self.unrelatedDelayPriorWeight)
        }
        // The thresholds are for every install the matcher answers, judged by the model alone.
        model.learntThresholds = Self.thresholds(observations.filter(\.reachedMatcher).map { observation in
            var answered = observation
            answered.label = .unlabelled
            return answered
        }, model: model)
        return model
    }

    /// How many click-caused installs of its delay one unlabelled candidate's delay stands for. A click whose page sent
    /// no signals is a candidate only while its install is still on the click's network, which fewer installs are the
    /// longer they wait (the model's `networkChangeShare` and `networkChangeTime`): counted as they come, the delays
    /// the unlabelled installs show are shorter than the installs' own, and the model would hold a launch hours later
    /// unlikelier than it is. Such a delay counts `1 / P(still on the network)`, at most `maximumSelectionWeight`; a click
    /// with page signals is a candidate by its screen and time zone too, wherever its install is, and counts once.
    static func selectionWeight(delay: TimeInterval, rich: Bool, model: MatchModel) -> Double {
        guard !rich, delay.isFinite else { return 1 }
        let left = min(1, max(0, model.networkChangeShare)) * (1 - Foundation.exp(-max(0, delay) / max(model.networkChangeTime, 1)))
        return min(maximumSelectionWeight, 1 / max(1 - left, 1e-3))
    }

    /// The most one unlabelled delay counts for (`selectionWeight`).
    static let maximumSelectionWeight = 5.0

    /// How many delays' worth of an even spread the unrelated clicks' delays are pulled towards.
    package static let unrelatedDelayPriorWeight = 200.0

    /// The delays of the candidates the labels say did not cause their install: every usable candidate of an organic
    /// install, and every one but its click of a deterministic match.
    static func unrelatedDelays(labelled observations: [LearningObservation], model: MatchModel) -> UnrelatedDelays.Tally {
        let matcher = AttributionMatcher(model: model, calibration: .identity)
        var tally = UnrelatedDelays.Tally()
        for observation in observations {
            let caused: String?
            switch observation.label {
            case .unlabelled: continue
            case .organic: caused = nil
            case .click(let click), .userClick(let click): caused = click.clickID
            }
            // The matcher's own rule of which candidates it weighs (inside the window, sharing a key).
            for (index, _) in matcher.weights(install: observation.install, candidates: observation.candidates, window: observation.window).clicks {
                let click = observation.candidates.clicks[index]
                guard click.clickID != caused else { continue }
                tally.add(observation.install.at.timeIntervalSince(click.createdAt), window: observation.window, weight: observation.weight)
            }
        }
        return tally
    }

    /// A model fitted on fewer observations than this is young: a new app's installs grow fast, and its first day
    /// answered with a model fitted on its first few hundred costs recall (on the simulator's populations, most of the
    /// learnt model's shortfall against the unambiguous-only rule was on that day). A young model is refitted as soon as
    /// the app's observations have doubled since it was fitted, once it is `youngRefitAge` old, besides the regular refits.
    package static let youngModelObservations = 5_000
    /// See `youngModelObservations`.
    package static let youngRefitAge: TimeInterval = 3600

    /// The precision the default decision of a learnt model aims at: the matches it makes, by their own posteriors,
    /// are right this often on average (the fixed model's precision on the simulator's populations).
    package static let targetPrecision = 0.97
    /// The same for installs whose likeliest click came from the HTTP request only (the goal there is 95%).
    package static let targetPrecisionWithoutSignals = 0.96
    /// The learnt thresholds stay within these bounds, for installs whose likeliest click came with page signals and
    /// for the others. With page signals, never below the fixed threshold: the organic installs there (a household's
    /// other phone of the same model) are more than the model's own posteriors expect. From the HTTP request only (for
    /// an app whose clicks mostly come so), down to 0.7, but below the fixed threshold only within `organicBudget`:
    /// hours after a click, an install from a home with that one click is right most of the time at posteriors of
    /// 0.7–0.85, and nothing else can find it, while the organic installs taken with it are what such a threshold costs.
    package static let thresholdBounds = [0.85...0.95, 0.7...0.95]
    /// The share of the app's organic installs, by the model's own reckoning, that its matches (of both classes) may
    /// take before the threshold of installs without page signals goes below the fixed one.
    package static let organicBudget = 0.008
    /// The thresholds are learnt only from at least this many installs whose likeliest click could be matched.
    package static let thresholdMinimumInstalls = 100.0

    /// One install's likeliest click, as the thresholds see it.
    struct Candidate {
        /// The click's posterior.
        var posterior: Double
        /// The install's weight (older installs weigh less).
        var weight: Double
        /// The chance, by the model, that the install came without a click.
        var organic: Double
    }

    /// The threshold of each class (installs whose likeliest click came with page signals, and the others), from the
    /// matches the model would make among `observations` (those not ambiguous), walking down from the surest: the
    /// lowest posterior at which those matches are, by their posteriors, right `targetPrecision` of the time on
    /// average, within `thresholdBounds`. When most of these installs' clicks came without page signals (an app whose
    /// links open without the interstitial), the second class aims at `targetPrecisionWithoutSignals` instead and goes
    /// below the fixed threshold while the organic installs both classes' matches would take, by the model's
    /// reckoning, stay within `organicBudget` of all the organic installs it reckons; otherwise it is held as the first.
    /// A class with too few installs keeps the fixed threshold; nil when both have too few.
    static func thresholds(_ observations: [LearningObservation], model: MatchModel) -> [Double]? {
        var model = model
        model.learntThresholds = nil
        let matcher = AttributionMatcher(model: model, calibration: .identity)
        var best: [[Candidate]] = [[], []]
        var organic = 0.0
        for observation in observations {
            let weights = matcher.weights(install: observation.install, candidates: observation.candidates, window: observation.window)
            let total = weights.total
            guard total.isFinite, total > 0 else { continue }
            organic += observation.weight * weights.organic / total
            guard var top = weights.clicks.first else { continue }
            for each in weights.clicks.dropFirst() where each.weight > top.weight { top = each }
            let clicks = observation.candidates.clicks
            var rival = 0.0
            for each in weights.clicks where each.weight > rival && clicks[each.index].linkID != clicks[top.index].linkID { rival = each.weight }
            // An ambiguous install is declined whatever the threshold.
            guard rival < top.weight * model.ambiguityRatio else { continue }
            let rich = DeviceFingerprint.Parts(of: clicks[top.index]) != nil
            best[rich ? 0 : 1].append(Candidate(posterior: top.weight / total, weight: observation.weight, organic: weights.organic / total))
        }
        let enough = best.map { $0.reduce(0) { $0 + $1.weight } >= thresholdMinimumInstalls }
        guard enough.contains(true) else { return nil }
        let fixed = model.acceptThreshold
        let rich = enough[0] ? threshold(best[0], bounds: thresholdBounds[0]) : fixed
        guard enough[1] else { return [rich, fixed] }
        // An app whose pages mostly send their signals is held to the precision of matches with signals in both classes.
        let weights = best.map { $0.reduce(0) { $0 + $1.weight } }
        guard weights[0] < weights[1] else { return [rich, threshold(best[1], bounds: thresholdBounds[0])] }
        let richOrganic = best[0].filter { $0.posterior >= rich }.reduce(0) { $0 + $1.weight * $1.organic }
        return [rich, threshold(best[1], bounds: thresholdBounds[1], target: targetPrecisionWithoutSignals,
                                organicAllowance: organicBudget * organic - richOrganic, below: fixed)]
    }

    /// The lowest of the best posteriors of `installs` at which all those at or above it average `target` (walking
    /// down from the surest, installs of equal posterior together), held to `bounds`; below the posterior `below`, only
    /// while the organic installs they would take stay within `organicAllowance`.
    static func threshold(_ installs: [Candidate], bounds: ClosedRange<Double>, target: Double = targetPrecision,
                          organicAllowance: Double = .infinity, below: Double = 0) -> Double {
        let sorted = installs.sorted { $0.posterior > $1.posterior }
        var right = 0.0, all = 0.0, organic = 0.0, threshold = bounds.upperBound
        for (index, install) in sorted.enumerated() {
            right += install.weight * install.posterior
            all += install.weight
            organic += install.weight * install.organic
            // A threshold keeps every install at its posterior: judge only once the last of them is counted.
            if index + 1 < sorted.count, sorted[index + 1].posterior == install.posterior { continue }
            guard right / all >= target else { break }
            if install.posterior < below, organic > organicAllowance {
                threshold = max(min(threshold, below), bounds.lowerBound)
                break
            }
            threshold = install.posterior
        }
        return clamp(threshold, bounds)
    }

    /// One delay between a click and a launch, as evidence for the delay model.
    struct DelaySample {
        var delay: TimeInterval
        var window: TimeInterval
        var weight: Double
    }

    /// The delay mixture fitted to weighted samples by a few rounds of expectation–maximisation over log(delay),
    /// each component pulled towards the prior's by `delayPriorWeight` pseudo-samples and held to its bounds.
    static func fitDelays(_ samples: [DelaySample], start: DelayMixture, prior: DelayMixture, rounds: Int = 4) -> DelayMixture {
        var mixture = start
        let count = mixture.components.count
        guard count == prior.components.count, !samples.isEmpty else { return mixture }
        let points = samples.compactMap { sample -> (x: Double, logWindow: Double, weight: Double)? in
            guard sample.delay.isFinite, sample.delay <= sample.window, sample.weight > 0, sample.weight.isFinite else { return nil }
            return (Foundation.log(max(sample.delay, DelayMixture.shortest)), Foundation.log(max(sample.window, DelayMixture.shortest * 2)), sample.weight)
        }
        let logShortest = Foundation.log(DelayMixture.shortest)
        for _ in 0..<rounds {
            var s0 = [Double](repeating: 0, count: count), s1 = s0, s2 = s0
            var floor = 0.0, all = 0.0
            let weights = mixture.components.reduce(0) { $0 + $1.weight }
            for point in points {
                var densities = mixture.components.map {
                    (1 - mixture.floorWeight) * $0.weight / max(weights, 1e-12) * DelayMixture.logNormal(point.x, $0, logWindow: point.logWindow)
                }
                let floorDensity = mixture.floorWeight / (point.logWindow - logShortest)
                let sum = densities.reduce(floorDensity, +)
                guard sum > 0, sum.isFinite else { continue }
                for k in 0..<count {
                    densities[k] /= sum
                    s0[k] += point.weight * densities[k]
                    s1[k] += point.weight * densities[k] * point.x
                    s2[k] += point.weight * densities[k] * point.x * point.x
                }
                floor += point.weight * floorDensity / sum
                all += point.weight
            }
            guard all > 0 else { return mixture }
            let pseudo = delayPriorWeight
            var components: [DelayMixture.Component] = []
            for k in 0..<count {
                let p = prior.components[k]
                let mu0 = Foundation.log(p.median), sigma0 = p.spread
                let kappa = pseudo * p.weight
                let n = s0[k]
                let mu = (s1[k] + kappa * mu0) / (n + kappa)
                let scatter = max(0, s2[k] - 2 * mu * s1[k] + n * mu * mu)
                let variance = (scatter + kappa * (mu - mu0) * (mu - mu0) + kappa * sigma0 * sigma0) / (n + 2 * kappa)
                let bounds = DelayMixture.medianBounds[min(k, DelayMixture.medianBounds.count - 1)]
                components.append(DelayMixture.Component(
                    weight: (n + kappa) / (all - floor + pseudo),
                    median: clamp(Foundation.exp(mu), bounds),
                    spread: clamp(variance.squareRoot(), DelayMixture.spreadBounds)))
            }
            let floorWeight = clamp((floor + pseudo * prior.floorWeight) / (all + pseudo), DelayMixture.floorBounds)
            mixture = DelayMixture(components: components, floorWeight: floorWeight)
        }
        return mixture
    }

    static func clamp(_ value: Double, _ bounds: ClosedRange<Double>) -> Double {
        value.isFinite ? min(bounds.upperBound, max(bounds.lowerBound, value)) : bounds.lowerBound
    }
}

/// What the labelled installs say, computed once: they do not depend on the model.
struct LabelledStatistics {
    /// The labelled delays (inside the window).
    var delays: [AttributionLearner.DelaySample] = []
    /// Agreement counts: (agreed, informative) per signal.
    var os = (agreed: 0.0, informative: 0.0)
    var screen = (agreed: 0.0, informative: 0.0)
    var zone = (agreed: 0.0, informative: 0.0)
    var language = (agreed: 0.0, informative: 0.0)
    /// Labelled clicks that shared no address, network or fingerprint with their install, of all labelled.
    var noSharedKey = (yes: 0.0, all: 0.0)
    /// Where the install came from relative to its click, by delay: still on the click's network, and on it, from
    /// another address.
    var stayed: [(delay: TimeInterval, yes: Bool, weight: Double)] = []
    var movedAddress: [(delay: TimeInterval, yes: Bool, weight: Double)] = []
    /// Android installs whose Play Store referrer arrived, by `MatchModel.addressBucket`: those it tied to a click, and
    /// those it named no click for (organic).
    var androidReferred = [Double](repeating: 0, count: MatchModel.addressBuckets)
    var androidOrganic = [Double](repeating: 0, count: MatchModel.addressBuckets)

    /// How many referred Android installs it takes before their shares replace what the unlabelled installs say.
    static let referrerMinimum = 50.0

    init(_ observations: [LearningObservation]) {
        for observation in observations {
            let bucket = MatchModel.addressBucket(observation.candidates.sameAddressClicks)
            let counted = observation.weight.isFinite && observation.weight > 0 ? observation.weight : 0
            if observation.isAndroid {
                switch observation.label {
                case .click: androidReferred[bucket] += counted
                case .organic: androidOrganic[bucket] += counted
                case .unlabelled, .userClick: break
                }
            }
            guard let click = observation.label.click else { continue }
            let install = observation.install, weight = observation.weight
            let delay = install.at.timeIntervalSince(click.createdAt)
            guard delay.isFinite, delay >= -60, delay <= observation.window else { continue }
            delays.append(.init(delay: delay, window: observation.window, weight: weight))
            let sameAddress = install.addressHash != nil && install.addressHash == click.addressHash
            let sameNetwork = install.networkHash != nil && install.networkHash == click.networkHash
            if install.addressHash != nil, click.addressHash != nil {
                stayed.append((max(delay, 0), sameAddress || sameNetwork, weight))
                if sameAddress || sameNetwork { movedAddress.append((max(delay, 0), !sameAddress, weight)) }
            }
            let fingerprint = DeviceFingerprint.Parts(of: install.signals)
            let sharesFingerprint = fingerprint != nil && fingerprint == DeviceFingerprint.Parts(of: click)
            noSharedKey.all += weight
            if !sameAddress, !sameNetwork, !sharesFingerprint { noSharedKey.yes += weight }
            let signals = install.signals
            if let c = click.osVersion.flatMap(AttributionMatcher.majorMinor), let i = signals.osVersion.flatMap(AttributionMatcher.majorMinor),
               !(c == "18.6" && (Int(i.split(separator: ".")[0]) ?? 0) >= 26), !(c == "10.0" && signals.platform?.lowercased() == "android") {
                os.informative += weight
                if c == i { os.agreed += weight }
            }
            if let w = click.screenWidth, let h = click.screenHeight, let iw = signals.screenWidth, let ih = signals.screenHeight {
                screen.informative += weight
                let sameScale = click.screenScale == nil || signals.screenScale == nil || abs((click.screenScale ?? 0) - (signals.screenScale ?? 0)) < 0.05
                if (min(w, h), max(w, h)) == (min(iw, ih), max(iw, ih)), sameScale { screen.agreed += weight }
            }
            if let a = click.timeZone, let b = signals.timeZone {
                zone.informative += weight
                if a == b { zone.agreed += weight }
            }
            if let a = click.languages.first?.lowercased(), let b = signals.languages?.first?.lowercased() {
                language.informative += weight
                if a == b { language.agreed += weight }
            }
        }
    }

    /// The Android click shares from the Play Store referrer. Among installs whose referrer arrived, those caused by a
    /// click are exactly those it tied to one; whether a referrer arrives does not depend on where the install came
    /// from, so the same shares hold for the installs without one, which the probabilistic tier answers. Expectation–
    /// maximisation cannot find them there: Android's signals hardly tell a household member's click from the
    /// installer's own. Kept to what the unlabelled installs say until enough referrers have arrived.
    func applyReferrerShares(to model: inout MatchModel, prior: MatchModel) {
        let referred = androidReferred.reduce(0, +), organic = androidOrganic.reduce(0, +)
        guard organic > 0, referred + organic >= Self.referrerMinimum else { return }
        let m = AttributionLearner.clickedSharePriorWeight
        let share = AttributionLearner.clamp((referred + m * prior.androidClickedShare) / (referred + organic + m), 0.02...0.98)
        model.androidClickedShare = share
        var table = model.clickedShareByAddress ?? [Array(repeating: model.clickedShare, count: MatchModel.addressBuckets),
                                                    Array(repeating: share, count: MatchModel.addressBuckets)]
        table[1] = (0..<MatchModel.addressBuckets).map {
            AttributionLearner.clamp((androidReferred[$0] + m * share) / (androidReferred[$0] + androidOrganic[$0] + m), 0.02...0.98)
        }
        model.clickedShareByAddress = table
    }

    /// Sets the parameters the labels decide: agreement rates, the share of clicks sharing nothing with their install,
    /// and how installs leave their click's network and address with time.
    func apply(to model: inout MatchModel, prior: MatchModel) {
        let m = AttributionLearner.agreementPriorWeight
        func rate(_ counts: (agreed: Double, informative: Double), _ prior: Double) -> Double {
            AttributionLearner.clamp((counts.agreed + m * prior) / (counts.informative + m), 0.85...0.995)
        }
        model.pSameOS = rate(os, prior.pSameOS)
        model.pSameScreen = rate(screen, prior.pSameScreen)
        model.pSameTimeZone = rate(zone, prior.pSameTimeZone)
        model.pSameLanguage = rate(language, prior.pSameLanguage)
        model.pNoSharedKey = AttributionLearner.clamp((noSharedKey.yes + m * prior.pNoSharedKey) / (noSharedKey.all + m), 0.005...0.2)
        let network = Self.fitApproach(stayed.map { ($0.delay, !$0.yes, $0.weight) }, prior: (prior.networkChangeShare, prior.networkChangeTime))
        model.networkChangeShare = network.share
        model.networkChangeTime = network.time
        let address = Self.fitApproach(movedAddress, prior: (prior.addressChangeShare, prior.addressChangeTime))
        model.addressChangeShare = address.share
        model.addressChangeTime = address.time
    }

    /// The curve `share · (1 − exp(−delay / time))` that best explains yes/no outcomes by delay (maximum likelihood over
    /// a grid), with `networkPriorWeight` pseudo-outcomes drawn from the prior curve.
    static func fitApproach(_ samples: [(delay: TimeInterval, yes: Bool, weight: Double)], prior: (share: Double, time: TimeInterval)) -> (share: Double, time: TimeInterval) {
        // Outcomes binned by log(delay), 5 s to a week.
        let edges = (0...24).map { 5 * Foundation.pow(86400 * 7 / 5, Double($0) / 24) }
        var yes = [Double](repeating: 0, count: 24), all = yes
        for sample in samples {
            let bin = min(23, max(0, edges.firstIndex { $0 > sample.delay }.map { $0 - 1 } ?? 23))
            all[bin] += sample.weight
            if sample.yes { yes[bin] += sample.weight }
        }
        let centres = (0..<24).map { (edges[$0] * edges[$0 + 1]).squareRoot() }
        func curve(_ share: Double, _ time: Double, _ delay: Double) -> Double {
            min(1 - 1e-9, max(1e-9, share * (1 - Foundation.exp(-delay / time))))
        }
        let pseudo = AttributionLearner.networkPriorWeight / 24
        for bin in 0..<24 {
            all[bin] += pseudo
            yes[bin] += pseudo * curve(prior.share, prior.time, centres[bin])
        }
        var best = (share: prior.share, time: prior.time, logLikelihood: -Double.infinity)
        for shareStep in 5...95 {
            let share = Double(shareStep) / 100
            for timeStep in 0..<60 {
                let time = 900 * Foundation.pow(192, Double(timeStep) / 59)  // 15 min to 48 h
                var ll = 0.0
                for bin in 0..<24 where all[bin] > 0 {
                    let p = curve(share, time, centres[bin])
                    ll += yes[bin] * Foundation.log(p) + (all[bin] - yes[bin]) * Foundation.log(1 - p)
                }
                if ll > best.logLikelihood { best = (share, time, ll) }
            }
        }
        return (best.share, best.time)
    }
}
