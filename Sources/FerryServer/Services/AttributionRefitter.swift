#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Dispatch
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Logging

/// Fits an app's attribution model on its recent observations and stores it as the active version: the background
/// service's pass over learning apps, and `ferry attribution refit`, the same way.
///
/// A refit reads up to `maximumObservations` observations of the last `memory` (an observation counts
/// `2^(-age / halfLife)`), counts how common each signal value is among the clicks of the app's window, and fits
/// `AttributionLearner` starting from the active model. On PostgreSQL one node refits an app and environment at a time.
package struct AttributionRefitter: Sendable {
    /// A model younger than this is not refitted by the service, unless it is young (`youngModelObservations`).
    package static let refitAge: TimeInterval = 6 * 3600
    /// A model fitted on fewer observations is refitted as soon as it is `youngRefitAge` old and the app's
    /// observations have doubled since it was fitted (`AttributionLearner.youngModelObservations`).
    package static let youngModelObservations = AttributionLearner.youngModelObservations
    /// See `youngModelObservations`.
    package static let youngRefitAge = AttributionLearner.youngRefitAge
    /// The service refits only with at least this many observations.
    package static let minimumObservations = 100
    /// At most this many observations are read (of the learner's `observationMemory`), newest first.
    package static let maximumObservations = 100_000
    /// At most this many of the window's clicks are counted for value frequencies, newest first.
    package static let maximumFrequencyClicks = 200_000

    let store: any FerryDatabase
    let now: @Sendable () -> Date
    let logger: Logger
    /// Told of each new version (the node's cache of matchers forgets the old one).
    let refitted: @Sendable (AttributionModelVersion) -> Void

    /// Creates a refitter.
    package init(store: any FerryDatabase, now: @escaping @Sendable () -> Date = { FerryAdmin.wallClock() }, logger: Logger,
                 refitted: @escaping @Sendable (AttributionModelVersion) -> Void = { _ in }) {
        self.store = store
        self.now = now
        self.logger = logger
        self.refitted = refitted
    }

    /// What a refit did.
    package enum Outcome: Sendable, Hashable {
        /// A new version, now active.
        case refitted(AttributionModelVersion)
        /// The active model is younger than `refitAge`.
        case notDue
        /// Fewer observations than needed (how many there are).
        case tooFewObservations(Int)
        /// Another node is refitting it.
        case busy
    }

    /// One pass of the service: every app that learns its model, in each environment, refitted when its model is due
    /// and it has enough observations. A failure is logged and the pass goes on.
    @discardableResult
    package func refitDueModels() async -> [(appID: String, environment: APIEnvironment, outcome: Outcome)] {
        let apps: [App]
        do {
            apps = try await store.listApps().filter { $0.attribution.model == .learned }
        } catch {
            logger.warning("cannot list apps to refit their attribution models", metadata: ["error": "\(error)"])
            return []
        }
        var outcomes: [(appID: String, environment: APIEnvironment, outcome: Outcome)] = []
        for app in apps {
            for environment in [APIEnvironment.live, .test] {
                guard !Task.isCancelled else { return outcomes }
                do {
                    let outcome = try await refit(app: app, environment: environment, force: false)
                    if case .refitted(let version) = outcome {
                        logger.info("refitted an attribution model", metadata: [
                            "app": "\(app.id)", "environment": "\(environment.rawValue)", "version": "\(version.version)",
                            "observations": "\(version.summary.observations)",
                        ])
                    }
                    outcomes.append((app.id, environment, outcome))
                } catch {
                    logger.warning("cannot refit an attribution model", metadata: ["app": "\(app.id)", "environment": "\(environment.rawValue)",
                                                                                  "error": "\(error)"])
                }
            }
        }
        return outcomes
    }

    /// Refits an app's model in one environment: when `force`, now, with any observation at all; otherwise only when
    /// its model is older than `refitAge` (or it has none, or it is young and its observations have doubled: see
    /// `youngModelObservations`) and it has `minimumObservations`.
    package func refit(app: App, environment: APIEnvironment, force: Bool) async throws -> Outcome {
        try await store.whileRefitting(appID: app.id, environment: environment) {
            try await refitHoldingTheTurn(app: app, environment: environment, force: force)
        } ?? .busy
    }

    private func refitHoldingTheTurn(app: App, environment: APIEnvironment, force: Bool) async throws -> Outcome {
        let time = now()
        // Read again under the turn: another node may have just stored a version.
        let active = try await store.activeModel(appID: app.id, environment: environment)
        let age = active.map { time.timeIntervalSince($0.version.createdAt) }
        let fittedOn = active?.version.summary.observations ?? 0
        if !force, let age, age < Self.refitAge, age < Self.youngRefitAge || fittedOn >= Self.youngModelObservations { return .notDue }
        let records = try await store.observations(appID: app.id, environment: environment, since: time.addingTimeInterval(-AttributionLearner.observationMemory),
                                                   limit: Self.maximumObservations)
        if !force, let age, age < Self.refitAge, records.count < 2 * fittedOn { return .notDue }
        guard records.count >= (force ? 1 : Self.minimumObservations) else { return .tooFewObservations(records.count) }
        let observations = records.map { record -> LearningObservation in
            var observation = record.observation
            observation.weight = AttributionLearner.weight(age: time.timeIntervalSince(record.observedAt))
            return observation
        }
        var frequencies = ValueFrequencies()
        for click in try await store.clickEvidence(appID: app.id, environment: environment, since: time.addingTimeInterval(-app.attribution.window),
                                                   limit: Self.maximumFrequencyClicks) {
            frequencies.add(click)
        }
        frequencies.keepMostCommon(AttributionLearner.frequencyValues)
        let model = await Self.fit(observations, frequencies: frequencies, start: active?.model)
        let summary = AttributionModelSummary(model: model, observations: observations, window: app.attribution.window)
        let version = try await store.insertModel(appID: app.id, environment: environment, model: model, summary: summary, createdAt: time)
        refitted(version)
        return .refitted(version)
    }

    /// The fit, on a thread of its own: seconds of arithmetic for a busy app, which would otherwise hold one of the few
    /// threads requests are answered on.
    static func fit(_ observations: [LearningObservation], frequencies: ValueFrequencies, start: MatchModel?) async -> MatchModel {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: AttributionLearner().fit(observations, frequencies: frequencies, start: start))
            }
        }
    }
}
#endif
