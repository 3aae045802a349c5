#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation

/// A database that cannot be reached or did not answer in time.
package struct DatabaseUnavailable: Error, CustomStringConvertible {
    /// What happened.
    package var message: String
    /// Creates the error.
    package init(message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}

/// Runs `operation`, throwing `timeoutError()` when it has not finished after `deadline`. The operation is cancelled
/// then but not waited for: a lease from a pool that cannot reach its server may take long to give up, and the
/// caller must not wait for that. Cancelling the caller cancels the operation (which the deadline still bounds).
package func withDeadline<T: Sendable>(
    _ deadline: Duration, timeoutError: @escaping @Sendable () -> any Error = { DatabaseUnavailable(message: "no answer from the database in time") },
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let state = DeadlineState()
    return try await withTaskCancellationHandler {
        try await race(deadline, state: state, timeoutError: timeoutError, operation)
    } onCancel: {
        state.cancelWork()
    }
}

private func race<T: Sendable>(
    _ deadline: Duration, state: DeadlineState, timeoutError: @escaping @Sendable () -> any Error,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let timer = Task {
            try? await Task.sleep(for: deadline)
            guard !Task.isCancelled else { return }
            state.finish {
                state.cancelWork()
                continuation.resume(throwing: timeoutError())
            }
        }
        state.setWork(Task {
            do {
                let value = try await operation()
                state.finish { continuation.resume(returning: value) }
            } catch {
                state.finish { continuation.resume(throwing: error) }
            }
            timer.cancel()  // no sleeper left behind for each operation that finished in time
        })
    }
}

/// Who won the race between an operation and its deadline.
final class DeadlineState: @unchecked Sendable {
    // @unchecked: `done` and `work` are only touched under `lock`.
    private let lock = NSLock()
    private var done = false
    private var work: Task<Void, Never>?
    private var cancelled = false

    /// Remembers the operation's task, so that a deadline that passes can cancel it (at once, if one already did).
    func setWork(_ task: Task<Void, Never>) {
        let cancelNow = lock.withLock { () -> Bool in
            work = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Cancels the operation's task, now or as soon as it is known.
    func cancelWork() {
        lock.withLock { () -> Task<Void, Never>? in
            cancelled = true
            return work
        }?.cancel()
    }

    /// Runs `body` if the race was not decided yet, deciding it.
    func finish(_ body: () -> Void) {
        let first = lock.withLock { () -> Bool in
            defer { done = true }
            return !done
        }
        if first { body() }
    }
}
#endif
