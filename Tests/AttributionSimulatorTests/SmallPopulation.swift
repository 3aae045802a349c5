@testable import AttributionSimulation
import FerryTestSupport
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

/// The simulator's suites, run one test at a time on a thread of their own (`BackgroundWork`). Each test replays a
/// population for seconds. On Swift's cooperative pool, which has as many threads as the machine has cores, they held
/// the threads of a two-core machine for minutes, and tests elsewhere in the run that wait on a timer (FerryKit's link
/// deadlines, the servers' database deadlines) timed out without having run.
@Suite(.serialized, .backgroundWork) enum SimulatorSuites {}
