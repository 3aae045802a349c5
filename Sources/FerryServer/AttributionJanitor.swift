#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import FerryStore
import Foundation
import Logging
import ServiceLifecycle

/// Purges click signals and client hashes once they are older than their app's attribution window, the observations
/// models are learnt from once they are older than their retention, and the audit log's events older than theirs.
package struct AttributionJanitor: Service {
    let store: any FerryDatabase
    let interval: Duration
    let clickRetention: Duration?
    let observationRetention: Duration
    let auditRetention: Duration
    let logger: Logger

    /// Creates a janitor; `clickRetention` nil keeps clicks for ever.
    package init(store: any FerryDatabase, interval: Duration, clickRetention: Duration? = nil,
                 observationRetention: Duration = FerryConfiguration().attributionObservationRetention,
                 auditRetention: Duration = FerryConfiguration().auditRetention, logger: Logger) {
        self.auditRetention = auditRetention
        self.store = store
        self.interval = interval
        self.clickRetention = clickRetention
        self.observationRetention = observationRetention
        self.logger = logger
    }

    /// Purges at start and then every `interval` until shutdown: click signals past their window, clicks past the
    /// retention, observations (and superseded models) past theirs; and readies the storage of the coming days' clicks.
    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let now = FerryAdmin.wallClock()
            do {
                try await store.prepareClickStorage(now: now)
                let touched = try await store.purgeAttributionSignals(now: now)
                if touched > 0 { logger.info("purged expired click signals", metadata: ["rows": "\(touched)"]) }
                // Who visited is needed only to count a day's distinct visitors; late clicks of yesterday still count.
                _ = try await store.purgeVisitors(beforeDay: StatsRollup.day(of: now) - 1)
                _ = try await store.pruneLinkChanges(before: now.addingTimeInterval(-LinkChanges.retention))
                let learning = try await store.purgeAttributionLearning(before: now.addingTimeInterval(-Double(observationRetention.components.seconds)))
                if learning > 0 { logger.info("purged old attribution observations", metadata: ["rows": "\(learning)"]) }
                let audit = try await store.purgeAuditEvents(before: now.addingTimeInterval(-Double(auditRetention.components.seconds)))
                if audit > 0 { logger.info("purged old audit log events", metadata: ["rows": "\(audit)"]) }
                _ = try await store.forgetPendingObservations(before: now.addingTimeInterval(-AttributionObservationRecord.pendingHorizon))
                if let clickRetention {
                    let seconds = Double(clickRetention.components.seconds)
                    let expired = try await store.expireClicks(before: now.addingTimeInterval(-seconds))
                    if expired > 0 { logger.info("expired old clicks", metadata: ["rows": "\(expired)"]) }
                }
            } catch {
                logger.warning("cannot purge click signals", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }
}
#endif
