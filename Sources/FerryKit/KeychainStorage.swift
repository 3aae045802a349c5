#if canImport(Security)
import Foundation
import Security

/// ``FerryStorage`` in the keychain, as generic passwords of one service: what survives the app's deletion, so that a
/// re-install goes by its earlier install id (``FerryOptions/lastingStorage``).
///
/// Items are readable after the device's first unlock and stay on this device: they are neither synced nor restored
/// to another device from a backup (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`).
public final class KeychainStorage: FerryStorage {
    /// The keychain service the items are stored under.
    public let service: String

    /// The service FerryKit uses by default.
    public static let defaultService = "dev.ferry.sdk"

    /// Stores items under `service`.
    public init(service: String = KeychainStorage.defaultService) {
        self.service = service
    }

    private func item(_ key: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: key]
    }

    /// The data stored under `key`, or nil (also before the first unlock, when the item cannot be read).
    public func data(forKey key: String) -> Data? {
        var query = item(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? Data
    }

    /// Stores `data` under `key`; nil removes it.
    public func setData(_ data: Data?, forKey key: String) {
        let query = item(key)
        guard let data else {
            _ = SecItemDelete(query as CFDictionary)
            return
        }
        let attributes: [String: Any] = [kSecValueData as String: data, kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly]
        if SecItemUpdate(query as CFDictionary, attributes as CFDictionary) == errSecItemNotFound {
            _ = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
        }
    }
}
#endif
