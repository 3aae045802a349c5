#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryStore

/// How the edge asks the database what its cache does not know: each lookup has a deadline, and a lookup that finds
/// the database away (past its deadline, or failing for lack of a connection) throws `DatabaseUnavailable`, so that
/// the click is answered from a stale entry or with a 503 page rather than waiting for a pool that cannot connect.
/// (A store that watches its own server, as the PostgreSQL one does, fails at once while the server is away.)
struct EdgeLookups: Sendable {
    let store: any FerryDatabase
    let timeout: Duration

    /// Runs a lookup; errors that do not say the database is away are rethrown as they are.
    func run<T: Sendable>(_ lookup: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await withDeadline(timeout, lookup)
        } catch let error as DatabaseUnavailable {
            throw error
        } catch {
            guard store.isOutage(error) else { throw error }
            throw DatabaseUnavailable(message: "the database is away: \(error)")
        }
    }
}
#endif
