import Foundation

/// Where FerryKit keeps what must survive a relaunch: the first-launch mark, the deferred link answer,
/// the key validation, first and last touch, events not yet sent.
///
/// The default is ``UserDefaultsStorage`` on a suite of its own; tests and apps with their own store
/// pass something else through ``FerryOptions/storage``. Implementations must be safe to call from any thread.
public protocol FerryStorage: Sendable {
    /// The data stored under `key`, or nil.
    func data(forKey key: String) -> Data?
    /// Stores `data` under `key`, replacing what was there; nil removes the key.
    func setData(_ data: Data?, forKey key: String)
    /// False while what is stored cannot be read: on a device that has not been unlocked since it started, files
    /// protected until the first unlock (`UserDefaults` among them) read as empty. FerryKit then neither decides
    /// whether this is the first launch nor makes a new install id until it is true. Asked on the main thread when
    /// FerryKit can; the default is true.
    var isAvailable: Bool { get }
}

extension FerryStorage {
    /// Always true: a store that is always readable.
    public var isAvailable: Bool { true }

    func value<T: Decodable>(_ type: T.Type, forKey key: String) -> T? {
        guard let data = data(forKey: key) else { return nil }
        return try? FerryJSON.makeDecoder().decode(T.self, from: data)
    }

    func setValue<T: Encodable>(_ value: T?, forKey key: String) {
        setData(value.flatMap { try? FerryJSON.makeEncoder().encode($0) }, forKey: key)
    }
}

/// ``FerryStorage`` in a `UserDefaults` suite (`dev.ferry.sdk` unless told otherwise).
///
/// Values survive relaunches and app updates; they go when the app is deleted, and may come back from a
/// device backup (see docs/ios-integration.md for what that means for first-launch detection). Before the
/// device's first unlock they cannot be read; ``isAvailable`` tells (on iOS, from
/// `UIApplication.isProtectedDataAvailable`).
public final class UserDefaultsStorage: FerryStorage, @unchecked Sendable {
    // @unchecked: UserDefaults is documented as thread-safe, and this class holds nothing else that changes.
    private let defaults: UserDefaults
    private let prefix: String
    private let protectedDataAvailable: @Sendable () -> Bool

    /// The suite FerryKit uses by default.
    public static let defaultSuiteName = "dev.ferry.sdk"

    /// Stores in the named suite (or `UserDefaults.standard` when the suite cannot be opened), every key prefixed with `ferry.`.
    ///
    /// - Parameter isProtectedDataAvailable: whether protected data can be read now; by default
    ///   ``ProtectedData/isAvailable()``.
    public init(suiteName: String = UserDefaultsStorage.defaultSuiteName, isProtectedDataAvailable: (@Sendable () -> Bool)? = nil) {
        defaults = UserDefaults(suiteName: suiteName) ?? .standard
        prefix = "ferry."
        protectedDataAvailable = isProtectedDataAvailable ?? { ProtectedData.isAvailable() }
    }

    /// Whether protected data, and so this suite, can be read now.
    public var isAvailable: Bool { protectedDataAvailable() }

    /// The data stored under `key`, or nil.
    public func data(forKey key: String) -> Data? { defaults.data(forKey: prefix + key) }

    /// Stores `data` under `key`; nil removes it.
    public func setData(_ data: Data?, forKey key: String) {
        if let data { defaults.set(data, forKey: prefix + key) } else { defaults.removeObject(forKey: prefix + key) }
    }
}

/// ``FerryStorage`` in memory: for tests, previews, and apps that must not write to disk. Nothing survives the process.
public final class InMemoryStorage: FerryStorage, @unchecked Sendable {
    // @unchecked: every access to `values` goes through `lock`.
    private let lock = NSLock()
    private var values: [String: Data] = [:]

    /// An empty store.
    public init() {}

    /// The data stored under `key`, or nil.
    public func data(forKey key: String) -> Data? { lock.withLock { values[key] } }

    /// Stores `data` under `key`; nil removes it.
    public func setData(_ data: Data?, forKey key: String) { lock.withLock { values[key] = data } }

    /// Every key stored, sorted (for tests and debugging).
    public var keys: [String] { lock.withLock { values.keys.sorted() } }
}

/// A value behind a lock, for the few places where an actor would force callers to `await`.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
