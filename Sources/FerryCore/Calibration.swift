/// A monotone map from the model's posterior to the confidence an answer states: for each band of posteriors, the
/// share of matches the simulator found right.
package struct Calibration: Sendable, Hashable {
    /// `(posterior, observed precision)` points, ascending; values between are interpolated.
    package var points: [(posterior: Double, confidence: Double)]

    /// Creates a calibration from points.
    package init(points: [(posterior: Double, confidence: Double)]) {
        self.points = points.sorted { $0.posterior < $1.posterior }
    }

    /// The identity: the posterior is the confidence.
    package static let identity = Calibration(points: [(0, 0), (1, 1)])

    /// The calibration measured by the simulator (docs/attribution.md): an isotonic fit of observed precision
    /// against the posterior over the matches of seed 1 (`FERRY_BENCHMARKS=1 swift run -c release AttributionSimulator
    /// --seed 1 --fit --raw`), checked on seed 3. Below the fitted range it follows the posterior, which the simulator finds nearly
    /// calibrated; it never states more than 0.998, certainty being for deterministic matches.
    package static let `default` = Calibration(points: [
        (0, 0),
        (0.892445, 0.8975),
        (0.939096, 0.9175),
        (0.965703, 0.9400),
        (0.980582, 0.9800),
        (0.990445, 0.9850),
        (0.996086, 0.9850),
        (0.998121, 0.9950),
        (0.999584, 0.9978),
        (0.999983, 0.9980),
        (0.999998, 0.9980),
    ])

    /// The stated confidence for a posterior, in 0…1.
    package func confidence(forPosterior posterior: Double) -> Double {
        let p = min(1, max(0, posterior))
        guard let first = points.first, let last = points.last else { return p }
        if p <= first.posterior { return first.confidence }
        if p >= last.posterior { return last.confidence }
        for (a, b) in zip(points, points.dropFirst()) where p <= b.posterior {
            let t = (p - a.posterior) / max(1e-12, b.posterior - a.posterior)
            return a.confidence + t * (b.confidence - a.confidence)
        }
        return last.confidence
    }

    /// The smallest posterior whose stated confidence reaches `confidence`: the posterior threshold that stands for a
    /// minimum confidence (the inverse of ``confidence(forPosterior:)``). Where the calibration is flat, the start of
    /// the flat stretch; 0 when every posterior is stated at least that sure; nil when none is (above the calibration's
    /// highest confidence, 0.998 by default: no probabilistic match is that sure) or for NaN.
    ///
    /// Found by bisection on ``confidence(forPosterior:)`` itself, so that whatever its rounding,
    /// `confidence(forPosterior: posterior(forConfidence: c)!) >= c` always holds.
    package func posterior(forConfidence confidence: Double) -> Double? {
        guard !confidence.isNaN else { return nil }
        if self.confidence(forPosterior: 0) >= confidence { return 0 }
        guard self.confidence(forPosterior: 1) >= confidence else { return nil }
        // Below `low` the confidence falls short, from `high` on it reaches the minimum: halve until they are neighbours.
        var low = 0.0, high = 1.0
        while true {
            let middle = low + (high - low) / 2
            guard middle > low, middle < high else { return high }
            if self.confidence(forPosterior: middle) >= confidence { high = middle } else { low = middle }
        }
    }

    package static func == (lhs: Calibration, rhs: Calibration) -> Bool {
        lhs.points.map(\.posterior) == rhs.points.map(\.posterior) && lhs.points.map(\.confidence) == rhs.points.map(\.confidence)
    }

    package func hash(into hasher: inout Hasher) {
        for point in points { hasher.combine(point.posterior); hasher.combine(point.confidence) }
    }
}
