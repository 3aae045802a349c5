import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A test trait for tests that compute for seconds without waiting (replaying a simulated population, classifying a
/// corpus): their bodies run on a thread of their own, at a lower priority, instead of on Swift's cooperative pool.
///
/// The pool has one thread per core. A test that computes on it for a minute holds half of a two-core machine's pool,
/// and the servers, clients and timers of every other test in the run share what is left: their deadlines passed
/// without their code having run. On a thread of its own the computation is scheduled by the system like any other,
/// and its lower priority lets the waiting tests go first.
public struct BackgroundWork: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(BackgroundThread.shared) { try await function() }
    }
}

extension Trait where Self == BackgroundWork {
    /// Runs the test, or every test of the suite, off Swift's cooperative pool at a lower priority (see `BackgroundWork`).
    public static var backgroundWork: Self { BackgroundWork() }
}

/// One thread that runs the jobs of the tasks that prefer it, in turn, at a lower priority than the rest of the process.
final class BackgroundThread: TaskExecutor, @unchecked Sendable {
    static let shared = BackgroundThread()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "ferry-tests-background"
        #if !os(Linux)
        thread.qualityOfService = .utility
        #endif
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        #if os(Linux)
        // On Linux a thread's nice value is its own (the process's id 0 names the calling thread); 10 gives it about a
        // tenth of a core's share against the others.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
