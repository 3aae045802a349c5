#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Dispatch
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Synchronization

/// Builds an app's `AttributionReport` from the store: `ferry attribution report` and the dashboard's attribution page
/// the same way. The model evaluated is the one the app answers with: its active learnt model (the learner's prior
/// before the first fit) when it learns, the fixed model otherwise.
package struct AttributionReporter: Sendable {
    /// The versions a report lists.
    package static let versionsListed = 10
    /// The newest observations the dashboard evaluates (the command line reads as many as a refit).
    package static let dashboardObservations = 20_000

    let store: any FerryDatabase
    /// The matcher of apps on the fixed model.
    let fixed: AttributionMatcher

    /// Creates a reporter.
    package init(store: any FerryDatabase, fixed: AttributionMatcher = AttributionMatcher()) {
        self.store = store
        self.fixed = fixed
    }

    /// The report of an app in one environment, on its newest `limit` observations of the learner's memory before `now`.
    package func report(app: App, environment: APIEnvironment, limit: Int = AttributionRefitter.maximumObservations, now: Date) async throws -> AttributionReport {
        let active = try await store.activeModel(appID: app.id, environment: environment)
        let versions = try await store.modelVersions(appID: app.id, environment: environment, limit: Self.versionsListed)
        let records = try await store.observations(appID: app.id, environment: environment, since: now.addingTimeInterval(-AttributionLearner.observationMemory),
                                                   limit: max(0, limit))
        let matcher: AttributionMatcher
        switch app.attribution.model {
        case .learned: matcher = active.map { AttributionMatcher(model: $0.model, calibration: LearntMatchers.calibration) } ?? LearntMatchers.prior
        case .fixed: matcher = fixed
        }
        let observations = records.map(\.observation)
        let minConfidence = app.attribution.minConfidence
        let evaluation = await withCheckedContinuation { continuation in
            // Seconds of arithmetic for a busy app: off the threads requests are answered on.
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: AttributionEvaluation(matcher: matcher, observations: observations, minConfidence: minConfidence))
            }
        }
        func line(_ version: AttributionModelVersion) -> AttributionReport.Version {
            AttributionReport.Version(version: version.version, createdAt: version.createdAt, status: version.status.rawValue,
                                      observations: version.summary.observations)
        }
        return AttributionReport(
            appID: app.id, environment: environment, model: app.attribution.model, active: active.map { line($0.version) },
            parameters: active.map { AttributionReport.parameters(prior: AttributionLearner.defaultPrior, fitted: $0.model, window: app.attribution.window) } ?? [],
            observations: AttributionReport.Counts(observations, oldest: records.map(\.observedAt).min()),
            evaluation: evaluation, versions: versions.map(line))
    }
}

/// The dashboard's reports, each kept for `lifetime` (a minute) per app, environment and attribution settings: a report
/// replays up to 20,000 installs, seconds of work that a page reloaded, or opened by several colleagues, must not
/// repeat. A refit made from the page forgets the app's.
package final class AttributionReports: Sendable {
    struct Key: Hashable {
        var appID: String
        var environment: APIEnvironment
        var settings: AttributionSettings
    }

    let reporter: AttributionReporter
    let lifetime: TimeInterval
    let capacity: Int
    private let entries = Mutex<[Key: (report: AttributionReport, madeAt: Date)]>([:])

    /// Creates an empty cache.
    package init(reporter: AttributionReporter, lifetime: TimeInterval = 60, capacity: Int = 100) {
        self.reporter = reporter
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The dashboard's report of an app in one environment, made at most `lifetime` before `now`.
    package func report(app: App, environment: APIEnvironment, now: Date) async throws -> AttributionReport {
        let key = Key(appID: app.id, environment: environment, settings: app.attribution)
        if let entry = entries.withLock({ $0[key] }), now.timeIntervalSince(entry.madeAt) < lifetime, entry.madeAt <= now { return entry.report }
        let report = try await reporter.report(app: app, environment: environment, limit: AttributionReporter.dashboardObservations, now: now)
        entries.withLock { entries in
            entries = entries.filter { now.timeIntervalSince($0.value.madeAt) < lifetime }
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.madeAt < $1.value.madeAt })?.key { entries[oldest] = nil }
            entries[key] = (report, now)
        }
        return report
    }

    /// Forgets an app's reports in one environment (a new version was fitted).
    package func forget(appID: String, environment: APIEnvironment) {
        entries.withLock { $0 = $0.filter { $0.key.appID != appID || $0.key.environment != environment } }
    }
}
#endif
