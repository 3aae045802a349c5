#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation

/// Creates the links of a Firebase Dynamic Links export (``FirebaseLinkImport`` decides each row), idempotently:
/// a row whose link is already there with the same destination is counted as done before, one whose domain and slug
/// hold another link is skipped and says so.
package struct FirebaseImporter: Sendable {
    /// What an import did.
    package struct Summary: Sendable {
        /// Rows read.
        package var rows = 0
        /// Links created.
        package var created = 0
        /// Rows whose link was there already (an earlier import).
        package var alreadyThere = 0
        /// Rows skipped, by reason code, with the first lines and messages of each.
        package var skipped: [String: [(line: Int, message: String)]] = [:]
        /// Notes on created rows, by text, with how many rows had them.
        package var notes: [String: Int] = [:]

        /// How many rows were skipped.
        package var skippedCount: Int { skipped.values.reduce(0) { $0 + $1.count } }
    }

    let links: LinkEditor

    /// Creates an importer.
    package init(admin: FerryAdmin) {
        self.links = LinkEditor(admin: admin)
    }

    /// Imports `csv` into `app`; `progress` is called after each row with (rows done, rows in all). With `dryRun`
    /// nothing is written and the summary says what would be.
    package func run(csv: String, app: App, environment: APIEnvironment, options: FirebaseLinkImport.Options, dryRun: Bool = false,
                    progress: (Int, Int) -> Void = { _, _ in }) async throws -> Summary {
        let rows = try FirebaseLinkImport.rows(csv: csv, app: app, options: options)
        var summary = Summary()
        summary.rows = rows.count
        for (index, row) in rows.enumerated() {
            defer { progress(index + 1, rows.count) }
            switch row.outcome {
            case .skip(let reason):
                summary.skipped[reason.code.rawValue, default: []].append((row.line, reason.message))
            case .create(let request, let createdAt):
                let domain = request.domain ?? app.domains.first ?? ""
                if let existing = try await links.existing(domain: domain, slug: request.slug ?? "") {
                    if existing.appID == app.id && existing.environment == environment && existing.destination == request.destination.trimmingCharacters(in: .whitespaces) {
                        summary.alreadyThere += 1
                    } else {
                        summary.skipped["slug_taken", default: []].append((row.line, "\(domain)/\(request.slug ?? "") already holds another link"))
                    }
                    continue
                }
                if !dryRun {
                    do {
                        _ = try await links.create(request, app: app, environment: environment, createdAt: createdAt)
                    } catch let error as ValidationError {
                        summary.skipped["invalid_link", default: []].append((row.line, error.message))
                        continue
                    } catch let conflict as StoreConflict {
                        summary.skipped["slug_taken", default: []].append((row.line, conflict.message))
                        continue
                    }
                }
                summary.created += 1
                for note in row.notes { summary.notes[note, default: 0] += 1 }
            }
        }
        return summary
    }
}
#endif
