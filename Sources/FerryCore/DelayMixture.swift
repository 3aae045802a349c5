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

/// How the delays from clicks that did not cause an install to the install spread over the window, against an even
/// spread. People use their phones at the same hours, so an unrelated click minutes before an install is commoner
/// than an even spread says; behind a carrier's shared address, where many unrelated clicks are candidates, taking
/// every short delay as evidence makes the matcher too sure. Learnt per app from the candidates its model holds
/// unrelated.
package struct UnrelatedDelays: Sendable, Hashable, Codable {
    /// Where each bin starts, in seconds: under a minute, 1–5 min, 5–15 min, 15–60 min, 1–3 h, 3–6 h, 6–12 h, and 12 h
    /// to the end of the window.
    package static let starts: [TimeInterval] = [0, 60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600]
    /// The bins as people read them, in the order of `starts`.
    package static let binNames = ["under 1 min", "1–5 min", "5–15 min", "15–60 min", "1–3 h", "3–6 h", "6–12 h", "12 h or more"]
    /// The learnt densities stay within these bounds of an even spread.
    package static let bounds: ClosedRange<Double> = 0.25...4

    /// Each bin's density against an even spread over the window (1: as even).
    package var relative: [Double]

    /// Creates the densities.
    package init(relative: [Double]) {
        self.relative = relative
    }

    /// The bin of a delay (a click a little after the install, clock skew, counts as the first).
    static func bin(_ delay: TimeInterval) -> Int {
        guard delay.isFinite else { return 0 }
        return max(0, (starts.lastIndex { $0 <= delay }) ?? 0)
    }

    /// The share of a window of `window` seconds that bin `index` covers.
    static func width(_ index: Int, window: TimeInterval) -> Double {
        guard window.isFinite, window > 0 else { return 0 }
        let start = min(starts[index], window)
        let end = index + 1 < starts.count ? min(starts[index + 1], window) : window
        return max(0, end - start) / window
    }

    /// How much commoner than an even spread an unrelated click `delay` before the install is (1 when the densities
    /// are not usable).
    package func factor(_ delay: TimeInterval) -> Double {
        guard relative.count == Self.starts.count else { return 1 }
        let value = relative[Self.bin(delay)]
        return value.isFinite && value > 0 ? min(Self.bounds.upperBound, max(Self.bounds.lowerBound, value)) : 1
    }

    /// Unrelated delays counted by bin, against what an even spread over each one's window would put there.
    package struct Tally: Sendable {
        var observed = [Double](repeating: 0, count: UnrelatedDelays.starts.count)
        var expected = [Double](repeating: 0, count: UnrelatedDelays.starts.count)

        /// Nothing counted.
        package init() {}

        /// Counts one delay, `weight` of it, from a click that was a candidate in a window of `window` seconds.
        package mutating func add(_ delay: TimeInterval, window: TimeInterval, weight: Double) {
            guard weight.isFinite, weight > 0, window.isFinite, window > 0, delay.isFinite, delay <= window else { return }
            observed[UnrelatedDelays.bin(delay)] += weight
            for index in expected.indices { expected[index] += weight * UnrelatedDelays.width(index, window: window) }
        }

        /// Whether nothing was counted.
        package var isEmpty: Bool { expected.allSatisfy { $0 == 0 } }

        /// The densities, pulled towards an even spread by `priorWeight` delays' worth of evidence.
        package func fitted(priorWeight: Double) -> UnrelatedDelays {
            let total = expected.reduce(0, +)
            let relative = expected.indices.map { index -> Double in
                guard total > 0, expected[index] > 0 else { return 1 }
                let pseudo = priorWeight * expected[index] / total
                let value = (observed[index] + pseudo) / (expected[index] + pseudo)
                return min(UnrelatedDelays.bounds.upperBound, max(UnrelatedDelays.bounds.lowerBound, value))
            }
            return UnrelatedDelays(relative: relative)
        }
    }
}
