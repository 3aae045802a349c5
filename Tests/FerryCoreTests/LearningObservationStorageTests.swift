import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

/// Observations as the server keeps them: anonymised (the matcher weighs them exactly as before, and no hash or click
/// id is left), and as JSON that reads back to the same values; models likewise.
@Suite(.takesTurns) struct LearningObservationStorageTests {
    typealias M = AttributionMatcherTests
    static let window: TimeInterval = 86_400

    /// Every weight the matcher gives, bit for bit.
    static func bits(_ weights: AttributionMatcher.Weights) -> [UInt64] {
        [weights.organic.bitPattern, weights.others.bitPattern] + weights.clicks.flatMap { [UInt64($0.index), $0.weight.bitPattern] }
    }

    static func expectSameWeights(_ observation: LearningObservation, matchers: [AttributionMatcher], sourceLocation: SourceLocation = #_sourceLocation) {
        let anonymised = observation.anonymised()
        for matcher in matchers {
            let before = matcher.weights(install: observation.install, candidates: observation.candidates, window: observation.window)
            let after = matcher.weights(install: anonymised.install, candidates: anonymised.candidates, window: anonymised.window)
            #expect(bits(before) == bits(after), sourceLocation: sourceLocation)
        }
    }

    /// The fixed model, the learner's prior, and a model with value frequencies and shares by address.
    static let matchers: [AttributionMatcher] = {
        var learnt = AttributionLearner.defaultPrior
        learnt.clickedShareByAddress = [[0.1, 0.6, 0.5, 0.4, 0.2, 0.1], [0.05, 0.3, 0.2, 0.2, 0.1, 0.05]]
        var frequencies = ValueFrequencies()
        for n in 0..<40 { frequencies.add(M.click("f\(n)", minutesBefore: Double(n), signals: M.phone(width: n % 2 == 0 ? 393 : 430))) }
        learnt.frequencies = frequencies
        return [AttributionMatcher(), AttributionMatcher(model: AttributionLearner.defaultPrior, calibration: .identity),
                AttributionMatcher(model: learnt, calibration: .identity)]
    }()

    @Test func hashesAndClickIdsBecomeTokensThatKeepOnlyEquality() throws {
        let install = M.install(address: "addr-home", network: "net-home")
        let clicks = [
            M.click("clk_A", minutesBefore: 5, address: "addr-home", network: "net-home"),
            M.click("clk_B", minutesBefore: 30, address: "addr-cafe", network: "net-home"),
            M.click("clk_C", link: "lnk_b", minutesBefore: 90, address: "addr-office", network: "net-office"),
            M.click("clk_D", minutesBefore: 200, address: "addr-cafe", network: nil),
            M.click("clk_E", minutesBefore: 300, address: nil, network: "net-office"),
        ]
        let candidates = CandidateSet(clicks: clicks, clicksInWindow: 900, sameAddressClicks: 1, sameNetworkClicks: 2)
        let labelled = LearningObservation(install: install, candidates: candidates, window: Self.window, label: .click(clicks[2]))
        let anonymised = labelled.anonymised()
        #expect(anonymised.install.addressHash == "a0" && anonymised.install.networkHash == "n0")
        #expect(anonymised.candidates.clicks.map(\.addressHash) == ["a0", "a1", "a2", "a1", nil])
        #expect(anonymised.candidates.clicks.map(\.networkHash) == ["n0", "n0", "n1", nil, "n1"])
        #expect(anonymised.candidates.clicks.map(\.clickID) == ["c0", "c1", "c2", "c3", "c4"])
        // The label's click is its candidate's token; the links, times, signals and counts are as they were.
        #expect(anonymised.label == .click(anonymised.candidates.clicks[2]))
        #expect(anonymised.candidates.clicks.map(\.linkID) == clicks.map(\.linkID))
        #expect(anonymised.candidates.clicks.map(\.createdAt) == clicks.map(\.createdAt))
        #expect(anonymised.install.signals == install.signals && anonymised.install.at == install.at)
        #expect(anonymised.candidates.clicksInWindow == 900 && anonymised.candidates.sameAddressClicks == 1 && anonymised.candidates.sameNetworkClicks == 2)
        // Anonymising twice changes nothing more.
        #expect(anonymised.anonymised() == anonymised)
        Self.expectSameWeights(labelled, matchers: Self.matchers)

        // A label's click that was not a candidate (the install left its click's network) takes the next tokens.
        let elsewhere = M.click("clk_Z", minutesBefore: 600, address: "addr-cafe", network: "net-far")
        let moved = LearningObservation(install: install, candidates: candidates, window: Self.window, label: .click(elsewhere)).anonymised()
        guard case .click(let click) = moved.label else { Issue.record("the label changed kind"); return }
        #expect(click.clickID == "c5" && click.addressHash == "a1" && click.networkHash == "n2")
    }

    @Test func anInstallWithoutAnAddressLeavesTheInstallsTokensUnused() {
        let install = M.install(address: nil, network: "net-home")
        let clicks = [M.click("clk_1", minutesBefore: 3, address: "addr-x", network: "net-home"),
                      M.click("clk_2", minutesBefore: 9, address: "addr-x", network: "net-y", signals: M.phone())]
        let observation = LearningObservation(install: install, candidates: CandidateSet(clicks: clicks, clicksInWindow: 50, sameAddressClicks: 0,
                                                                                          sameNetworkClicks: 1), window: Self.window, label: .unlabelled)
        let anonymised = observation.anonymised()
        #expect(anonymised.install.addressHash == nil && anonymised.install.networkHash == "n0")
        #expect(anonymised.candidates.clicks.map(\.addressHash) == ["a1", "a1"])
        #expect(anonymised.candidates.clicks.map(\.networkHash) == ["n0", "n1"])
        Self.expectSameWeights(observation, matchers: Self.matchers)
    }

    /// Random observations over small pools of hashes (so that addresses and networks are shared in every way), with
    /// fingerprints that sometimes agree, delays inside and outside the window, both platforms and every label.
    @Test func theMatcherWeighsRandomObservationsExactlyAsBeforeAnonymising() {
        var random = SeededGenerator(seed: 2_024)
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        let addresses: [String?] = [nil, "h1", "h2", "h3", "h4"], networks: [String?] = [nil, "k1", "k2", "k3"]
        let screens = [(393, 852), (430, 932), (412, 915)], zones = ["America/New_York", "Europe/Paris"]
        for round in 0..<300 {
            let android = round % 4 == 0
            let (w, h) = pick(screens)
            var signals = M.phone(width: w, height: h, zone: pick(zones), os: pick(["18.7.2", "17.5", "26.0"]), languages: [pick(["en-US", "fr-FR"])])
            if android { signals.platform = "android" }
            let install = M.install(signals, address: pick(addresses), network: pick(networks))
            let clicks = (0..<Int.random(in: 0...12, using: &random)).map { n -> ClickEvidence in
                let (cw, ch) = pick(screens)
                return M.click("clk_\(round)_\(n)", link: pick(["lnk_a", "lnk_b"]), minutesBefore: Double.random(in: -3...1_600, using: &random),
                               address: pick(addresses), network: pick(networks),
                               signals: pick([nil, M.phone(width: cw, height: ch, zone: pick(zones))]), uaOS: pick([nil, "18.7", "18.6", "17.5"]))
            }
            let candidates = CandidateSet(clicks: clicks, clicksInWindow: Int.random(in: 0...5_000, using: &random),
                                          sameAddressClicks: Int.random(in: 0...30, using: &random), sameNetworkClicks: Int.random(in: 0...60, using: &random))
            let label: LearningObservation.Label = switch round % 3 {
            case 0: clicks.isEmpty ? .organic : .click(pick(clicks))
            case 1: .click(M.click("clk_away_\(round)", minutesBefore: 20, address: pick(addresses), network: pick(networks)))
            default: .unlabelled
            }
            let observation = LearningObservation(install: install, candidates: candidates, window: Self.window, label: label)
            Self.expectSameWeights(observation, matchers: Self.matchers)
            // No hash or click id survives.
            let anonymised = observation.anonymised()
            let hashes = ([anonymised.install.addressHash, anonymised.install.networkHash] + anonymised.candidates.clicks.flatMap { [$0.addressHash, $0.networkHash] })
                .compactMap { $0 }
            #expect(hashes.allSatisfy { $0.hasPrefix("a") || $0.hasPrefix("n") } && !hashes.contains { $0.hasPrefix("h") || $0.hasPrefix("k") })
            #expect(anonymised.candidates.clicks.allSatisfy { !$0.clickID.hasPrefix("clk_") })
        }
    }

    static func roundTrip<T: Codable>(_ value: T) throws -> (T, String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        let decoded = try JSONDecoder().decode(T.self, from: data)
        // Encoding what was read gives the same text again.
        #expect(try encoder.encode(decoded) == data)
        return (decoded, String(decoding: data, as: UTF8.self))
    }

    @Test func observationsOfEveryLabelReadBackExactly() throws {
        let clicks = [M.click("clk_A", minutesBefore: 7.123_456_789, address: "addr-home", network: "net-home"),
                      M.click("clk_B", minutesBefore: 61, address: "addr-b", network: nil, signals: nil, uaOS: nil, device: nil)]
        let candidates = CandidateSet(clicks: clicks, clicksInWindow: 1_234, sameAddressClicks: 3, sameNetworkClicks: 8)
        var odd = M.phone(zone: "Asia/Kolkata", offset: 19_800, languages: ["hi-IN", "en-IN"])
        odd.screenScale = 2.625
        for label: LearningObservation.Label in [.unlabelled, .organic, .click(clicks[0]), .userClick(clicks[1])] {
            let install = InstallEvidence(addressHash: "addr-home", networkHash: "net-home", signals: odd,
                                          at: Date(timeIntervalSince1970: 1_767_643_200.123_456_7))
            let observation = LearningObservation(install: install, candidates: candidates, window: 3 * 3600, label: label, weight: 0.707_106_781_186_547_6)
            let (decoded, json) = try Self.roundTrip(observation.anonymised())
            #expect(decoded == observation.anonymised())
            #expect(decoded.install.at == observation.install.at && decoded.candidates.clicks[0].createdAt == clicks[0].createdAt)
            #expect(json.contains("\"label\":\"\(label.kind.rawValue)\""))
            #expect(!json.contains("addr-") && !json.contains("net-") && !json.contains("clk_"))
            // A user's click is told apart from a deterministic one by its source.
            #expect(json.contains("\"source\":\"user\"") == (label == .userClick(clicks[1])))
        }
        // Without a stated weight an observation counts fully; a click label needs its click.
        let bare = #"{"install":{"signals":{},"at":0},"candidates":{"clicks":[],"clicksInWindow":0,"sameAddressClicks":0,"sameNetworkClicks":0},"window":3600,"label":"organic"}"#
        #expect(try JSONDecoder().decode(LearningObservation.self, from: Data(bare.utf8)).weight == 1)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(LearningObservation.self, from: Data(bare.replacingOccurrences(of: "organic", with: "click").utf8)) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(LearningObservation.self, from: Data(bare.replacingOccurrences(of: "organic", with: "maybe").utf8)) }
    }

    @Test func modelsReadBackExactlyWithEveryFieldSetOrLeftOut() throws {
        // The defaults (every optional left out).
        let (plain, plainJSON) = try Self.roundTrip(MatchModel())
        #expect(plain == MatchModel())
        #expect(!plainJSON.contains("delayMixture") && !plainJSON.contains("frequencies") && !plainJSON.contains("clickedShareByAddress"))
        // A fitted model: every field, the optional ones included.
        var random = AttributionLearnerTests.Random(state: 17)
        var observations: [LearningObservation] = []
        for n in 0..<400 {
            let (install, click) = AttributionLearnerTests.pair(n, delay: random.delay(median: 400, spread: 1.1))
            observations.append(LearningObservation(install: install, candidates: AttributionLearnerTests.candidates([click]), window: Self.window,
                                                    label: n % 3 == 0 ? .click(click) : .unlabelled))
        }
        var frequencies = ValueFrequencies()
        for observation in observations { for click in observation.candidates.clicks { frequencies.add(click) } }
        var fitted = AttributionLearner().fit(observations, frequencies: frequencies)
        #expect(fitted.delayMixture != nil && fitted.frequencies != nil && fitted.clickedShareByAddress != nil)
        #expect(fitted.unrelatedDelays != nil && fitted.frequencies?.languageByZone != nil)
        // Numbers no default has, in every field a fit leaves alone.
        fitted.qSameOS = 0.17.nextUp
        fitted.qFrozenOS = 0.3 / 7
        fitted.priorWeight = 19.999_999_999_999_996
        fitted.acceptThreshold = 0.9
        fitted.ambiguityRatio = 1.0 / 3.0
        fitted.medianDelay = 123.456_789
        let (decoded, json) = try Self.roundTrip(fitted)
        #expect(decoded == fitted)
        #expect(json.contains("delayMixture") && json.contains("frequencies") && json.contains("clickedShareByAddress"))
        #expect(json.contains("unrelatedDelays") && json.contains("languageByZone"))
        // A model stored before either was learnt reads back without them.
        var older = fitted
        older.unrelatedDelays = nil
        older.frequencies?.languageByZone = nil
        #expect(try Self.roundTrip(older).0 == older)
        // The same matcher either way.
        let install = observations[1].install, candidates = observations[1].candidates
        #expect(Self.bits(AttributionMatcher(model: decoded).weights(install: install, candidates: candidates, window: Self.window))
            == Self.bits(AttributionMatcher(model: fitted).weights(install: install, candidates: candidates, window: Self.window)))

        let summary = AttributionModelSummary(model: fitted, observations: observations, window: Self.window)
        #expect(summary.observations == 400 && summary.labelled == 134 && summary.unlabelled == 266 && summary.organic == 0)
        #expect(summary.delayQuantiles.map(\.share) == AttributionModelSummary.DelayQuantile.shares)
        #expect(zip(summary.delayQuantiles, summary.delayQuantiles.dropFirst()).allSatisfy { $0.seconds <= $1.seconds })
        let median = try #require(summary.delayQuantiles.first { $0.share == 0.5 })
        #expect(abs(try #require(fitted.delayMixture).cumulative(median.seconds, window: Self.window) - 0.5) < 0.01)
        #expect(try Self.roundTrip(summary).0 == summary)
    }

    @Test func appSettingsWrittenBeforeTheModelChoiceReadAsFixed() throws {
        let old = #"{"window": 7200, "copyToOpen": true}"#
        #expect(try JSONDecoder().decode(AttributionSettings.self, from: Data(old.utf8)) == AttributionSettings(window: 7200, copyToOpen: true, model: .fixed))
        let learned = AttributionSettings(window: 3600, model: .learned)
        #expect(try Self.roundTrip(learned).0 == learned)
    }
}
