import FerryAPI
import FerryCore
import Foundation
import Testing
@testable import AttributionSimulation

extension SimulatorSuites {
    /// The population knobs' defaults are the population as it was before they existed: the same seed gives the same
    /// devices, clicks and installs, draw for draw, in every family that does not set them.
    @Suite struct SimulationKnobsTests {
        /// A digest of everything generated (FNV-1a over each device, click and install as text, with the install's
        /// scenario labels sorted), and the counts beside it so that a mismatch says where to look.
        static func digest(_ population: Population) -> String {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            func add(_ text: String) {
                for byte in text.utf8 {
                    hash ^= UInt64(byte)
                    hash &*= 0x0000_0100_0000_01B3
                }
                hash ^= 0x0A
                hash &*= 0x0000_0100_0000_01B3
            }
            for device in population.devices { add(String(describing: device)) }
            for household in population.households { add(String(describing: household)) }
            for office in population.offices { add(String(describing: office)) }
            for click in population.clicks { add(String(describing: click) + "|\(click.t.bitPattern)") }
            for install in population.installs {
                add("\(install.device)|\(install.t.bitPattern)|\(install.truth)|\(String(describing: install.deterministic))|\(install.endpoint)|"
                    + "\(install.signals)|\(install.scenarios.sorted().map(\.rawValue))")
            }
            return "\(population.devices.count) devices, \(population.households.count) households, \(population.clicks.count) clicks, "
                + "\(population.installs.count) installs, " + String(hash, radix: 16)
        }

        /// Recorded from the generator before the knobs for places, carriers, homes and delay shapes were added
        /// (seed 5, 3,000 installs over 3 days, each family's configuration).
        static let recorded: [PopulationFamily: String] = [
            .mixed: "15841 devices, 6070 households, 6315 clicks, 3000 installs, 10e0fc50f7e9e865",
            .slowBurn: "15841 devices, 6070 households, 6315 clicks, 3000 installs, 3063bada0cdf3641",
            .office: "15840 devices, 6068 households, 6377 clicks, 3000 installs, 13a2321630320560",
            .bigFamilies: "15842 devices, 3726 households, 6692 clicks, 3000 installs, 346400bfd6f1bd56",
            .fastOpeners: "15841 devices, 6070 households, 6315 clicks, 3000 installs, 1224a4df8c7e7402",
            .commuters: "15841 devices, 6070 households, 6315 clicks, 3000 installs, d8cb22475768af06",
            .organicHeavy: "10453 devices, 3998 households, 2653 clicks, 3000 installs, 862d343317d206ad",
            .noLabels: "15843 devices, 6140 households, 6353 clicks, 3000 installs, 96ad643ec5d2045b",
        ]

        @Test(arguments: [PopulationFamily.mixed, .slowBurn, .office, .bigFamilies, .fastOpeners, .commuters, .organicHeavy, .noLabels])
        func theDefaultsGenerateThePopulationsAsBefore(family: PopulationFamily) {
            let digest = Self.digest(PopulationFamilyTests.population(family))
            #expect(digest == Self.recorded[family], "\(family): \(digest)")
        }
    }
}
