import Crypto
import FerryAPI
import FerryCore
import Foundation

/// Dashboard sessions as signed cookies: `v1.<key hash>.<expiry>.<nonce>.<HMAC-SHA256>` keyed with a server secret
/// kept in the database (so every node reads the same sessions). The cookie names the secret key that signed in by
/// its stored hash; every request checks that key again, so revoking it ends its sessions on every node at once.
/// Forms carry a CSRF token derived from the session (HMAC of its nonce), checked in constant time on every POST.
struct DashboardSessions: Sendable {
    let secret: [UInt8]
    let lifetime: TimeInterval

    /// The session cookie's name.
    static let cookie = "ferry_session"
    /// The sign-in form's pre-session cookie (a nonce its CSRF token is made from).
    static let signInCookie = "ferry_signin"

    init(secret: String, lifetime: TimeInterval = 12 * 3600) {
        self.secret = Array(secret.utf8)
        self.lifetime = lifetime
    }

    struct Session: Sendable {
        var keyHash: String
        var expires: Int
        var nonce: String
    }

    func sign(_ text: String) -> String {
        Secrets.hex(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: secret)))
    }

    /// A new session's cookie value for a key.
    func issue(keyHash: String, now: Date) -> String {
        var generator = SystemRandomNumberGenerator()
        let payload = "v1.\(keyHash).\(Int(now.timeIntervalSince1970 + lifetime)).\(Identifiers.apiKeySecret(using: &generator))"
        return payload + "." + sign(payload)
    }

    /// The session of a cookie value, if it is well-formed, signed by this server and not expired.
    func read(_ value: String?, now: Date) -> Session? {
        guard let value, value.utf8.count < 400 else { return nil }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == "v1", let expires = Int(parts[2]) else { return nil }
        let payload = parts[0..<4].joined(separator: ".")
        guard Secrets.constantTimeEquals(sign(payload), parts[4]), Double(expires) > now.timeIntervalSince1970 else { return nil }
        return Session(keyHash: parts[1], expires: expires, nonce: parts[3])
    }

    /// The CSRF token of a session (or of a sign-in nonce).
    func csrfToken(nonce: String) -> String { sign("csrf." + nonce) }

    /// Whether a submitted token is the one of this nonce.
    func checkCSRF(_ token: String?, nonce: String) -> Bool {
        guard let token else { return false }
        return Secrets.constantTimeEquals(csrfToken(nonce: nonce), token)
    }
}
