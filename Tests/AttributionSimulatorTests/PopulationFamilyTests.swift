import FerryAPI
import FerryCore
import Foundation
import Testing
@testable import AttributionSimulation

/// The families of populations: the default one is today's population, draw for draw, and each family generates the
/// population it says.
@Suite struct PopulationFamilyTests {
    static func population(_ family: PopulationFamily, seed: UInt64 = 5) -> Population {
        var base = SimulationConfig()
        base.seed = seed
        base.installs = 3_000
        base.days = 3
        var generator = PopulationGenerator(config: family.config(from: base))
        return generator.generate()
    }

    static func delays(_ population: Population) -> [Double] {
        population.installs.compactMap { install in
            if case .clicked(_, let delay) = install.truth { return delay }
            return nil
        }
    }

    @Test func theMixedFamilyIsTheDefaultPopulationDrawForDraw() {
        var base = SimulationConfig()
        base.seed = 5
        base.installs = 3_000
        base.days = 3
        var generator = PopulationGenerator(config: base)
        let plain = generator.generate()
        let mixed = Self.population(.mixed)
        #expect(plain.clicks.map(\.evidence) == mixed.clicks.map(\.evidence))
        #expect(plain.installs.map(\.t) == mixed.installs.map(\.t))
        #expect(Set(PopulationFamily.training).isDisjoint(with: PopulationFamily.heldOut))
        #expect(Set(PopulationFamily.training + PopulationFamily.heldOut) == Set(PopulationFamily.allCases))
    }

    @Test func eachFamilyGeneratesWhatItSays() {
        let mixed = Self.delays(Self.population(.mixed))
        let fast = Self.delays(Self.population(.fastOpeners))
        let slow = Self.delays(Self.population(.slowBurn))
        func share(_ delays: [Double], below seconds: Double) -> Double { Double(delays.filter { $0 < seconds }.count) / Double(delays.count) }
        // Nobody opens faster than the family's floor: a minute by default.
        #expect(mixed.min() ?? 0 >= 60 && share(mixed, below: 60) == 0)
        // Fast openers: about 45% × P(LN(35 s, 0.6) < 60 s) ≈ 37% within a minute.
        #expect((0.30...0.45).contains(share(fast, below: 60)), "\(share(fast, below: 60))")
        #expect(fast.min() ?? 0 >= 10)
        // Slow burn: most open hours later.
        #expect(share(slow, below: 3600) < 0.4 && share(mixed, below: 3600) > 0.6)
        func organicShare(_ population: Population) -> Double {
            Double(population.installs.filter { if case .organic = $0.truth { return true } else { return false } }.count) / Double(population.installs.count)
        }
        #expect(abs(organicShare(Self.population(.organicHeavy)) - 0.75) < 0.05)
        #expect(abs(organicShare(Self.population(.mixed)) - 0.40) < 0.05)
        let noLabels = Self.population(.noLabels)
        #expect(!noLabels.installs.contains { if case .clickToken = $0.deterministic { return true } else { return false } })
    }

    static func share<T>(_ items: [T], _ predicate: (T) -> Bool) -> Double { Double(items.filter(predicate).count) / Double(items.count) }

    @Test func theCarrierHeavyFamilyIsMostlyAndroidBehindCarrierNAT() {
        let mixed = Self.population(.mixed), carrier = Self.population(.carrierHeavy)
        #expect(abs(Self.share(carrier.devices) { $0.platform == .android } - 0.7) < 0.03)
        #expect(abs(Self.share(mixed.devices) { $0.platform == .android } - 0.3) < 0.03)
        // Most clicks and installs come from behind a carrier's NAT; in the mixed population about one in five.
        for endpoints in [carrier.clicks.map(\.endpoint), carrier.installs.map(\.endpoint)] {
            #expect(Self.share(endpoints) { $0.kind == .cgnat } > 0.6)
        }
        #expect(Self.share(mixed.clicks) { $0.endpoint.kind == .cgnat } < 0.25)
        // Few homes: a quarter of the devices have no home Wi-Fi, and home Wi-Fi carries under a fifth of the clicks
        // (the mixed population: almost every device has one, and it carries over half the clicks).
        #expect(Self.share(carrier.devices) { $0.household != nil } < 0.8)
        #expect(Self.share(mixed.devices) { $0.household != nil } > 0.95)
        #expect(Self.share(carrier.clicks) { $0.endpoint.kind.isHome } < 0.2)
        #expect(Self.share(mixed.clicks) { $0.endpoint.kind.isHome } > 0.5)
        // Two to eight addresses per CGNAT carrier: thousands of clicks behind each address.
        let addresses = Set(carrier.clicks.filter { $0.endpoint.kind == .cgnat }.map(\.endpoint.address))
        #expect(addresses.count <= 14)
    }

    @Test func theIndependentFamilyOpensFrom25SecondsTo20Hours() {
        let delays = Self.delays(Self.population(.independent))
        #expect(delays.count > 1_500)
        #expect(delays.min() ?? 0 >= 25 && delays.max() ?? .infinity <= 20 * 3600)
        // 60% log-uniform from 25 s to 2 h, 40% from 2 h to 20 h: each half of a component, on a log scale, holds
        // half its installs.
        #expect(abs(Self.share(delays) { $0 < 2 * 3600 } - 0.6) < 0.04)
        #expect(abs(Self.share(delays) { $0 < (25 * 7_200.0).squareRoot() } - 0.3) < 0.04)
        #expect(abs(Self.share(delays) { $0 < (7_200 * 72_000.0).squareRoot() } - 0.8) < 0.04)
    }
}

/// The families' report: every family in both conditions, Ferry and the rule side by side.
@Suite struct FamilyReportTests {
    @Test func everyFamilyIsReportedWithAndWithoutThePagesSignals() {
        var base = SimulationConfig()
        base.seed = 4
        base.installs = 1_500
        base.days = 2
        let report = FamilyReport(families: [.mixed, .fastOpeners], base: base)
        #expect(report.rows.map(\.family) == [.mixed, .mixed, .fastOpeners, .fastOpeners])
        #expect(report.rows.map(\.httpOnly) == [false, true, false, true])
        for row in report.rows {
            #expect(row.ferry.measured == row.rule.measured && row.ferry.measured > 500)
        }
        let text = report.render()
        #expect(text.contains("held out") && text.contains("training") && text.contains("HTTP only") && text.contains("rule recall"))
    }
}
