import Foundation

/// What a model learnt for an app says, in a few numbers an operator can read: what it was fitted on, how many
/// installs it takes to come from a click, and how long people take from a click to the first launch.
package struct AttributionModelSummary: Sendable, Hashable, Codable {
    /// The observations the model was fitted on, by label.
    package var observations: Int
    /// …tied to their click by a click token or the Play Store referrer…
    package var labelled: Int
    /// …known to have come without a click…
    package var organic: Int
    /// …and answered by the probabilistic tier.
    package var unlabelled: Int
    /// The fitted share of iOS installs reaching the probabilistic tier that came from a click.
    package var clickedShare: Double
    /// The same for Android.
    package var androidClickedShare: Double
    /// The same by how many clicks the install's address had in the window (none, 1, 2, 3–5, 6–20, more): iOS, then
    /// Android.
    package var clickedShareByAddress: [[Double]]?
    /// The attribution window the delays below are read over, in seconds.
    package var window: TimeInterval
    /// Delays from a click to the first launch, in seconds, at the shares of `DelayQuantile.shares`.
    package var delayQuantiles: [DelayQuantile]

    /// One point of the delay distribution: `share` of first launches come within `seconds` of their click.
    package struct DelayQuantile: Sendable, Hashable, Codable {
        package var share: Double
        package var seconds: TimeInterval

        package init(share: Double, seconds: TimeInterval) {
            self.share = share
            self.seconds = seconds
        }

        /// The shares the summary reports.
        package static let shares = [0.1, 0.25, 0.5, 0.75, 0.9]
    }

    /// The summary of `model`, fitted on `observations`, for an app whose attribution window is `window`.
    package init(model: MatchModel, observations: [LearningObservation], window: TimeInterval) {
        self.observations = observations.count
        var counts: [LearningObservation.Label.Kind: Int] = [:]
        for observation in observations { counts[observation.label.kind, default: 0] += 1 }
        labelled = counts[.click, default: 0]
        organic = counts[.organic, default: 0]
        unlabelled = counts[.unlabelled, default: 0]
        clickedShare = model.clickedShare
        androidClickedShare = model.androidClickedShare
        clickedShareByAddress = model.clickedShareByAddress
        self.window = window
        delayQuantiles = model.delayMixture.map { mixture in
            DelayQuantile.shares.map { DelayQuantile(share: $0, seconds: Self.delay(at: $0, of: mixture, window: window)) }
        } ?? []
    }

    /// The delay below which `share` of the mixture lies over the window, to the second (bisection over log(delay)).
    static func delay(at share: Double, of mixture: DelayMixture, window: TimeInterval) -> TimeInterval {
        var low = Foundation.log(DelayMixture.shortest), high = Foundation.log(max(window, DelayMixture.shortest * 2))
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if mixture.cumulative(Foundation.exp(middle), window: window) < share { low = middle } else { high = middle }
        }
        return Foundation.exp(high).rounded()
    }
}
