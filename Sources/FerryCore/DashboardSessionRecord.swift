import Foundation

/// A signed-in dashboard session, as stored: only the hash of its random id is kept, so a copy of the database
/// cannot be turned into a session, and deleting the row ends it on every node.
package struct DashboardSessionRecord: Sendable, Hashable {
    /// Hex SHA-256 of the session id the browser holds.
    package var hash: String
    /// The stored hash of the secret key that signed in (checked again on every request).
    package var keyHash: String
    /// When it was made.
    package var createdAt: Date
    /// When it ends.
    package var expiresAt: Date

    /// Creates a record.
    package init(hash: String, keyHash: String, createdAt: Date, expiresAt: Date) {
        self.hash = hash
        self.keyHash = keyHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
