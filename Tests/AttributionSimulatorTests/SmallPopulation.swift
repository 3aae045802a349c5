@testable import AttributionSimulation

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
