import Foundation

/// Whether this launch has been told apart from the install's first yet. That needs FerryKit's storage, which an
/// app launched in the background before the device's first unlock cannot read: until then it is pending.
enum LaunchState: Sendable {
    /// Not decided yet; `shared` once ``Ferry/configure(apiKey:options:)`` made the instance the shared one.
    case pending(shared: Bool)
    /// Decided, with this launch's `install` (on the first launch) and `open` events.
    case decided(isFirstLaunch: Bool, events: [FerryEvent])
}

/// The first-launch decision: made when the instance is made, or, when protected data is not available yet, as soon
/// as it is.
extension Ferry {
    /// Nanoseconds between two looks at whether protected data has become available.
    static let protectedDataPollInterval: UInt64 = 1_000_000_000

    /// True when this process is the first launch of the install (nothing of FerryKit's was in storage).
    ///
    /// False while the device has not been unlocked since it started (an app launched in the background for a
    /// push, a location or a VoIP call before the first unlock cannot read its storage): FerryKit then waits for
    /// protected data to be available before deciding, rather than take the unreadable storage for a fresh install.
    public var isFirstLaunch: Bool {
        if case .decided(let isFirstLaunch, _) = launch.withLock({ $0 }) { return isFirstLaunch }
        return false
    }

    /// This launch's `install` (on the first launch) and `open` events; none before the launch is decided.
    var launchEvents: [FerryEvent] {
        if case .decided(_, let events) = launch.withLock({ $0 }) { return events }
        return []
    }

    var isLaunchDecided: Bool {
        if case .decided = launch.withLock({ $0 }) { return true }
        return false
    }

    /// Decides now when protected data is available, or else watches for it (from the end of `init`).
    func startLaunch(storageReady: Bool) {
        if storageReady {
            decideLaunch()
            return
        }
        logger.info("protected data is not available (the device has not been unlocked since it started): the first-launch decision waits for it")
        Task { [weak self] in
            // Holds the instance only while it looks, not while it sleeps.
            while let decided = await self?.lookForProtectedData(), !decided {
                try? await Task.sleep(nanoseconds: Self.protectedDataPollInterval)
            }
        }
    }

    /// Waits until the launch is decided (at once, unless protected data is not available yet); false when the
    /// calling task is cancelled first.
    func launchDecided() async -> Bool {
        while true {
            if await lookForProtectedData() { return true }
            if Task.isCancelled { return false }
            try? await Task.sleep(nanoseconds: Self.protectedDataPollInterval)
        }
    }

    /// Decides the launch if protected data has become available; true once it is decided.
    private func lookForProtectedData() async -> Bool {
        if isLaunchDecided { return true }
        let storage = storage
        guard await MainActor.run(body: { storage.isAvailable }) else { return false }
        decideLaunch()
        return true
    }

    /// Marks the first launch in storage (or reads when it was), makes this launch's events, hands them to the
    /// instance's subscribers (and to later ones), to every instance's subscribers, and queues them for the server.
    func decideLaunch() {
        let launched = now()
        let lasting = identity.lasting
        let decision = launch.withLock { state -> (first: Bool, events: [FerryEvent], shared: Bool, seen: Date?)? in
            guard case .pending(let shared) = state else { return nil }
            let seen = storage.value(Date.self, forKey: StorageKey.firstLaunch)
            if seen == nil { storage.setValue(launched, forKey: StorageKey.firstLaunch) }
            let first: FerryEvent.Name = InstallIdentity.isReinstall(storage: storage, lasting: lasting) ? .reinstall : .install
            let events = (seen == nil ? [first, .open] : [.open]).map { FerryEvent(name: $0, timestamp: launched) }
            state = .decided(isFirstLaunch: seen == nil, events: events)
            return (seen == nil, events, shared, seen)
        }
        guard let decision else { return }
        if let seen = decision.seen {
            logger.debug("launch of an install first seen \(FerryJSON.formatDate(seen), privacy: .public)")
        } else {
            logger.info("first launch of this install")
        }
        handlers.publish(decision.events, retaining: true)
        if decision.shared {
            Self.globalHandlers.publish(decision.events, retaining: true)
        } else if Self.publishesLaunchEvents {
            Self.globalHandlers.publish(decision.events)
        }
        let identity = identity, uploader = uploader, events = decision.events
        Task {
            await uploader.storageIsReady()
            let installID = await identity.id()
            for event in events { await uploader.enqueue(SDKEvent(name: event.name.rawValue, installID: installID, timestamp: event.timestamp)) }
        }
    }

    /// Called by ``Ferry/configure(apiKey:options:)`` once the instance is the shared one: its launch events become
    /// the ones every later subscriber of all instances is handed first, now or when the launch is decided.
    func becameShared() {
        let events = launch.withLock { state -> [FerryEvent]? in
            switch state {
            case .pending:
                state = .pending(shared: true)
                return nil
            case .decided(_, let events):
                return events
            }
        }
        if let events { Self.globalHandlers.publish(events, retaining: true) }
    }
}

extension FerryStorage {
    /// Waits until the storage can be read (asked on the main actor, where UIKit answers); false when the calling
    /// task is cancelled first.
    func waitUntilAvailable() async -> Bool {
        while !(await MainActor.run(body: { self.isAvailable })) {
            if Task.isCancelled { return false }
            try? await Task.sleep(nanoseconds: Ferry.protectedDataPollInterval)
        }
        return true
    }
}
