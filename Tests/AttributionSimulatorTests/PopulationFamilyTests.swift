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
