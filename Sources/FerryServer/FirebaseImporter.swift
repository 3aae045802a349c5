#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation

/// Creates the links of a Firebase Dynamic Links export (``FirebaseLinkImport`` decides each row), idempotently:
/// a row whose link is already there with the same destination is counted as done before, one whose domain and slug
/// hold another link is skipped and says so. A link an earlier version of the importer made from a row with a
/// desktop fallback (`ofl` as destination, the deep link in `params.fdl_link`) counts as done before too, and is left
/// as it is.
package struct FirebaseImporter: Sendable {
    /// What an import did.
    package struct Summary: Sendable {
        /// Rows read.
        package var rows = 0
        /// Links created.
        package var created = 0
        /// Rows whose link was there already (an earlier import).
        package var alreadyThere = 0
        /// Every skipped row, in file order.
        package var skipped: [SkippedRow] = []
        /// Notes on created rows (and rows found already there), by text, with how many rows had them.
        package var notes: [String: Int] = [:]

        /// How many rows were skipped.
        package var skippedCount: Int { skipped.count }

        /// The skipped rows by reason code, codes in alphabetical order, rows in file order.
        package var skippedByCode: [(code: String, rows: [SkippedRow])] {
            Dictionary(grouping: skipped, by: \.code).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }

        /// Every skipped row as CSV (`line,short_link,code,message`, RFC 4180, a header first), for a spreadsheet.
        package var skippedReport: String {
            CSV.line(["line", "short_link", "code", "message"])
                + skipped.map { CSV.line([String($0.line), $0.shortLink, $0.code, $0.message]) }.joined()
        }
    }

    /// A row that created no link, and why.
    package struct SkippedRow: Sendable, Hashable {
        /// The line of the file the row starts on.
        package var line: Int
        /// The short link as the file has it (trimmed), possibly empty.
        package var shortLink: String
        /// The reason's stable code: a ``FirebaseLinkImport/SkipReason/Code``, or `slug_taken` when the domain and
        /// slug hold another link, `invalid_link` when the store refused the link.
        package var code: String
        /// A sentence for people.
        package var message: String
    }

    let links: LinkEditor

    /// Creates an importer.
    package init(admin: FerryAdmin) {
        self.links = LinkEditor(admin: admin)
    }

    /// Imports `csv` into `app`; `progress` is called after each row with (rows done, rows in all). With `dryRun`
    /// nothing is written and the summary says what would be. Each link made is recorded in the audit log as `actor`'s.
    package func run(csv: String, app: App, environment: APIEnvironment, options: FirebaseLinkImport.Options, dryRun: Bool = false,
                    by actor: AuditActor?, progress: (Int, Int) -> Void = { _, _ in }) async throws -> Summary {
        let rows = try FirebaseLinkImport.rows(csv: csv, app: app, options: options)
        var summary = Summary()
        summary.rows = rows.count
        for (index, row) in rows.enumerated() {
            defer { progress(index + 1, rows.count) }
            func skip(_ code: String, _ message: String) {
                summary.skipped.append(SkippedRow(line: row.line, shortLink: row.shortLink, code: code, message: message))
            }
            switch row.outcome {
            case .skip(let reason):
                skip(reason.code.rawValue, reason.message)
            case .create(let request, let createdAt):
                let domain = request.domain ?? app.domains.first ?? ""
                if let existing = try await links.existing(domain: domain, slug: request.slug ?? "") {
                    let ours = existing.appID == app.id && existing.environment == environment
                    if ours && existing.destination == request.destination.trimmingCharacters(in: .whitespaces) {
                        summary.alreadyThere += 1
                    } else if ours && Self.isEarlierImport(existing, of: request) {
                        summary.alreadyThere += 1
                        summary.notes[Self.earlierImportNote, default: 0] += 1
                    } else {
                        skip("slug_taken", "\(domain)/\(request.slug ?? "") already holds another link")
                    }
                    continue
                }
                if !dryRun {
                    do {
                        _ = try await links.create(request, app: app, environment: environment, createdAt: createdAt, by: actor)
                    } catch let error as ValidationError {
                        skip("invalid_link", error.message)
                        continue
                    } catch let conflict as StoreConflict {
                        skip("slug_taken", conflict.message)
                        continue
                    }
                }
                summary.created += 1
                for note in row.notes { summary.notes[note, default: 0] += 1 }
            }
        }
        return summary
    }

    static let earlierImportNote = "imported before with the desktop fallback (ofl) as destination: left as it is, without per-link routing"

    /// Whether `existing` is what an earlier version of the importer made of `request`'s row: the desktop fallback as
    /// destination and the deep link in `params.fdl_link`.
    static func isEarlierImport(_ existing: Link, of request: CreateLinkRequest) -> Bool {
        guard let desktop = request.routing?.otherPlatformFallbackURL else { return false }
        return existing.destination == desktop && existing.params["fdl_link"] == request.destination
    }
}
#endif
