#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import CoreMetrics
import Foundation
import Synchronization
import Tracing

/// Whether the server makes trace spans: off unless `ferry serve` was started with an OTLP endpoint
/// (`OTEL_EXPORTER_OTLP_ENDPOINT`). Off, nothing of tracing runs, not even the no-op tracer's lookups.
package enum FerryTracing {
    private static let enabled = Atomic<Bool>(false)

    /// Whether spans are made.
    package static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Turns spans on for the rest of the process (after the global tracer is bootstrapped).
    package static func enable() { enabled.store(true, ordering: .relaxed) }

    /// `body` inside a span named `name` (a child of the task's current span), or directly when tracing is off.
    package static func span<T>(_ name: String, kind: SpanKind = .internal, attributes: [String: String] = [:],
                                isolation: isolated (any Actor)? = #isolation,
                                _ body: (_ span: (any Span)?) async throws -> T) async rethrows -> T {
        guard isEnabled else { return try await body(nil) }
        return try await withSpan(name, at: DefaultTracerClock.now, ofKind: kind, isolation: isolation) { span in
            for (key, value) in attributes { span.attributes[key] = value }
            do {
                return try await body(span)
            } catch {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
                throw error
            }
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds, as swift-metrics' timers record it.
    package var wholeNanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

/// What a store's operation does, as the metrics tell it apart.
package enum StoreOperation: Int, CaseIterable, Sendable {
    case read, write

    var label: String {
        switch self {
        case .read: "read"
        case .write: "write"
        }
    }
}

/// The database's metrics, made by the server from its metrics factory: how long operations take, how many failed,
/// how many are under way against how many connections the store has.
package final class StoreMetrics: Sendable {
    /// `sqlite` or `postgresql`: the `system` label, and the spans' `db.system`.
    package let system: String
    private let durations: [CoreMetrics.Timer]
    private let failures: [CoreMetrics.Counter]
    private let inFlight: Meter

    package init(system: String, connections: Int, factory: any MetricsFactory) {
        self.system = system
        durations = StoreOperation.allCases.map {
            CoreMetrics.Timer(label: "ferry_db_operation_duration_seconds", dimensions: [("system", system), ("operation", $0.label)], factory: factory)
        }
        failures = StoreOperation.allCases.map {
            CoreMetrics.Counter(label: "ferry_db_operation_errors_total", dimensions: [("system", system), ("operation", $0.label)], factory: factory)
        }
        inFlight = Meter(label: "ferry_db_operations_in_flight", dimensions: [("system", system)], factory: factory)
        inFlight.set(0)
        Gauge(label: "ferry_db_connections_max", dimensions: [("system", system)], factory: factory).record(connections)
    }

    func started() { inFlight.increment() }

    func finished(_ operation: StoreOperation, since start: ContinuousClock.Instant, failed: Bool) {
        inFlight.decrement()
        durations[operation.rawValue].recordNanoseconds((ContinuousClock.now - start).wholeNanoseconds)
        if failed { failures[operation.rawValue].increment() }
    }
}

/// Where a store keeps the metrics the server gives it (`FerryDatabase.observe(with:)`), and what measures each
/// operation: its duration, its failure, and, when tracing is on and the operation is part of a traced piece of work,
/// a client span.
package final class StoreObservation: Sendable {
    private let metrics = Mutex<StoreMetrics?>(nil)
    /// `db.system` of the spans.
    let system: String

    init(system: String) { self.system = system }

    func attach(_ metrics: StoreMetrics) { self.metrics.withLock { $0 = metrics } }

    /// An asynchronous operation, measured.
    func measure<T>(_ operation: StoreOperation, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        let metrics = self.metrics.withLock { $0 }
        let start = ContinuousClock.now
        metrics?.started()
        do {
            let result: T
            // A span only inside another (a request's, a delivery's): the background work that polls the database every
            // second would otherwise start a trace of its own each time.
            if FerryTracing.isEnabled, ServiceContext.current != nil {
                result = try await FerryTracing.span("db \(operation.label)", kind: .client,
                                                     attributes: ["db.system": system, "db.operation": operation.label]) { _ in try await body() }
            } else {
                result = try await body()
            }
            metrics?.finished(operation, since: start, failed: false)
            return result
        } catch {
            metrics?.finished(operation, since: start, failed: true)
            throw error
        }
    }

    /// An operation on the calling thread (the click recorder's batches), measured; no span (it has no request).
    func measureBlocking<T>(_ operation: StoreOperation, _ body: () throws -> T) rethrows -> T {
        let metrics = self.metrics.withLock { $0 }
        let start = ContinuousClock.now
        metrics?.started()
        do {
            let result = try body()
            metrics?.finished(operation, since: start, failed: false)
            return result
        } catch {
            metrics?.finished(operation, since: start, failed: true)
            throw error
        }
    }
}
#endif
