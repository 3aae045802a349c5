import Foundation

/// How long people take from a click to the app's first launch: a mixture of log-normal components (opened at once,
/// later that day, the next day) and a floor spread evenly over the logarithm of the delay, so that no delay inside
/// the window is ever held impossible. Each component is renormalised to the window (a click older than the window
/// is never a candidate), so the density integrates to 1 over it.
package struct DelayMixture: Sendable, Hashable, Codable {
    /// One log-normal component.
    package struct Component: Sendable, Hashable, Codable {
        /// Its share of the mixture (before the floor).
        package var weight: Double
        /// Its median delay, in seconds.
        package var median: TimeInterval
        /// The standard deviation of the delay's natural logarithm.
        package var spread: Double

        /// Creates a component.
        package init(weight: Double, median: TimeInterval, spread: Double) {
            self.weight = weight
            self.median = median
            self.spread = spread
        }
    }

    /// The components, quickest first.
    package var components: [Component]
    /// The floor's share: spread evenly over `log(delay)` from `shortest` to the window.
    package var floorWeight: Double

    /// The shortest delay the mixture tells apart; shorter ones (clock skew, a click recorded late) count as this.
    package static let shortest: TimeInterval = 5

    /// Creates a mixture.
    package init(components: [Component], floorWeight: Double) {
        self.components = components
        self.floorWeight = floorWeight
    }

    /// What a new app starts from: heavy-tailed, so that a launch 30 seconds after its click is ordinary (2% of
    /// launches come within 30 s, 5% within a minute) and one the next day is not exceptional (15% after 6 h).
    package static let prior = DelayMixture(
        components: [
            Component(weight: 0.55, median: 5 * 60, spread: 1.1),
            Component(weight: 0.25, median: 2.5 * 3600, spread: 1.0),
            Component(weight: 0.15, median: 16 * 3600, spread: 0.8),
        ],
        floorWeight: 0.05
    )

    /// The bounds a fitted mixture is held to, component by component (median range, spread range): they keep the
    /// components in their order and stop one from collapsing onto a few samples.
    package static let medianBounds: [ClosedRange<TimeInterval>] = [10...(30 * 60), (30 * 60)...(8 * 3600), (6 * 3600)...(7 * 86400)]
    package static let spreadBounds: ClosedRange<Double> = 0.3...2.0
    package static let floorBounds: ClosedRange<Double> = 0.03...0.2

    /// The probability density of `delay` (per second), over the window.
    package func density(_ delay: TimeInterval, window: TimeInterval) -> Double {
        let window = max(window, Self.shortest * 2)
        let seconds = min(max(delay.isFinite ? delay : Self.shortest, Self.shortest), window)
        let x = Foundation.log(seconds)
        let logWindow = Foundation.log(window)
        var total = 0.0
        for component in components {
            total += component.weight * Self.logNormal(x, component, logWindow: logWindow)
        }
        let weights = components.reduce(0) { $0 + $1.weight }
        // The floor: uniform in log(delay) over [shortest, window].
        let floor = 1 / (logWindow - Foundation.log(Self.shortest))
        let logDensity = (1 - floorWeight) * total / max(weights, 1e-12) + floorWeight * floor
        // From a density over log(delay) to one over delay.
        return logDensity / seconds
    }

    /// The density against a uniform spread over the window: how much likelier the delay is for the click that caused
    /// the install than for an unrelated one.
    package func ratio(_ delay: TimeInterval, window: TimeInterval) -> Double {
        let ratio = density(delay, window: window) * window
        return ratio.isFinite ? min(1000, max(0.001, ratio)) : 1
    }

    /// A component's density over log(delay) at `x`, renormalised to delays up to the window.
    static func logNormal(_ x: Double, _ component: Component, logWindow: Double) -> Double {
        let mu = Foundation.log(max(component.median, 1))
        let sigma = max(component.spread, 0.05)
        let z = (x - mu) / sigma
        let mass = max(normalCDF((logWindow - mu) / sigma), 1e-6)
        return Foundation.exp(-0.5 * z * z) / (sigma * (2 * Double.pi).squareRoot()) / mass
    }

    /// The standard normal distribution function.
    static func normalCDF(_ z: Double) -> Double { 0.5 * erfc(-z / 2.squareRoot()) }

    /// The share of delays at or below `delay`, over the window.
    package func cumulative(_ delay: TimeInterval, window: TimeInterval) -> Double {
        let window = max(window, Self.shortest * 2)
        let seconds = min(max(delay, Self.shortest), window)
        let x = Foundation.log(seconds), logWindow = Foundation.log(window), logShortest = Foundation.log(Self.shortest)
        let weights = max(components.reduce(0) { $0 + $1.weight }, 1e-12)
        var total = 0.0
        for component in components {
            let mu = Foundation.log(max(component.median, 1)), sigma = max(component.spread, 0.05)
            let mass = max(Self.normalCDF((logWindow - mu) / sigma), 1e-6)
            total += component.weight * Self.normalCDF((x - mu) / sigma) / mass
        }
        return (1 - floorWeight) * total / weights + floorWeight * (x - logShortest) / (logWindow - logShortest)
    }
}
