import Foundation

/// Something FerryKit did that an app may want in its own analytics: a link opened the app, first touch was
/// set, the install was matched. Subscribe with ``Ferry/onEvent(_:)``.
///
/// ```swift
/// Ferry.onEvent { event in
///     Analytics.logEvent(event.name.rawValue, parameters: event.parameters)
/// }
/// ```
public struct FerryEvent: Sendable, Hashable {
    /// An event name; the ones FerryKit sends are below, and any `[a-z0-9_.-]` name is valid.
    public struct Name: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The name as text.
        public var rawValue: String
        /// Creates a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a name from a literal.
        public init(stringLiteral value: String) { rawValue = value }
        /// The name as text.
        public var description: String { rawValue }

        /// A link opened the app (a Universal Link, a custom-scheme URL, or a deferred link on the first launch).
        public static let deepLinkOpened: Name = "deep_link_opened"
        /// The first link ever to open this install was recorded as its first touch (once per install).
        public static let firstTouchAttributed: Name = "first_touch_attributed"
        /// The first launch of this install (sent to the server too).
        public static let install: Name = "install"
        /// The first launch of an installation on a device that had the app before, in place of ``install``: the
        /// install id kept in ``FerryOptions/lastingStorage`` survived the app's deletion (sent to the server too).
        public static let reinstall: Name = "reinstall"
        /// A launch (sent to the server too).
        public static let open: Name = "open"
        /// The first launch was matched to the link clicked before the install.
        public static let deferredDeepLinkMatched: Name = "deferred_deep_link_matched"
    }

    /// What happened.
    public var name: Name
    /// Details: `url`, `path`, the `utm_*` parameters and `dl_target` when present, `link_id`, `slug`, for a link
    /// read from its URL because the server could not be asked in time `is_resolved` (`false`), and for deferred
    /// links `is_deferred` (`true`), `match_type` and `confidence`. Install and open events have none.
    public var parameters: [String: String]
    /// When it happened.
    public var timestamp: Date

    /// Creates an event.
    public init(name: Name, parameters: [String: String] = [:], timestamp: Date = Date()) {
        self.name = name
        self.parameters = parameters
        self.timestamp = timestamp
    }

    /// The parameters FerryKit reports for a link: url, path, the campaign parameters and target, link id and slug.
    static func parameters(for link: DeepLink) -> [String: String] {
        var parameters = ["url": link.url.absoluteString, "path": DeepLinkRequest(url: link.url).path]
        let utm = link.utm
        for (name, value) in [("utm_source", utm.source), ("utm_medium", utm.medium), ("utm_campaign", utm.campaign),
                              ("utm_content", utm.content), ("utm_term", utm.term), (DeepLinkParameter.target, link.target),
                              ("link_id", link.linkID), ("slug", link.slug)] {
            if let value, !value.isEmpty { parameters[name] = value }
        }
        if !link.isResolved { parameters["is_resolved"] = "false" }
        if link.isDeferred {
            parameters["is_deferred"] = "true"
            if let matchType = link.matchType { parameters["match_type"] = matchType.rawValue }
            if let confidence = link.confidence { parameters["confidence"] = String(format: "%.3f", confidence) }
        }
        return parameters
    }
}

/// A subscription made by ``Ferry/onEvent(_:)``; ``cancel()`` ends it.
public final class FerryEventSubscription: Sendable {
    private let onCancel: @Sendable () -> Void
    init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
    /// Stops the handler from receiving further events.
    public func cancel() { onCancel() }
}

/// The handlers subscribed to events.
///
/// A handler is registered before anything else happens in ``add(_:replaying:)``, so every event published after
/// that moment reaches it: an event published while it is still being handed the events it subscribed late for
/// waits, and is handed to it right after them, in the order published; every other event is handed to it on the
/// thread that published it. A handler is never called with a lock held, so it may publish or subscribe itself.
final class EventHandlers: Sendable {
    /// One handler, and the events that wait for it while it is handed its replay (nil once it hears events live).
    private final class Subscriber: Sendable {
        let handler: @Sendable (FerryEvent) -> Void
        let backlog = Locked<[FerryEvent]?>([])

        init(_ handler: @escaping @Sendable (FerryEvent) -> Void) { self.handler = handler }

        func deliver(_ event: FerryEvent) {
            let now = backlog.withLock { backlog -> Bool in
                guard backlog != nil else { return true }
                backlog?.append(event)
                return false
            }
            if now { handler(event) }
        }

        /// Hands the handler `replay`, then what was published meanwhile, then lets events through as they come.
        func goLive(after replay: [FerryEvent]) {
            for event in replay { handler(event) }
            while let waiting = backlog.withLock({ backlog -> [FerryEvent]? in
                guard let pending = backlog, !pending.isEmpty else {
                    backlog = nil
                    return nil
                }
                backlog = []
                return pending
            }) {
                for event in waiting { handler(event) }
            }
        }
    }

    private struct Registry: Sendable {
        var subscribers: [UInt64: Subscriber] = [:]
        var lastID: UInt64 = 0
        /// The events every subscriber is handed first (the shared instance's launch events).
        var retained: [FerryEvent] = []
    }

    private let registry = Locked(Registry())

    /// Subscribes `handler`, first handing it the retained events and then the `replaying` events (events that
    /// happened before it subscribed), then every event published from the moment it was registered.
    func add(_ handler: @escaping @Sendable (FerryEvent) -> Void, replaying: [FerryEvent] = []) -> FerryEventSubscription {
        let subscriber = Subscriber(handler)
        let (id, retained) = registry.withLock { registry -> (UInt64, [FerryEvent]) in
            registry.lastID += 1
            registry.subscribers[registry.lastID] = subscriber
            return (registry.lastID, registry.retained)
        }
        subscriber.goLive(after: retained + replaying)
        return FerryEventSubscription { [weak self] in self?.registry.withLock { _ = $0.subscribers.removeValue(forKey: id) } }
    }

    func publish(_ event: FerryEvent) { publish([event]) }

    /// Hands `events` to every subscriber, in order. With `retaining`, they also become the events handed first to
    /// every later subscriber (in place of the ones retained before): in one step, so that each subscriber gets
    /// them exactly once, either now or when it subscribes.
    func publish(_ events: [FerryEvent], retaining: Bool = false) {
        let subscribers = registry.withLock { registry -> [Subscriber] in
            if retaining { registry.retained = events }
            return registry.subscribers.sorted { $0.key < $1.key }.map(\.value)
        }
        for event in events {
            for subscriber in subscribers { subscriber.deliver(event) }
        }
    }
}

/// Sends the install and open events to the server in batches: kept in storage until the server has them,
/// sent a few seconds after the first one waits, dropped when the server refuses them as malformed or when
/// they are too old to be worth sending (29 days). While FerryKit is turned off, events are dropped, not queued;
/// a queue cleared in storage (by turning FerryKit off, or by a reset) is forgotten here too.
actor EventUploader {
    static let storageKey = "events.pending"
    static let maxPending = 500
    static let maxAge: TimeInterval = 29 * 86400

    let client: APIClient
    let storage: any FerryStorage
    let logger: FerryLogger
    let flushDelay: TimeInterval
    let now: @Sendable () -> Date
    let isEnabled: @Sendable () -> Bool
    private var pending: [SDKEvent]
    private var scheduled: Task<Void, Never>?
    private var running: Task<Void, Never>?
    /// Whether the stored queue was read: until then (before the device's first unlock) the queue is not written,
    /// so that the events stored by earlier launches are not replaced.
    private var loaded: Bool

    /// An uploader; with `storageIsReady` false it neither reads nor writes the stored queue until ``storageIsReady()``.
    init(client: APIClient, storage: any FerryStorage, logger: FerryLogger, flushDelay: TimeInterval, now: @escaping @Sendable () -> Date,
         isEnabled: @escaping @Sendable () -> Bool = { true }, storageIsReady: Bool = true) {
        self.client = client
        self.storage = storage
        self.logger = logger
        self.flushDelay = flushDelay
        self.now = now
        self.isEnabled = isEnabled
        loaded = storageIsReady
        pending = storageIsReady ? storage.value([SDKEvent].self, forKey: Self.storageKey) ?? [] : []
    }

    var pendingCount: Int {
        forgetIfCleared()
        return pending.count
    }

    /// Empties the queue, in storage too, while FerryKit is turned off, and forgets a queue cleared in storage from
    /// outside (turning FerryKit off, a reset); true when either left nothing to send.
    @discardableResult
    private func forgetIfCleared() -> Bool {
        if !isEnabled() {
            if loaded, !pending.isEmpty || storage.data(forKey: Self.storageKey) != nil { storage.setData(nil, forKey: Self.storageKey) }
            pending = []
            return true
        }
        // Before the stored queue is read (the device's first unlock), storage says nothing about it.
        guard loaded, !pending.isEmpty, storage.data(forKey: Self.storageKey) == nil else { return false }
        pending = []
        return true
    }

    /// Reads the stored queue, once protected data is available, ahead of what was queued since.
    func storageIsReady() {
        guard !loaded else { return }
        loaded = true
        pending = (storage.value([SDKEvent].self, forKey: Self.storageKey) ?? []) + pending
        if pending.count > Self.maxPending { pending.removeFirst(pending.count - Self.maxPending) }
    }

    private func store() {
        if loaded { storage.setValue(pending, forKey: Self.storageKey) }
    }

    func enqueue(_ event: SDKEvent) {
        forgetIfCleared()
        guard isEnabled() else { return }
        pending.append(event)
        if running == nil, pending.count > Self.maxPending { pending.removeFirst(pending.count - Self.maxPending) }
        store()
        // Turned off while this was written (the switch is not on this actor): what was just kept goes too.
        if forgetIfCleared() { return }
        guard scheduled == nil else { return }
        let delay = flushDelay
        scheduled = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, delay) * 1_000_000_000))
            await self?.flush()
        }
    }

    /// Sends everything waiting; a second caller waits for the flush already under way.
    func flush() async {
        scheduled?.cancel()
        scheduled = nil
        if let running {
            await running.value
            return
        }
        let task = Task { await self.drain() }
        running = task
        await task.value
        running = nil
    }

    private func drain() async {
        let oldest = now().addingTimeInterval(-Self.maxAge)
        pending.removeAll { ($0.timestamp ?? .distantPast) < oldest }
        while !pending.isEmpty, !forgetIfCleared() {
            let batch = Array(pending.prefix(100))
            do {
                let answer = try await client.post(FerryRoutes.events, body: EventsRequest(events: batch), as: EventsResponse.self)
                logger.debug("server took \(answer.accepted) events")
            } catch where error.code == .badRequest {
                logger.warning("the server refused \(batch.count) events and they were dropped: \(error.message, privacy: .public)")
            } catch {
                logger.info("events stay queued: \(error.message, privacy: .public)")
                if !forgetIfCleared() { store() }
                return
            }
            if forgetIfCleared() { return }
            pending.removeFirst(min(batch.count, pending.count))
            store()
        }
    }
}
