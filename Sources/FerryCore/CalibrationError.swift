import Foundation

/// Expected calibration error (ECE) of stated confidences: `Σ_b (n_b/n)·|mean stated_b − observed precision_b|`
/// over bands of 0.05 of stated confidence from 0.40 (the lowest an app may ask for) to 1.0, where `n_b` is the
/// band's matches and `n` all the matches in the bands. The simulator judges its families with it, and an app's report
/// its labelled installs.
package struct CalibrationError: Sendable, Hashable, Codable {
    /// Below this many matches the figure says too little to count for or against a goal.
    package static let minimumCount = 100
    /// 0.40, 0.45, …, 0.95 and just above 1, so that 1.0 falls in the last band.
    package static let edges: [Double] = (8...19).map { Double($0) / 20 } + [1.0000001]

    /// Matches whose stated confidence is in `low..<high`, and how many were right.
    package struct Band: Sendable, Hashable, Codable {
        package var low: Double
        package var high: Double
        package var count = 0
        package var confidenceSum = 0.0
        package var correct = 0

        /// Creates an empty band.
        package init(low: Double, high: Double) {
            self.low = low
            self.high = high
        }

        /// The mean stated confidence, NaN when empty.
        package var meanConfidence: Double { count == 0 ? .nan : confidenceSum / Double(count) }
        /// The share that was right, NaN when empty.
        package var precision: Double { count == 0 ? .nan : Double(correct) / Double(count) }
    }

    package var bands: [Band] = zip(Self.edges, Self.edges.dropFirst()).map { Band(low: $0, high: $1) }
    /// Matches stated below 0.40, counted nowhere else.
    package var belowBands = 0

    /// No matches yet.
    package init() {}

    /// Counts a match.
    package mutating func add(confidence: Double, correct: Bool) {
        if !bands.add(confidence: confidence, correct: correct) { belowBands += 1 }
    }

    /// Matches in the bands.
    package var count: Int { bands.reduce(0) { $0 + $1.count } }

    /// The error, NaN without matches.
    package var value: Double {
        let n = count
        guard n > 0 else { return .nan }
        return bands.filter { $0.count > 0 }.reduce(0) { $0 + Double($1.count) / Double(n) * abs($1.meanConfidence - $1.precision) }
    }

    /// Whether there are enough matches for the figure to count.
    package var isMeasured: Bool { count >= Self.minimumCount }
}

extension [CalibrationError.Band] {
    /// Counts a match in the band its confidence falls in; false when it falls in none.
    @discardableResult
    package mutating func add(confidence: Double, correct: Bool) -> Bool {
        guard let band = firstIndex(where: { confidence >= $0.low && confidence < $0.high }) else { return false }
        self[band].count += 1
        self[band].confidenceSum += confidence
        if correct { self[band].correct += 1 }
        return true
    }
}
