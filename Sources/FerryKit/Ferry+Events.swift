import Foundation

/// Events: what FerryKit reports to the app and to the server.
extension Ferry {
    /// Subscribes `handler` to this instance's events, starting with this launch's `install` (on a first launch)
    /// and `open` events, which happened when the instance was made, and then every event published from the moment
    /// it subscribes, once and in order. The handler is called on the thread that produced the event.
    @discardableResult
    public func onEvent(_ handler: @escaping @Sendable (FerryEvent) -> Void) -> FerryEventSubscription {
        handlers.add(handler)
    }

    /// Sends queued install and open events now instead of after ``FerryOptions/eventFlushDelay``.
    public func flushEvents() async {
        await uploader.flush()
    }

    /// Install and open events not yet accepted by the server.
    public var pendingEventCount: Int {
        get async { await uploader.pendingCount }
    }

    func publish(_ event: FerryEvent) {
        handlers.publish(event)
        Self.globalHandlers.publish(event)
    }

    /// Whether the instance being made publishes its launch events to the subscribers of every instance itself:
    /// ``configure(apiKey:options:)`` publishes them instead, in the same step that hands them to later subscribers
    /// (see ``becameShared()``).
    @TaskLocal static var publishesLaunchEvents = true
}
