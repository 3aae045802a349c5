import Foundation

/// The plumbing of the completion-handler twins: every public async call of ``Ferry`` has one that takes a completion
/// run on the main actor, and a static form on the shared instance (see docs/ios-integration.md, "Without
/// async/await").
extension Ferry {
    /// A completion handler of the twins: called once, on the main actor.
    public typealias Completion<Value> = @MainActor @Sendable (Result<Value, FerryError>) -> Void

    /// Runs `operation` on this instance in a task and hands its result to `completion` on the main actor.
    func complete<Value: Sendable>(_ completion: @escaping Completion<Value>, _ operation: @escaping @Sendable (Ferry) async throws(FerryError) -> Value) {
        Task {
            let result: Result<Value, FerryError>
            do throws(FerryError) { result = .success(try await operation(self)) } catch { result = .failure(error) }
            await completion(result)
        }
    }

    /// Runs `operation` on the shared instance and hands its result to `completion` on the main actor; without a
    /// shared instance, `completion` gets ``FerryError/Code/notConfigured`` naming `call`.
    static func completeOnShared<Value: Sendable>(
        _ call: String, _ completion: @escaping Completion<Value>, _ operation: @escaping @Sendable (Ferry) async throws(FerryError) -> Value
    ) {
        do { try requireShared(call).complete(completion, operation) } catch {
            Task { @MainActor in completion(.failure(error)) }
        }
    }
}
