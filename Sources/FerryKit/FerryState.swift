import Foundation

// What a Ferry instance keeps between calls and launches: storage keys, cached answers, the known link domains,
// the install id, and single-flight requests.

/// Keys of what FerryKit keeps in ``FerryStorage``.
enum StorageKey {
    static let firstLaunch = "install.firstLaunch"
    static let installID = "install.id"
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

/// The id this install goes by on the server: the provider's (the IDFV) the first time, then always the same one,
/// read from storage each time so that a reset's new id is taken at once (kept here only for a storage that keeps nothing).
actor InstallIdentity {
    let storage: any FerryStorage
    let provider: any DeviceSignalsProvider
    private var cached: String?

    init(storage: any FerryStorage, provider: any DeviceSignalsProvider) {
        self.storage = storage
        self.provider = provider
    }

    func id() async -> String {
        if let stored = storage.value(String.self, forKey: StorageKey.installID), !stored.isEmpty {
            cached = stored
            return stored
        }
        if let cached { return cached }
        let fresh = await provider.installIdentifier().flatMap { id -> String? in
            (1...128).contains(id.utf8.count) && id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) ? id : nil
        } ?? UUID().uuidString
        if let raced = cached { return raced }
        cached = fresh
        storage.setValue(fresh, forKey: StorageKey.installID)
        return fresh
    }
}

/// One request shared by every caller that asks while it is under way.
actor SharedRequest<Value: Sendable> {
    private var task: Task<Value, any Error>?

    func run(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let task { return try await task.value }
        let task = Task { try await operation() }
        self.task = task
        defer { self.task = nil }
        return try await task.value
    }
}

/// The empty JSON object some routes take as their body.
struct EmptyBody: Codable {}
