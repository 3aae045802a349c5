#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Synchronization

/// The dashboard's link imports on this node: each runs in the background while its page, refreshed by the browser,
/// reads how far it got, then what it did. One import at a time per app and environment; a finished one is kept an
/// hour. The links an import makes are in the store (and the audit log) as they are made, so an import cut short (a
/// restart) is finished by running it again: rows already imported are counted, not made twice.
final class ImportJobs: Sendable {
    /// One import.
    struct Job: Sendable {
        var id: String
        var appID: String
        var environment: APIEnvironment
        /// Who started it, as the audit log names them.
        var startedBy: String
        var fileName: String
        var dryRun: Bool
        var startedAt: Date
        var done = 0
        var total = 0
        var finishedAt: Date?
        var summary: FirebaseImporter.Summary?
        /// Why the import stopped short, when it did.
        var failure: String?

        var running: Bool { finishedAt == nil }
    }

    /// How long a finished import's page stays.
    static let kept: TimeInterval = 3_600
    /// Most imports remembered at once (the oldest finished ones go first).
    static let capacity = 200

    private let jobs = Mutex<[String: Job]>([:])
    let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// The import of an app and environment, if it is one of theirs and still remembered.
    func job(_ id: String, appID: String, environment: APIEnvironment) -> Job? {
        jobs.withLock { jobs in
            forgetOld(&jobs)
            return jobs[id].flatMap { $0.appID == appID && $0.environment == environment ? $0 : nil }
        }
    }

    /// The import running for an app and environment, if any.
    func running(appID: String, environment: APIEnvironment) -> Job? {
        jobs.withLock { jobs in jobs.values.first { $0.appID == appID && $0.environment == environment && $0.running } }
    }

    /// Starts `work` in the background as a new import, unless one runs for the app and environment (then nil).
    /// `work` reports progress through the closure it is given and returns the summary.
    func start(appID: String, environment: APIEnvironment, startedBy: String, fileName: String, dryRun: Bool,
               work: @escaping @Sendable (@escaping @Sendable (Int, Int) -> Void) async throws -> FirebaseImporter.Summary) -> Job? {
        var generator = SystemRandomNumberGenerator()
        let job = Job(id: Identifiers.make(prefix: "imp", using: &generator), appID: appID, environment: environment, startedBy: startedBy,
                      fileName: fileName, dryRun: dryRun, startedAt: now())
        let admitted = jobs.withLock { jobs -> Bool in
            forgetOld(&jobs)
            guard !jobs.values.contains(where: { $0.appID == appID && $0.environment == environment && $0.running }) else { return false }
            jobs[job.id] = job
            return true
        }
        guard admitted else { return nil }
        let id = job.id
        Task {
            do {
                let summary = try await work { done, total in
                    self.jobs.withLock { jobs in
                        jobs[id]?.done = done
                        jobs[id]?.total = total
                    }
                }
                finish(id) { $0.summary = summary }
            } catch let error as FirebaseLinkImport.ImportError {
                finish(id) { $0.failure = error.message }
            } catch {
                finish(id) { $0.failure = "the import stopped: \(error). Links made before it stopped are kept; import the file again to finish." }
            }
        }
        return job
    }

    private func finish(_ id: String, _ change: (inout Job) -> Void) {
        let at = now()
        jobs.withLock { jobs in
            guard var job = jobs[id] else { return }
            change(&job)
            job.finishedAt = at
            jobs[id] = job
        }
    }

    private func forgetOld(_ jobs: inout [String: Job]) {
        let cutoff = now().addingTimeInterval(-Self.kept)
        jobs = jobs.filter { $0.value.finishedAt.map { $0 > cutoff } ?? true }
        if jobs.count > Self.capacity {
            let oldest = jobs.values.filter { !$0.running }.sorted { $0.startedAt < $1.startedAt }.prefix(jobs.count - Self.capacity)
            for job in oldest { jobs[job.id] = nil }
        }
    }
}
#endif
