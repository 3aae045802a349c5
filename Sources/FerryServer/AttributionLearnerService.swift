#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import FerryStore
import Foundation
import Logging
import ServiceLifecycle

/// Refits the attribution models of apps that learn theirs (`AttributionRefitter.refitDueModels`): at start, then every
/// `interval` until shutdown. Every node runs one; refits of one app take turns across them.
package struct AttributionLearnerService: Service {
    let refitter: AttributionRefitter
    let interval: Duration

    /// Creates the service.
    package init(refitter: AttributionRefitter, interval: Duration) {
        self.refitter = refitter
        self.interval = interval
    }

    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // Shutdown cancels the pass: the app being refitted is left as it was, and no other is begun.
            _ = await cancelWhenGracefulShutdown { await refitter.refitDueModels() }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }
}
#endif
