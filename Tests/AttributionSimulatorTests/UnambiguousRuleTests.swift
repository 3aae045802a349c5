import FerryAPI
import FerryCore
import Foundation
import Testing
@testable import AttributionSimulation

extension SimulatorSuites {
    /// The baseline rule on hand-built clicks: one agreeing click from the address is a match, two are none, and what a
    /// click cannot state never counts against the install.
    @Suite struct UnambiguousRuleTests {
        static let start = Date(timeIntervalSince1970: 1_767_571_200)
        static let iPhone = DeviceSignals(platform: "ios", osVersion: "18.1", model: "iPhone16,1", screenWidth: 393, screenHeight: 852,
                                          screenScale: 3, timeZone: "Europe/Paris", languages: ["fr-FR", "en"])

        static func click(_ id: String, address: String = "a1", os: String? = "18.1", device: String? = "iphone", language: String? = "fr-fr",
                          screen: (Int, Int)? = nil, zone: String? = nil) -> ClickEvidence {
            ClickEvidence(clickID: id, linkID: "lnk", createdAt: start, addressHash: address, osVersion: os, appleDevice: device,
                          screenWidth: screen?.0, screenHeight: screen?.1, screenScale: screen == nil ? nil : 3, timeZone: zone,
                          languages: language.map { [$0] } ?? [])
        }

        func match(_ candidates: [ClickEvidence], signals: DeviceSignals = Self.iPhone) -> String? {
            UnambiguousRule.match(addressHash: "a1", signals: signals, platform: "ios", among: candidates)?.clickID
        }

        @Test func theOnlyAgreeingClickOfTheAddressMatches() {
            #expect(match([Self.click("c1")]) == "c1")
            // Two agreeing clicks from the address: no match, whatever else is known.
            #expect(match([Self.click("c1"), Self.click("c2")]) == nil)
            // Clicks from another address, or that disagree, do not count.
            #expect(match([Self.click("c1"), Self.click("c2", address: "a2"), Self.click("c3", os: "17.5"), Self.click("c4", language: "de-de"),
                           Self.click("c5", device: "ipad")]) == "c1")
            #expect(match([Self.click("c2", address: "a2")]) == nil)
        }

        @Test func whatAClickCannotStateAgrees() {
            // iOS 26 browsers report a frozen 18.6.
            var ios26 = Self.iPhone
            ios26.osVersion = "26.1"
            #expect(match([Self.click("c1", os: "18.6")], signals: ios26) == "c1")
            #expect(match([Self.click("c1", os: "18.6")]) == nil, "an iOS 18.1 install is not an 18.6 click")
            #expect(match([Self.click("c1", os: nil, device: nil, language: nil)]) == "c1")
            // Chrome on Android says 10 whatever the version.
            let android = DeviceSignals(platform: "android", osVersion: "14", model: "Pixel 8", languages: ["fr-FR"])
            #expect(UnambiguousRule.match(addressHash: "a1", signals: android, platform: "android",
                                          among: [Self.click("c1", os: "10", device: nil)])?.clickID == "c1")
        }

        @Test func withPageSignalsTheScreenAndTheTimeZoneMustAgree() {
            #expect(match([Self.click("c1", screen: (852, 393), zone: "Europe/Paris")]) == "c1", "either orientation")
            #expect(match([Self.click("c1", screen: (390, 844), zone: "Europe/Paris")]) == nil)
            #expect(match([Self.click("c1", screen: (393, 852), zone: "America/New_York")]) == nil)
            // The other click of the address has another screen: the one left is unambiguous.
            #expect(match([Self.click("c1", screen: (393, 852), zone: "Europe/Paris"), Self.click("c2", screen: (430, 932), zone: "Europe/Paris")]) == "c1")
        }
    }
}

extension SimulatorSuites {
    /// The rule over whole simulated populations, beside Ferry's matcher on the same installs.
    @Suite struct UnambiguousRuleOnPopulationsTests {
        static func metrics(_ family: PopulationFamily) -> (ferry: Metrics, rule: Metrics) {
            let population = PopulationFamilyTests.population(family, seed: 9)
            let simulation = Simulation(population: population, matcher: AttributionMatcher())
            return (Metrics(population: population, outcomes: simulation.run()), Metrics(population: population, outcomes: simulation.runRule()))
        }

        @Test func theRuleIsMeasuredOnTheSameInstallsAsFerry() {
            let (ferry, rule) = Self.metrics(.mixed)
            // The same installs, the same deterministic tiers first.
            #expect(rule.measured == ferry.measured && rule.deterministicMatched == ferry.deterministicMatched)
            #expect(rule.deterministicCorrect == rule.deterministicMatched)
            let p = rule.probabilistic
            #expect(p.right > 100, "the rule finds installs: \(p.right)")
            #expect(p.precision >= 0.9, "the rule is precise where it answers: \(p.precision)")
            // Replaying twice gives the same answers.
            let again = Self.metrics(.mixed).rule.probabilistic
            #expect(again.right == p.right && again.wrong == p.wrong)
        }
    }
}
