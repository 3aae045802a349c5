#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Logging
import Synchronization

/// The matchers of apps that learn their model (`AttributionSettings.Model.learned`), by app and environment: the
/// active model read from the store at most once a `lifetime` (a minute), so that a match request does not read it.
/// Without a fitted model yet, the learner's prior. Every node reads the models the same way, so a refit made on one
/// reaches all within a lifetime.
package final class LearntMatchers: Sendable {
    /// How a learnt model's posteriors become the confidence an answer states: the posterior itself (a model learnt
    /// for the app is calibrated on it), never above 0.998, certainty being for deterministic matches.
    package static let calibration = Calibration(points: [(0, 0), (0.998, 0.998), (1, 0.998)])

    /// The matcher of an app without a fitted model.
    package static let prior = AttributionMatcher(model: AttributionLearner.defaultPrior, calibration: calibration)

    struct Key: Hashable {
        var appID: String
        var environment: APIEnvironment
    }

    struct Entry {
        var matcher: AttributionMatcher
        var version: Int?
        var loadedAt: Date
    }

    let store: any FerryDatabase
    let lifetime: TimeInterval
    let capacity: Int
    let now: @Sendable () -> Date
    let logger: Logger
    private let entries = Mutex<[Key: Entry]>([:])

    /// Creates an empty cache.
    package init(store: any FerryDatabase, lifetime: TimeInterval = 60, capacity: Int = 1_000, now: @escaping @Sendable () -> Date,
                 logger: Logger) {
        self.store = store
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
        self.logger = logger
    }

    /// The matcher of an app and environment, with the version of its model (nil: the prior).
    package func matcher(appID: String, environment: APIEnvironment) async -> (matcher: AttributionMatcher, version: Int?) {
        let key = Key(appID: appID, environment: environment)
        let time = now()
        if let entry = entries.withLock({ $0[key] }), time.timeIntervalSince(entry.loadedAt) < lifetime, entry.loadedAt <= time {
            return (entry.matcher, entry.version)
        }
        let entry: Entry
        do {
            if let active = try await store.activeModel(appID: appID, environment: environment) {
                entry = Entry(matcher: AttributionMatcher(model: active.model, calibration: Self.calibration), version: active.version.version, loadedAt: time)
            } else {
                entry = Entry(matcher: Self.prior, version: nil, loadedAt: time)
            }
        } catch {
            // The request goes on with what was known (or the prior); the next one reads again.
            logger.warning("cannot read the learnt attribution model", metadata: ["app": "\(appID)", "error": "\(error)"])
            let known = entries.withLock { $0[key] }
            return (known?.matcher ?? Self.prior, known?.version)
        }
        entries.withLock { entries in
            if entries[key] == nil, entries.count >= capacity, let oldest = entries.min(by: { $0.value.loadedAt < $1.value.loadedAt })?.key {
                entries[oldest] = nil
            }
            entries[key] = entry
        }
        return (entry.matcher, entry.version)
    }

    /// Forgets an app and environment's matcher (a refit made here stored a new model): the next request reads it.
    package func forget(appID: String, environment: APIEnvironment) {
        _ = entries.withLock { $0.removeValue(forKey: Key(appID: appID, environment: environment)) }
    }
}
#endif
