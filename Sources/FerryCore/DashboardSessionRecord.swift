import Foundation

/// A signed-in dashboard session, as stored: only the hash of its random id is kept, so a copy of the database
/// cannot be turned into a session, and deleting the row ends it on every node.
public struct DashboardSessionRecord: Sendable, Hashable {
    /// Hex SHA-256 of the session id the browser holds.
    public var hash: String
    /// The stored hash of the secret key that signed in (checked again on every request).
    public var keyHash: String
    /// When it was made.
    public var createdAt: Date
    /// When it ends.
    public var expiresAt: Date

    /// Creates a record.
    public init(hash: String, keyHash: String, createdAt: Date, expiresAt: Date) {
        self.hash = hash
        self.keyHash = keyHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
