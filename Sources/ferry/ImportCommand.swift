#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import ArgumentParser
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Import links from other platforms.", subcommands: [Firebase.self])

    struct Firebase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the links of a Firebase Dynamic Links export (Google Takeout CSV); safe to run again.",
            discussion: """
                Rows already imported are counted, not duplicated. A summary says what was created, what was there, and what was \
                skipped and why (the first 5 rows of each reason); --skipped-report writes every skipped row to a CSV file.
                """
        )
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The exported CSV file.") var file: String
        @Option(help: "The app's id (optional when there is one app).") var app: String?
        @Option(name: .customLong("env"), help: "live or test.") var environment: APIEnvironment = .live
        @Option(help: "Put every link on this domain of the app (page.link domains cannot move); default: each short link's own host.")
        var domain: String?
        @Flag(name: .customLong("dry-run"), help: "Say what would be done without writing anything to the database.") var dryRun = false
        @Option(name: .customLong("skipped-report"), help: "Write every skipped row (line, short link, code, message) to this CSV file.")
        var skippedReport: String?

        func run() async throws {
            try await runReportingErrors {
                let text: String
                do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                    throw FerryCore.ValidationError(field: "file", "cannot read \(file) as UTF-8 text")
                }
                // Fail before importing anything when the report cannot be written.
                if let skippedReport, !FileManager.default.createFile(atPath: skippedReport, contents: nil) {
                    throw FerryCore.ValidationError(field: "skipped-report", "cannot write \(skippedReport)")
                }
                let admin = FerryAdmin(store: try await database.open())
                let app = try await LinkCommand.app(self.app, admin: admin)
                let terminal = isatty(STDERR_FILENO) == 1
                let summary: FirebaseImporter.Summary
                do {
                    summary = try await FirebaseImporter(admin: admin).run(
                        csv: text, app: app, environment: environment, options: .init(domain: domain), dryRun: dryRun, by: .thisCommand
                    ) { done, total in
                        guard terminal, done == total || done % 25 == 0 else { return }
                        let width = 30, filled = total == 0 ? width : width * done / total
                        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                        FileHandle.standardError.write(Data("\r\(bar) \(done)/\(total)\(done == total ? "\n" : "")".utf8))
                    }
                } catch let error as FirebaseLinkImport.ImportError {
                    throw FerryCore.ValidationError(field: "file", error.message)
                }
                if let skippedReport {
                    do { try summary.skippedReport.write(toFile: skippedReport, atomically: true, encoding: .utf8) } catch {
                        throw FerryCore.ValidationError(field: "skipped-report", "cannot write \(skippedReport)")
                    }
                }
                print(Self.report(summary, dryRun: dryRun, skippedReport: skippedReport))
            }
        }

        /// The summary for people: counts, the first rows of each skip reason, the notes. Text from the file is printed
        /// with its control characters escaped.
        static func report(_ summary: FirebaseImporter.Summary, dryRun: Bool, skippedReport: String?) -> String {
            var lines = ["\(summary.rows) rows: \(summary.created) \(dryRun ? "would be created" : "created"), \(summary.alreadyThere) already there, \(summary.skippedCount) skipped"]
            for (code, rows) in summary.skippedByCode {
                lines.append("skipped \(rows.count) × \(code)")
                for row in rows.prefix(5) { lines.append("  line \(row.line): \(FirebaseLinkImport.printable(row.message))") }
                if rows.count > 5 { lines.append("  … and \(rows.count - 5) more\(skippedReport == nil ? " (--skipped-report FILE lists every skipped row)" : "")") }
            }
            for (note, count) in summary.notes.sorted(by: { $0.key < $1.key }) {
                lines.append("note (\(count) rows): \(FirebaseLinkImport.printable(note))")
            }
            if let skippedReport { lines.append("every skipped row (\(summary.skippedCount)): \(skippedReport)") }
            return lines.joined(separator: "\n")
        }
    }
}
#endif
