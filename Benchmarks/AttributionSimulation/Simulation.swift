import FerryAPI
import FerryCore
import Foundation

/// What happened to one install.
struct InstallOutcome: Sendable {
    enum Tier: Sendable { case deterministic, probabilistic }

    /// Index into the population's installs.
    var install: Int
    var tier: Tier
    /// The click the install was tied to.
    var matchedClick: Int?
    /// The stated confidence of a match.
    var confidence: Double?
    /// The model's posterior for the matched click, before calibration.
    var posterior: Double?
    /// For a decline, the likeliest candidate's posterior (kept only when the replay is asked to:
    /// `Simulation.keepsDeclinedPosteriors`).
    var declinedPosterior: Double?
    var decline: MatchOutcome.DeclineReason?
    /// A match to a click the installing device made on the link that caused the install.
    var correct = false
    /// A wrong match that at least names the right link (another member of the household clicked it too).
    var rightLinkOtherDevice = false
    /// The install carried a click token or referrer, but its click had already gone to another install.
    var tokenClickTaken = false
    /// The install's true click was among its candidates.
    var trueClickOffered = false
    var candidates = 0
}

/// Replays a population against the real `AttributionMatcher`, in install order, consuming matched clicks.
struct Simulation {
    let population: Population
    let matcher: AttributionMatcher
    /// Whether a declined install keeps its likeliest candidate's posterior (which weighs its candidates again).
    var keepsDeclinedPosteriors = false
    /// Whether an organic Android install whose Play Store referrer names no campaign is answered as organic without
    /// the matcher, as the server does for an app that learns (always so in `runLearning`).
    var answersOrganicReferrers = false

    /// The replay with Ferry's matcher.
    func run() -> [InstallOutcome] { run(rule: false) }

    /// The same replay with the unambiguous-only rule (`UnambiguousRule`) in place of the probabilistic tier: its own
    /// clicks consumed, the same deterministic tiers first. Its matches state no confidence.
    func runRule() -> [InstallOutcome] { run(rule: true) }

    /// How an app's model is learnt during a replay: as the server does it, from the installs answered so far.
    struct Learning {
        /// The learner (its prior is the model of the first installs).
        var learner = AttributionLearner()
        /// Simulated time between refits.
        var refitInterval: TimeInterval = 6 * 3600
        /// The calibration of a learnt model's posteriors.
        var calibration = Calibration(points: [(0, 0), (0.998, 0.998), (1, 0.998)])
        /// The app's minimum confidence, in place of the learnt thresholds (nil: the default decision).
        var minConfidence: Double?
    }

    /// The replay with a model learnt online: the prior at first, refitted every `refitInterval` of simulated time (and
    /// sooner while the model is young, as the server refits)
    /// on the installs answered before (labelled by their deterministic match where they had one; truth never
    /// reaches the learner). Also the models, in order.
    func runLearning(_ learning: Learning = Learning()) -> (outcomes: [InstallOutcome], models: [(t: Double, model: MatchModel)]) {
        var models: [(t: Double, model: MatchModel)] = []
        let outcomes = run(rule: false, learning: learning) { models.append(($0, $1)) }
        return (outcomes, models)
    }

    private func run(rule: Bool, learning: Learning? = nil, refitted: (Double, MatchModel) -> Void = { _, _ in }) -> [InstallOutcome] {
        let config = population.config
        var index = ClickIndex(clicks: population.clicks, start: config.start)
        var idToIndex: [String: Int] = [:]
        for click in population.clicks { idToIndex[click.evidence.clickID] = click.index }
        var outcomes: [InstallOutcome] = []
        outcomes.reserveCapacity(population.installs.count)
        var matcher = self.matcher
        var observations: [(t: Double, observation: LearningObservation)] = []
        var nextRefit = population.installs.first?.t ?? 0
        var lastRefit = -Double.infinity, fittedOn = 0
        if let learning { matcher = AttributionMatcher(model: learning.learner.prior, calibration: learning.calibration) }
        var organicReferrers = Self.organicReferrerStream(config)
        var userClicks = SimulationRandom(seed: config.seed, stream: "user click label")

        for (position, install) in population.installs.enumerated() {
            let at = population.date(install.t)
            // As the server's refitter: every `refitInterval`, and a young model as soon as it is `youngRefitAge` old and
            // the installs answered have doubled since it was fitted.
            let young = fittedOn < AttributionLearner.youngModelObservations && observations.count >= 2 * fittedOn
                && install.t >= lastRefit + AttributionLearner.youngRefitAge
            if let learning, install.t >= nextRefit || young {
                if !observations.isEmpty {
                    let model = refit(learning, observations: observations, now: install.t, current: matcher.model)
                    matcher = AttributionMatcher(model: model, calibration: learning.calibration)
                    refitted(install.t, model)
                }
                nextRefit = install.t + learning.refitInterval
                lastRefit = install.t
                fittedOn = max(observations.count, 1)
            }
            // FerryKit's choice: Android installs keep sending what they send.
            let signals = population.devices[install.device].platform == .iOS ? config.installSignals.apply(to: install.signals) : install.signals
            let evidence = InstallEvidence(addressHash: install.endpoint.address, networkHash: install.endpoint.network, signals: signals, at: at)
            var outcome = InstallOutcome(install: position, tier: .probabilistic)

            // Deterministic tiers, as the server tries them: the pasteboard token, then the Play Store referrer.
            if let signal = install.deterministic {
                let clickID: String? = switch signal {
                case .clickToken(let token): AttributionRules.clickID(fromToken: token)
                case .referrer(let referrer): AttributionRules.clickID(fromReferrer: referrer)
                }
                if let clickID, let found = idToIndex[clickID],
                   let click = index.unconsumedClick(index: found, since: at.addingTimeInterval(-config.window)) {
                    if learning != nil {
                        // What the matcher would have been offered without the token: the labelled example.
                        let query = CandidateQuery(appID: "app_sim", environment: .live, install: evidence, window: config.window)
                        let counterfactual = index.candidates(query, platform: signals.platform, now: at)
                        observations.append((install.t, LearningObservation(install: evidence, candidates: counterfactual, window: config.window,
                                                                            label: .click(population.clicks[click].evidence))))
                    }
                    index.consume(click)
                    outcome.tier = .deterministic
                    outcome.matchedClick = click
                    outcome.confidence = 1
                    outcome.correct = isCorrect(click: click, install: install)
                    outcomes.append(outcome)
                    continue
                }
                outcome.tokenClickTaken = true
            }

            let query = CandidateQuery(appID: "app_sim", environment: .live, install: evidence, window: config.window)
            let candidates = index.candidates(query, platform: signals.platform, now: at)
            outcome.candidates = candidates.clicks.count
            if let truth = install.truth.clickIndex {
                let id = population.clicks[truth].evidence.clickID
                outcome.trueClickOffered = candidates.clicks.contains { $0.clickID == id }
            }
            if rule {
                if let address = evidence.addressHash,
                   let chosen = UnambiguousRule.match(addressHash: address, signals: signals, platform: signals.platform, among: candidates.clicks),
                   let click = idToIndex[chosen.clickID] {
                    index.consume(click)
                    outcome.matchedClick = click
                    outcome.correct = isCorrect(click: click, install: install)
                    if !outcome.correct, let truth = install.truth.clickIndex {
                        outcome.rightLinkOtherDevice = population.clicks[click].linkID == population.clicks[truth].linkID
                    }
                } else {
                    outcome.decline = .ambiguous
                }
                outcomes.append(outcome)
                continue
            }
            if learning != nil || answersOrganicReferrers {
                // An organic Android install whose Play Store referrer arrived names no campaign of the app: the server
                // takes it as organic (labelled, and not matched).
                if Self.hasOrganicReferrer(install, population: population, random: &organicReferrers) {
                    if learning != nil {
                        observations.append((install.t, LearningObservation(install: evidence, candidates: candidates, window: config.window, label: .organic)))
                    }
                    outcome.decline = .tooWeak
                    outcomes.append(outcome)
                    continue
                }
            }
            if learning != nil {
                // The user bound later had clicked signed in: the server labels the install with that click (its
                // own, within the window, on its platform: the last such click, which the simulated person's is).
                var label = LearningObservation.Label.unlabelled
                if case .clicked(let truth, let delay) = install.truth, delay <= config.window, userClicks.chance(config.userClickLabelShare) {
                    label = .userClick(population.clicks[truth].evidence)
                }
                observations.append((install.t, LearningObservation(install: evidence, candidates: candidates, window: config.window, label: label)))
            }
            switch matcher.match(install: evidence, candidates: candidates, window: config.window, minConfidence: learning?.minConfidence) {
            case .matched(let clickID, _, let confidence):
                guard let click = idToIndex[clickID], candidates.clicks.contains(where: { $0.clickID == clickID }) else {
                    fatalError("the matcher returned a click that was not offered")
                }
                index.consume(click)
                outcome.matchedClick = click
                outcome.confidence = confidence
                outcome.posterior = matcher.posteriors(install: evidence, candidates: candidates, window: config.window)
                    .first { $0.click.clickID == clickID }?.posterior
                outcome.correct = isCorrect(click: click, install: install)
                if !outcome.correct, let truth = install.truth.clickIndex {
                    outcome.rightLinkOtherDevice = population.clicks[click].linkID == population.clicks[truth].linkID
                }
            case .declined(let reason):
                outcome.decline = reason
                if keepsDeclinedPosteriors {
                    outcome.declinedPosterior = matcher.posteriors(install: evidence, candidates: candidates, window: config.window).map(\.posterior).max()
                }
            }
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// Whether `install` is an organic Android install whose Play Store referrer arrived (naming no campaign of the
    /// app): drawn from `random` for each organic Android install without a deterministic signal, in install order.
    static func hasOrganicReferrer(_ install: SimInstall, population: Population, random: inout SimulationRandom) -> Bool {
        guard case .organic = install.truth, population.devices[install.device].platform == .android, install.deterministic == nil else { return false }
        return random.chance(population.config.androidOrganicReferrerShare)
    }

    /// The random stream of ``hasOrganicReferrer(_:population:random:)``.
    static func organicReferrerStream(_ config: SimulationConfig) -> SimulationRandom {
        SimulationRandom(seed: config.seed, stream: "play organic referrer")
    }

    /// The model fitted on the installs before `now`, as the server refits (`AttributionRefitter`): those of the
    /// learner's `observationMemory`, older ones weighing less, with the value frequencies of the window's clicks (the
    /// server keeps no click's signals longer).
    private func refit(_ learning: Learning, observations: [(t: Double, observation: LearningObservation)], now: Double, current: MatchModel) -> MatchModel {
        var frequencies = ValueFrequencies()
        for click in population.clicks where click.t < now && click.t >= now - population.config.window && click.platform != .desktop {
            frequencies.add(click.evidence)
        }
        frequencies.keepMostCommon(AttributionLearner.frequencyValues)
        let kept = observations.filter { $0.t < now && $0.t >= now - AttributionLearner.observationMemory }.map { entry -> LearningObservation in
            var observation = entry.observation
            observation.weight = AttributionLearner.weight(age: now - entry.t)
            return observation
        }
        return learning.learner.fit(kept, frequencies: frequencies, start: current)
    }

    /// Right when the click is one the installing device made, before the install, on the link that caused it.
    func isCorrect(click: Int, install: SimInstall) -> Bool {
        guard let truth = install.truth.clickIndex else { return false }
        let matched = population.clicks[click], real = population.clicks[truth]
        return matched.device == install.device && matched.linkID == real.linkID && matched.t <= install.t
    }
}
