#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryStore
import OTel
import ServiceLifecycle
import Tracing

/// The export of the server's spans over OTLP (swift-otel), on only when the operator names a collector with
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). The rest of the standard `OTEL_…`
/// settings apply (`OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` or `http/json`, `OTEL_TRACES_SAMPLER`,
/// `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_SCHEDULE_DELAY`…); `OTEL_SDK_DISABLED=true` or
/// `OTEL_TRACES_EXPORTER=none` keep it off.
enum TraceExport {
    /// Whether the environment asks for spans.
    static func isRequested(_ environment: [String: String]) -> Bool {
        let endpoint = environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? environment["OTEL_EXPORTER_OTLP_ENDPOINT"] ?? ""
        return !endpoint.isEmpty && environment["OTEL_SDK_DISABLED"]?.lowercased() != "true"
            && environment["OTEL_TRACES_EXPORTER"]?.lowercased() != "none"
    }

    /// Bootstraps the process's tracer when spans are asked for; returns the service that exports them (to run
    /// beside the server, and to stop after it so that the last spans leave), or nil.
    static func start(_ environment: [String: String]) throws -> (any Service)? {
        guard isRequested(environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "ferry"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.diagnosticLogLevel = .warning
        let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(tracer)
        FerryTracing.enable()
        return service
    }
}
#endif
