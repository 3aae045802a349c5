import Foundation

/// A database that cannot be reached or did not answer in time.
public struct DatabaseUnavailable: Error, CustomStringConvertible {
    /// What happened.
    public var message: String
    /// Creates the error.
    public init(message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// Runs `operation`, throwing `timeoutError()` when it has not finished after `deadline`. The operation is cancelled
/// then but not waited for: a lease from a pool that cannot reach its server may take long to give up, and the
/// caller must not wait for that.
public func withDeadline<T: Sendable>(
    _ deadline: Duration, timeoutError: @escaping @Sendable () -> any Error = { DatabaseUnavailable(message: "no answer from the database in time") },
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let state = DeadlineState()
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let work = Task {
            do {
                let value = try await operation()
                state.finish { continuation.resume(returning: value) }
            } catch {
                state.finish { continuation.resume(throwing: error) }
            }
        }
        Task {
            try? await Task.sleep(for: deadline)
            state.finish {
                work.cancel()
                continuation.resume(throwing: timeoutError())
            }
        }
    }
}

/// Who won the race between an operation and its deadline.
final class DeadlineState: @unchecked Sendable {
    // @unchecked: `done` is only touched under `lock`.
    private let lock = NSLock()
    private var done = false

    /// Runs `body` if the race was not decided yet, deciding it.
    func finish(_ body: () -> Void) {
        let first = lock.withLock { () -> Bool in
            defer { done = true }
            return !done
        }
        if first { body() }
    }
}
