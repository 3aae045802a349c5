#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Crypto
import FerryAPI
import FerryCore
import FerryStore
import Foundation

/// Dashboard sessions: a random id in the cookie (190 bits), of which the database keeps only the SHA-256 with the
/// hash of the secret key that signed in. Nothing in the database can be turned back into a session, every node
/// reads the same sessions, signing out deletes the row (the session ends on every node at once), and every request
/// checks the key again, so revoking it ends its sessions too. Forms carry a CSRF token derived from the session id
/// (a hash with a purpose of its own, so neither the token nor the stored hash gives the id away), checked in
/// constant time on every POST.
struct DashboardSessions: Sendable {
    let store: any SessionStore
    let lifetime: TimeInterval

    /// The session cookie's name.
    static let cookie = "ferry_session"
    /// The sign-in form's pre-session cookie (a nonce its CSRF token is made from).
    static let signInCookie = "ferry_signin"

    init(store: any SessionStore, lifetime: TimeInterval = 12 * 3600) {
        self.store = store
        self.lifetime = lifetime
    }

    struct Session: Sendable {
        /// The id the browser holds (the cookie's value).
        var id: String
        var record: DashboardSessionRecord
    }

    /// A new session's cookie value for a key; sessions that ended are forgotten on the way.
    func issue(keyHash: String, now: Date) async throws -> String {
        var generator = SystemRandomNumberGenerator()
        let id = Identifiers.apiKeySecret(using: &generator)
        _ = try await store.purgeSessions(expiredBefore: now)
        try await store.createSession(DashboardSessionRecord(hash: Secrets.hashKey(id), keyHash: keyHash, createdAt: now,
                                                             expiresAt: now.addingTimeInterval(lifetime)))
        return id
    }

    /// The session of a cookie value, if one was issued with it, was not ended and has not expired.
    func read(_ value: String?, now: Date) async throws -> Session? {
        guard let value, Self.isSessionID(value) else { return nil }
        let hash = Secrets.hashKey(value)
        guard let record = try await store.session(hash: hash), Secrets.constantTimeEquals(record.hash, hash), record.expiresAt > now else {
            return nil
        }
        return Session(id: value, record: record)
    }

    /// Ends the session of a cookie value, on every node.
    func end(_ value: String?) async throws {
        guard let value, Self.isSessionID(value) else { return }
        _ = try await store.deleteSession(hash: Secrets.hashKey(value))
    }

    /// The form of the ids `issue` makes: 32 letters and digits.
    static func isSessionID(_ value: String) -> Bool {
        value.utf8.count == 32 && value.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// The CSRF token of a session id (or of a sign-in nonce).
    func csrfToken(nonce: String) -> String { Secrets.hashKey("ferry-dashboard-csrf." + nonce) }

    /// Whether a submitted token is the one of this nonce.
    func checkCSRF(_ token: String?, nonce: String) -> Bool {
        guard let token else { return false }
        return Secrets.constantTimeEquals(csrfToken(nonce: nonce), token)
    }
}
#endif
