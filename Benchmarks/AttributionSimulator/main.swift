import AttributionSimulation

// The model, the population and the report live in AttributionSimulation, which the tests use and every build
// compiles; this executable, only in the package with FERRY_BENCHMARKS set, runs them.
AttributionSimulatorCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
