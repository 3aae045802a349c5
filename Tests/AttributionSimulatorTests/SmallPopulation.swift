@testable import AttributionSimulation
import Testing

extension Population {
    /// An `independent` population from the HTTP request only, small enough to replay in a debug build in seconds:
    /// 1,500 installs over two days, seed 3.
    static func smallIndependentHTTPOnly() -> Population {
        var config = PopulationFamily.independent.config()
        config.seed = 3
        config.installs = 1_500
        config.days = 2
        config.missingPageSignalsShare = 1
        var generator = PopulationGenerator(config: config)
        return generator.generate()
    }
}

/// The simulator's suites, run one test at a time. Each test replays a population for seconds on a thread of Swift's
/// cooperative pool, which has as many threads as the machine has cores: run side by side, they held every thread of a
/// two-core machine for most of a minute, and tests elsewhere in the run that wait on a timer (FerryKit's link
/// deadlines) timed out without having run.
@Suite(.serialized) enum SimulatorSuites {}
