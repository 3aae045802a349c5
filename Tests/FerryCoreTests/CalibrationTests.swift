import FerryAPI
import Foundation
import Testing
@testable import FerryCore

/// The calibration's inverse, by which a minimum confidence becomes the posterior a probabilistic match needs.
@Suite struct CalibrationTests {
    @Test func theInverseIsTheSmallestPosteriorStatedThatSure() throws {
        let calibration = Calibration.default
        var previous = 0.0
        for step in 0...998 {
            let minimum = Double(step) / 1000
            let posterior = try #require(calibration.posterior(forConfidence: minimum), "\(minimum)")
            #expect(posterior >= previous, "monotone at \(minimum)")
            #expect(calibration.confidence(forPosterior: posterior) >= minimum, "reaches \(minimum)")
            if posterior > 0 {
                #expect(calibration.confidence(forPosterior: posterior.nextDown) < minimum, "the smallest for \(minimum)")
            }
            previous = posterior
        }
        // Below the fitted range the calibration follows the posterior closely: 0.5 needs about 0.497.
        let half = try #require(calibration.posterior(forConfidence: 0.5))
        #expect(abs(half - 0.5 * 0.892445 / 0.8975) < 1e-9)
        // The model's own threshold states about 0.855.
        #expect(calibration.posterior(forConfidence: calibration.confidence(forPosterior: 0.85))! <= 0.85)
    }

    @Test func aFlatStretchAnswersWithItsStart() throws {
        // The default states 0.985 from 0.990445 to 0.996086.
        let start = try #require(Calibration.default.posterior(forConfidence: 0.985))
        #expect(abs(start - 0.990445) < 1e-9)
        #expect(Calibration.default.confidence(forPosterior: 0.996) >= 0.985)
        // A calibration that states 0.3 for every posterior up to 0.5: any minimum up to 0.3 is met by every posterior.
        let flat = Calibration(points: [(0, 0.3), (0.5, 0.3), (1, 0.9)])
        #expect(flat.posterior(forConfidence: 0.3) == 0)
        #expect(flat.posterior(forConfidence: 0.1) == 0)
        let above = try #require(flat.posterior(forConfidence: 0.6))
        #expect(abs(above - 0.75) < 1e-12)
        #expect(Calibration.identity.posterior(forConfidence: 0.7) == 0.7)
    }

    @Test func minimumsOutsideTheCalibrationAreNoneOrEveryPosterior() {
        // Nothing probabilistic is stated above 0.998: certainty is for deterministic matches.
        for minimum in [0.9981, 0.999, 1, 1.5, .infinity, .nan] as [Double] {
            #expect(Calibration.default.posterior(forConfidence: minimum) == nil, "\(minimum)")
        }
        #expect(Calibration.default.posterior(forConfidence: 0.998) != nil)
        for minimum in [0, -0.5, -.infinity] as [Double] {
            #expect(Calibration.default.posterior(forConfidence: minimum) == 0, "\(minimum)")
        }
    }
}
