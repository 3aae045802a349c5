#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Crypto
import FerryCore
import Foundation
import _CryptoExtras

/// Passwords stored with scrypt, a slow, memory-hard hash (swift-crypto's `KDF.Scrypt`), each with a salt of its own:
/// `scrypt$ln=17$r=8$p=1$SALT$HASH` (base64). The cost is in the stored text, so a stronger cost later still checks
/// the passwords stored before it.
package struct PasswordHash: Sendable {
    /// log2 of scrypt's cost N. 17 (128 MiB, a few hundred milliseconds) is what OWASP recommends for scrypt.
    package var logCost: Int

    /// The costs a stored hash may name: below 10 is too weak to accept, above 20 a way to tie up the server.
    static let logCosts = 10...20
    static let blockSize = 8
    static let parallelism = 1
    static let saltBytes = 16
    static let hashBytes = 32

    /// Creates a hasher with a cost (`logCost` within 10–20).
    package init(logCost: Int = 17) {
        self.logCost = min(max(logCost, Self.logCosts.lowerBound), Self.logCosts.upperBound)
    }

    /// The stored text of a password, with a fresh salt.
    package func hash(_ password: String) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<Self.saltBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let derived = try Self.derive(password, salt: salt, logCost: logCost)
        return "scrypt$ln=\(logCost)$r=\(Self.blockSize)$p=\(Self.parallelism)$\(Data(salt).base64EncodedString())$\(derived.base64EncodedString())"
    }

    /// Whether `password` is the one `stored` was made from; false for a stored text this build cannot read.
    package static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt", parts[2] == "r=\(blockSize)", parts[3] == "p=\(parallelism)",
              parts[1].hasPrefix("ln="), let logCost = Int(parts[1].dropFirst(3)), logCosts.contains(logCost),
              let salt = Data(base64Encoded: String(parts[4])), let expected = Data(base64Encoded: String(parts[5])), expected.count == hashBytes,
              let derived = try? derive(password, salt: Array(salt), logCost: logCost)
        else { return false }
        return Secrets.constantTimeEquals(derived.base64EncodedString(), expected.base64EncodedString())
    }

    /// `hash(_:)` on a thread of Dispatch's, not the task's: a slow hash would hold one of the few threads that run
    /// every request.
    package func hashOffThread(_ password: String) async throws -> String {
        try await Self.offThread { try hash(password) }
    }

    /// `verify(_:against:)` on a thread of Dispatch's.
    package static func verifyOffThread(_ password: String, against stored: String) async -> Bool {
        (try? await offThread { verify(password, against: stored) }) ?? false
    }

    static func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }

    static func derive(_ password: String, salt: [UInt8], logCost: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(from: Array(password.utf8), salt: salt, outputByteCount: hashBytes, rounds: 1 << logCost,
                                           blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Data($0) }
    }
}
#endif
