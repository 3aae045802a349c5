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

    /// Sends queued install and open events now instead of after ``FerryOptions/eventFlushDelay``, and the opens of
    /// links ``handleDeepLink(_:)-swift.method`` could not resolve in time (the server records them as it resolves them).
    public func flushEvents() async {
        await uploader.flush()
        await sendPendingOpens()
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

    /// Sends an event of the app's own to your Ferry server (`POST /v1/events`), queued and batched with the install
    /// and open events and kept until the server has it: the server counts it among the app's custom events, and
    /// among the link's when `linkID` names one. Handlers of ``onEvent(_:)`` do not hear it: it is yours already.
    ///
    /// ```swift
    /// try Ferry.sendEvent("purchase", properties: ["plan": "yearly"], linkID: link.linkID)
    /// ```
    ///
    /// - Parameters:
    ///   - name: 1 to 64 of `a-z`, `0-9`, `_`, `.`, `-`; not one of FerryKit's and the server's own (`install`,
    ///     `open`, `reinstall`, `link_open`, `link_stats`).
    ///   - properties: at most 20, each name 1 to 64 characters and each value at most 256, without control characters.
    ///   - linkID: the ``DeepLink/linkID`` the event is about (1 to 64 printable ASCII characters), or nil.
    /// - Throws: ``FerryError/Code/invalidArgument`` naming the ``FerryError/field`` that is refused; nothing is queued then.
    public func sendEvent(_ name: FerryEvent.Name, properties: [String: String] = [:], linkID: String? = nil) throws(FerryError) {
        try CustomEvent.check(name: name.rawValue, properties: properties, linkID: linkID)
        let identity = identity, uploader = uploader, timestamp = now()
        Task {
            let installID = await identity.id()
            await uploader.enqueue(SDKEvent(name: name.rawValue, installID: installID, timestamp: timestamp, linkID: linkID,
                                            properties: properties.isEmpty ? nil : properties))
        }
    }

    /// ``sendEvent(_:properties:linkID:)`` on the shared instance (it only queues, so it is not async).
    ///
    /// - Throws: ``FerryError/Code/notConfigured`` before ``configure(apiKey:options:)``, or as the instance's.
    public static func sendEvent(_ name: FerryEvent.Name, properties: [String: String] = [:], linkID: String? = nil) throws(FerryError) {
        try requireShared("sendEvent").sendEvent(name, properties: properties, linkID: linkID)
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

/// What the server takes in an event of the app's own: checked on the device, because the server refuses a whole
/// batch for one bad event, and a refused batch is dropped with the install and open events in it.
enum CustomEvent {
    /// Names the server and FerryKit give a meaning to.
    static let reservedNames: Set<String> = ["install", "open", "reinstall", "link_open", "link_stats"]
    static let maxProperties = 20

    static func check(name: String, properties: [String: String], linkID: String?) throws(FerryError) {
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy({
            (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        }) else {
            throw FerryError(.invalidArgument, "an event name must be 1 to 64 characters of a-z, 0-9, '_', '.', '-'", field: "name")
        }
        guard !reservedNames.contains(name) else {
            throw FerryError(.invalidArgument, "'\(name)' is an event FerryKit or the server sends itself: name yours otherwise", field: "name")
        }
        guard properties.count <= maxProperties else {
            throw FerryError(.invalidArgument, "an event may have at most \(maxProperties) properties", field: "properties")
        }
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            guard !key.isEmpty, key.unicodeScalars.count <= 64, !hasControlCharacters(key) else {
                throw FerryError(.invalidArgument, "property names must be 1 to 64 characters without control characters", field: "properties")
            }
            guard value.unicodeScalars.count <= 256, !hasControlCharacters(value) else {
                throw FerryError(.invalidArgument, "property values must be at most 256 characters without control characters",
                                 field: "properties.\(key)")
            }
        }
        if let linkID, !(1...64).contains(linkID.utf8.count) || !linkID.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            throw FerryError(.invalidArgument, "linkID must be 1 to 64 printable ASCII characters without spaces", field: "linkID")
        }
    }

    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
