import Foundation

// What a Ferry instance keeps between calls and launches: storage keys, cached answers, the known link domains,
// the install id, and single-flight requests.

/// Keys of what FerryKit keeps in ``FerryStorage``.
enum StorageKey {
    static let firstLaunch = "install.firstLaunch"
    static let installID = "install.id"
    static let installationID = "install.installation"
    static let reinstalled = "install.reinstalled"
    static let deferred = "deferred.result"
    static let validation = "key.validation"
    static let identifiedUser = "user.attribution"
    static let clickToken = "deferred.clickToken"
    static let deferredTaken = "deferred.taken"
}

/// The deferred deep link answer, link or not, kept so the match is asked for once per install.
struct CachedMatch: Codable {
    var checkedAt: Date
    var link: DeepLink?
}

/// The last successful key validation, for the key with that fingerprint.
struct CachedValidation: Codable {
    var keyFingerprint: String
    var validatedAt: Date
    var settings: SDKValidateResponse

    /// A 64-bit FNV-1a hash of the key: enough to tell keys apart without keeping the key itself.
    static func fingerprint(of key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// The link domains and schemes FerryKit recognises: the options' and the server's.
struct KnownLinks: Sendable {
    var domains: Set<String>
    var schemes: Set<String>
    var validated: SDKValidateResponse?

    init(options: FerryOptions, validated: SDKValidateResponse?) {
        var domains = Set(options.linkDomains.compactMap(LinkURL.normalizeDomain))
        var schemes = Set(options.urlSchemes.map { $0.lowercased().replacingOccurrences(of: "://", with: "") }.filter { !$0.isEmpty })
        if let validated {
            domains.formUnion(validated.domains.compactMap(LinkURL.normalizeDomain))
            if let scheme = validated.urlScheme?.lowercased(), !scheme.isEmpty { schemes.insert(scheme) }
        }
        schemes.subtract(["http", "https"])
        self.domains = domains
        self.schemes = schemes
        self.validated = validated
    }

    var attributionWindow: TimeInterval? { validated.map { TimeInterval($0.attributionWindowSeconds) } }
}

/// The id this install goes by on the server: the one the lasting storage kept from an earlier installation (a
/// re-install), else the provider's (the IDFV), the first time, then always the same one, read from storage each time
/// so that a reset's new id is taken at once (kept here only for a storage that keeps nothing). Also the id of this
/// installation, new each time the app is installed.
actor InstallIdentity {
    let storage: any FerryStorage
    let provider: any DeviceSignalsProvider
    /// What outlives the app (the keychain), if anything.
    let lasting: (any FerryStorage)?
    private var cached: String?
    private var cachedInstallation: String?
    /// Whether the lasting storage was seen to hold the id (it is read once a process).
    private var lastingHoldsID = false

    init(storage: any FerryStorage, provider: any DeviceSignalsProvider, lasting: (any FerryStorage)? = nil) {
        self.storage = storage
        self.provider = provider
        self.lasting = lasting
    }

    /// The lasting storage for `options`: the one given, else the keychain on Apple platforms when FerryKit keeps its
    /// state in its own UserDefaults suite; none when re-installs are not to be recognised.
    static func lastingStorage(for options: FerryOptions) -> (any FerryStorage)? {
        guard options.recognizesReinstalls else { return nil }
        return options.lastingStorage ?? defaultLastingStorage(beside: options.storage)
    }

    /// The keychain on Apple platforms when `storage` is FerryKit's own UserDefaults suite; nil otherwise.
    static func defaultLastingStorage(beside storage: any FerryStorage) -> (any FerryStorage)? {
        #if canImport(Security)
        return storage is UserDefaultsStorage ? KeychainStorage() : nil
        #else
        return nil
        #endif
    }

    /// Whether this installation went by an install id an earlier one left in the lasting storage: told by storage once
    /// the id was taken, else by what the lasting storage holds now (read on the first launch, before the id is taken).
    static func isReinstall(storage: any FerryStorage, lasting: (any FerryStorage)?) -> Bool {
        if let stored = storage.value(String.self, forKey: StorageKey.installID), !stored.isEmpty {
            return storage.value(Bool.self, forKey: StorageKey.reinstalled) == true
        }
        return lasting.flatMap { Self.valid($0.value(String.self, forKey: StorageKey.installID)) } != nil
    }

    /// `id` when it can be sent as an install id.
    static func valid(_ id: String?) -> String? {
        guard let id, (1...128).contains(id.utf8.count), id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return id
    }

    /// This installation's id: made on its first use and kept in storage, which the app's deletion empties.
    func installationID() async -> String {
        if let stored = storage.value(String.self, forKey: StorageKey.installationID), !stored.isEmpty {
            cachedInstallation = stored
            return stored
        }
        if let cachedInstallation { return cachedInstallation }
        guard await storage.waitUntilAvailable() else { return "" }
        if let raced = cachedInstallation { return raced }
        if let stored = storage.value(String.self, forKey: StorageKey.installationID), !stored.isEmpty {
            cachedInstallation = stored
            return stored
        }
        let fresh = UUID().uuidString
        cachedInstallation = fresh
        storage.setValue(fresh, forKey: StorageKey.installationID)
        return fresh
    }

    func id() async -> String {
        if let stored = storage.value(String.self, forKey: StorageKey.installID), !stored.isEmpty {
            cached = stored
            keepLasting(stored)
            return stored
        }
        if let cached { return cached }
        // Before the device's first unlock the stored id cannot be read: wait for it rather than make another one.
        // A task cancelled meanwhile gets an empty id, which it cannot send: its request is cancelled too.
        guard await storage.waitUntilAvailable() else { return "" }
        if let raced = cached { return raced }
        if let stored = storage.value(String.self, forKey: StorageKey.installID), !stored.isEmpty {
            cached = stored
            return stored
        }
        // An earlier installation's id, kept where deleting the app left it: this is a re-install.
        if let kept = lasting.flatMap({ Self.valid($0.value(String.self, forKey: StorageKey.installID)) }) {
            cached = kept
            lastingHoldsID = true
            storage.setValue(true, forKey: StorageKey.reinstalled)
            storage.setValue(kept, forKey: StorageKey.installID)
            return kept
        }
        let fresh = Self.valid(await provider.installIdentifier()) ?? UUID().uuidString
        if let raced = cached { return raced }
        cached = fresh
        storage.setValue(fresh, forKey: StorageKey.installID)
        keepLasting(fresh)
        return fresh
    }

    /// Writes `id` to the lasting storage unless it was seen to hold it already in this process.
    private func keepLasting(_ id: String) {
        guard let lasting, !lastingHoldsID else { return }
        if lasting.value(String.self, forKey: StorageKey.installID) != id { lasting.setValue(id, forKey: StorageKey.installID) }
        lastingHoldsID = true
    }
}

/// One request shared by every caller that asks while it is under way.
///
/// A caller whose task is cancelled stops waiting at once (with `CancellationError`); the request itself goes on
/// for the other callers and for whatever it does with its answer, and the next caller after it ends starts a new one.
actor SharedRequest<Value: Sendable> {
    private var task: Task<Value, any Error>?
    private var started = 0

    func run(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = self.task ?? start(operation)
        return try await Self.wait(for: task)
    }

    private func start(_ operation: @escaping @Sendable () async throws -> Value) -> Task<Value, any Error> {
        started += 1
        let number = started
        // Unstructured, so that no caller's cancellation reaches it (it runs on this actor, the request off it).
        let task = Task {
            do {
                let value = try await operation()
                finished(number)
                return value
            } catch {
                finished(number)
                throw error
            }
        }
        self.task = task
        return task
    }

    private func finished(_ number: Int) {
        if number == started { task = nil }
    }

    /// The task's value, or `CancellationError` as soon as the calling task is cancelled (the task goes on).
    static func wait(for task: Task<Value, any Error>) async throws -> Value {
        let waiter = OneShot<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                waiter.install(continuation)
                Task { waiter.resume(with: await task.result) }
            }
        } onCancel: {
            waiter.resume(with: .failure(CancellationError()))
        }
    }
}

/// A continuation resumed once, by whichever comes first: the answer, or the cancellation that may come before the
/// continuation is even installed.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case waiting
        case installed(CheckedContinuation<Value, any Error>)
        case done(Result<Value, any Error>?)
    }
    private let state = Locked<State>(.waiting)

    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            switch state {
            case .waiting:
                state = .installed(continuation)
                return nil
            case .done(let result):
                state = .done(nil)
                return result
            case .installed:
                preconditionFailure("a continuation installed twice")
            }
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .waiting:
                state = .done(result)
                return nil
            case .installed(let continuation):
                state = .done(nil)
                return continuation
            case .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}

/// The empty JSON object some routes take as their body.
struct EmptyBody: Codable {}
