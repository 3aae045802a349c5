import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

/// The calibration's inverse, by which a minimum confidence becomes the posterior a probabilistic match needs.
@Suite(.takesTurns) struct CalibrationTests {
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

/// The matcher with a minimum confidence: the threshold becomes the calibration's inverse of the minimum.
@Suite(.takesTurns) struct AttributionMatcherMinimumTests {
    static let now = Date(timeIntervalSince1970: 1_767_643_200)
    static let install = InstallEvidence(
        addressHash: "addr-home", networkHash: "net-home",
        signals: DeviceSignals(platform: "ios", osVersion: "18.1", model: "iPhone16,1", screenWidth: 393, screenHeight: 852, screenScale: 3,
                               timeZone: "America/New_York", timeZoneOffsetSeconds: -18000, languages: ["en-US"]),
        at: now)

    /// A click of the shared link from the household's address by an iPhone 15 on iOS 18.1 whose page reported `languages`.
    static func click(_ id: String, languages: [String], secondsBefore: TimeInterval, link: String = "lnk_shared") -> ClickEvidence {
        ClickEvidence(clickID: id, linkID: link, createdAt: now.addingTimeInterval(-secondsBefore), addressHash: "addr-home", networkHash: "net-home",
                      osVersion: "18.1", appleDevice: "iphone", screenWidth: 393, screenHeight: 852, screenScale: 3, timeZone: "America/New_York",
                      timeZoneOffsetSeconds: -18000, languages: languages)
    }

    /// Two iPhones of one household, the same model on the same iOS, clicked the same link: the installing one in
    /// American English, its twin in British English (as `MinConfidenceTests` makes them over HTTP).
    static func household(secondsBefore: TimeInterval) -> CandidateSet {
        CandidateSet(clicks: [click("clk_mine", languages: ["en-US", "en"], secondsBefore: secondsBefore),
                              click("clk_twin", languages: ["en-GB", "en"], secondsBefore: secondsBefore)],
                     clicksInWindow: 2, sameAddressClicks: 2, sameNetworkClicks: 2)
    }

    let matcher = AttributionMatcher()

    /// Likely the first phone's, at any delay, never sure enough for the model's threshold: a minimum of 0.5 takes it.
    @Test(arguments: [1, 10, 60, 600, 3600, 6 * 3600, 23 * 3600] as [TimeInterval])
    func aHouseholdInstallIsMatchedOnlyWhenAskedForLess(secondsBefore: TimeInterval) throws {
        let candidates = Self.household(secondsBefore: secondsBefore)
        let posteriors = matcher.posteriors(install: Self.install, candidates: candidates, window: 86400)
        let mine = try #require(posteriors.first { $0.click.clickID == "clk_mine" }).posterior
        #expect(mine > 0.5 && mine < 0.85, "\(mine)")
        #expect(matcher.match(install: Self.install, candidates: candidates, window: 86400) == .declined(reason: .tooWeak))
        let outcome = matcher.match(install: Self.install, candidates: candidates, window: 86400, minConfidence: 0.5)
        #expect(outcome == .matched(clickID: "clk_mine", linkID: "lnk_shared", confidence: Calibration.default.confidence(forPosterior: mine)))
        guard case .matched(_, _, let confidence) = outcome else { return }
        #expect(confidence >= 0.5)
        // A minimum just above what the match states declines it; one at what it states takes it.
        #expect(matcher.match(install: Self.install, candidates: candidates, window: 86400, minConfidence: confidence.nextUp) == .declined(reason: .tooWeak))
        #expect(matcher.match(install: Self.install, candidates: candidates, window: 86400, minConfidence: confidence) == outcome)
        // A minimum replaces the threshold argument, which is then not read.
        #expect(matcher.match(install: Self.install, candidates: candidates, window: 86400, acceptThreshold: 0.99, minConfidence: 0.5) == outcome)
    }

    @Test func theAmbiguityRuleHoldsAtAnyMinimum() {
        // The twin clicked another link: two links, and no telling which.
        let candidates = CandidateSet(clicks: [Self.click("clk_mine", languages: ["en-US", "en"], secondsBefore: 60),
                                               Self.click("clk_twin", languages: ["en-GB", "en"], secondsBefore: 60, link: "lnk_other")],
                                      clicksInWindow: 2, sameAddressClicks: 2, sameNetworkClicks: 2)
        #expect(matcher.match(install: Self.install, candidates: candidates, window: 86400, minConfidence: 0.4) == .declined(reason: .ambiguous))
    }

    @Test func oneMatchesNothingProbabilistic() {
        // One click of the installing phone, seconds before: as sure as a probabilistic match gets.
        let candidates = CandidateSet(clicks: [Self.click("clk_mine", languages: ["en-US", "en"], secondsBefore: 300)],
                                      clicksInWindow: 1, sameAddressClicks: 1, sameNetworkClicks: 1)
        guard case .matched(_, _, let confidence) = matcher.match(install: Self.install, candidates: candidates, window: 86400) else {
            Issue.record("expected a match by the model's threshold")
            return
        }
        #expect(confidence > 0.95)
        #expect(matcher.match(install: Self.install, candidates: candidates, window: 86400, minConfidence: 1) == .declined(reason: .tooWeak))
        #expect(matcher.match(install: Self.install, candidates: CandidateSet(clicks: [], clicksInWindow: 0, sameAddressClicks: 0, sameNetworkClicks: 0),
                              window: 86400, minConfidence: 1) == .declined(reason: .noCandidates))
    }
}
