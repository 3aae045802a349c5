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

    /// ``flushEvents()-swift.method`` for code that is not async: `completion`, when given, runs on the main actor
    /// once the queue was sent (or kept for later, when the server could not take it).
    public func flushEvents(completion: (@MainActor @Sendable () -> Void)?) {
        Task {
            await flushEvents()
            await completion?()
        }
    }

    /// ``flushEvents(completion:)-swift.method`` on the shared instance; without one, `completion` runs at once
    /// (on the main actor), as there is nothing to send.
    public static func flushEvents(completion: (@MainActor @Sendable () -> Void)?) {
        if let shared { shared.flushEvents(completion: completion) } else if let completion { Task { @MainActor in completion() } }
    }

    /// Install and open events not yet accepted by the server: for tests and diagnostics. A property, so it has no
    /// completion twin and no static form: read it on an instance with `await`.
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
