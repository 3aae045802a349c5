import Foundation

/// Privacy: how much of the device FerryKit's requests tell.
extension Ferry {
    /// The `User-Agent` of FerryKit's requests: FerryKit's version, then the platform, OS version and hardware model as
    /// far as `policy` lets the match send them (`FerryKit/0.5.0 (ios 18.1; iPhone16,1)`, `FerryKit/0.5.0 (ios 18.1)`,
    /// `FerryKit/0.5.0`).
    static func userAgent(sending policy: DeviceSignalsPolicy) -> String {
        let sdk = "FerryKit/\(sdkVersion)", platform = PortableDeviceSignalsProvider.currentPlatform
        switch policy {
        case .all: return "\(sdk) (\(platform) \(DeviceInfo.osVersion); \(DeviceInfo.hardwareModel ?? "unknown"))"
        case .minimal: return "\(sdk) (\(platform) \(DeviceSignalsPolicy.majorMinor(DeviceInfo.osVersion)))"
        case .none: return sdk
        }
    }
}

extension StorageKey {
    /// Set (to true) while the app has turned FerryKit off.
    static let disabled = "sdk.disabled"
}

/// Turning FerryKit off: for an app whose user declines attribution and analytics.
extension Ferry {
    /// Whether FerryKit may talk to the server; false after ``setEnabled(_:)-swift.method`` turned it off, on this
    /// launch and the next ones.
    public var isEnabled: Bool { Self.isEnabled(in: storage) }

    /// Turns FerryKit off (false) or back on (true), for this launch and the next ones: the setting is kept in the
    /// instance's ``FerryOptions/storage``.
    ///
    /// While FerryKit is off it sends nothing at all, not even the retry of a request already under way:
    /// - no key check, at launch or from ``validateKey()``, which throws ``FerryError/Code/disabled``;
    /// - ``checkDeferredDeepLink()-swift.method`` returns the answer stored before, if any, else nil, and stores
    ///   nothing, so that the install can still be matched once FerryKit is back on (within the attribution window);
    /// - ``handleDeepLink(_:)-swift.method`` reads custom-scheme URLs as always, and returns a Universal Link as it
    ///   was opened, unresolved: ``DeepLink/source`` `.universalLink`, ``DeepLink/slug`` from the URL, ``DeepLink/params``
    ///   and ``DeepLink/utm`` from its query, and no ``DeepLink/linkID``, ``DeepLink/destination`` or
    ///   ``DeepLink/iosURL``; route it on ``DeepLink/url``;
    /// - ``identify(userID:)`` (unless it answered the same user before), ``shortLink(for:)-swift.method`` and
    ///   ``createLink(for:)-swift.method`` throw ``FerryError/Code/disabled``;
    /// - install and open events are dropped, not queued, and turning FerryKit off drops those still waiting.
    ///
    /// What stays on the device goes on: first and last touch, the events your ``onEvent(_:)`` handlers hear.
    ///
    /// ```swift
    /// Ferry.setEnabled(user.allowsAttribution)
    /// ```
    public func setEnabled(_ enabled: Bool) {
        Self.setEnabled(enabled, in: storage)
        logger.info(enabled ? "FerryKit is on" : "FerryKit is off: nothing is sent until it is turned on again")
    }

    /// Whether the shared instance may talk to the server; before ``configure(apiKey:options:)``, what the default
    /// storage says (the setting the configured instance will read).
    public static var isEnabled: Bool { shared?.isEnabled ?? isEnabled(in: UserDefaultsStorage()) }

    /// ``setEnabled(_:)-swift.method`` on the shared instance; before ``configure(apiKey:options:)``, in the default
    /// storage, so that the instance configured afterwards (on the default storage) starts turned off, without a
    /// single request.
    public static func setEnabled(_ enabled: Bool) {
        setEnabled(enabled, on: shared, fallback: UserDefaultsStorage())
    }

    static func setEnabled(_ enabled: Bool, on ferry: Ferry?, fallback: any FerryStorage) {
        if let ferry { ferry.setEnabled(enabled) } else { setEnabled(enabled, in: fallback) }
    }

    static func isEnabled(in storage: any FerryStorage) -> Bool {
        storage.value(Bool.self, forKey: StorageKey.disabled) != true
    }

    /// Keeps the setting; turning off also empties the event queue (the uploader forgets a queue cleared in storage).
    static func setEnabled(_ enabled: Bool, in storage: any FerryStorage) {
        storage.setValue(enabled ? nil : true, forKey: StorageKey.disabled)
        // Nothing waits to be sent once FerryKit is off: queued events and the opens of links not resolved yet go.
        if !enabled { for key in [EventUploader.storageKey, PendingOpens.storageKey] { storage.setData(nil, forKey: key) } }
    }
}

/// Starting over as a new install, for QA, instead of deleting the app.
extension Ferry {
    /// Forgets what FerryKit knows of this install, as deleting the app would: the install id, first and last touch,
    /// the deferred deep link answer (and that it was taken), the last ``identify(userID:)`` answer, a click token
    /// waiting, the first-launch mark and the events not yet sent. Kept: the key's validation and whether FerryKit is
    /// turned off (``setEnabled(_:)-swift.method``).
    ///
    /// The new install id is random, not the IDFV: the server keeps one answer per install id, and the IDFV would bring
    /// the earlier one back. So the next ``checkDeferredDeepLink()-swift.method`` asks the server again and the install
    /// is matched as new (to a new click: a click leads to one install only), and the next launch is a first launch
    /// (``isFirstLaunch``, an `install` event). Call it when no other FerryKit call is under way.
    ///
    /// ```swift
    /// #if DEBUG
    /// Button("Reset FerryKit") { Ferry.reset() }   // then click the link again and relaunch the app
    /// #endif
    /// ```
    public func reset() {
        Self.reset(storage, lasting: identity.lasting)
        logger.info("FerryKit was reset: this install starts over under a new install id")
    }

    /// ``reset()-swift.method`` on the shared instance; before ``configure(apiKey:options:)``, on the default storage.
    public static func reset() {
        reset(on: shared, fallback: UserDefaultsStorage())
    }

    static func reset(on ferry: Ferry?, fallback: any FerryStorage) {
        if let ferry {
            ferry.reset()
        } else {
            reset(fallback, lasting: InstallIdentity.defaultLastingStorage(beside: fallback))
        }
    }

    /// Clears the install's state in `storage`; the instances on it follow (the install id and the event queue are read
    /// from storage at their next use).
    static func reset(_ storage: any FerryStorage, lasting: (any FerryStorage)? = nil) {
        for key in [StorageKey.firstLaunch, StorageKey.deferred, StorageKey.deferredTaken, StorageKey.identifiedUser, StorageKey.clickToken,
                    EventUploader.storageKey, PendingOpens.storageKey, StorageKey.installationID, StorageKey.reinstalled] {
            storage.setData(nil, forKey: key)
        }
        AttributionStore(storage: storage).reset()
        let id = UUID().uuidString
        storage.setValue(id, forKey: StorageKey.installID)
        // A re-install after a reset goes by the new id too.
        lasting?.setValue(id, forKey: StorageKey.installID)
    }
}
