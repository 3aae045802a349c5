#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import ArgumentParser
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation

/// `ferry audit list`: the audit log on the server's machine, for the operator (every app unless `--app`).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audit", abstract: "Read the audit log: who changed what, when.",
                                                    subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List changes, newest first: time, app, environment, actor, address, action, object, fields changed.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only this app's changes (default: every app's).") var app: String?
        @Option(name: .customLong("env"), help: "Only changes of live or test (and those both share).") var environment: APIEnvironment?
        @Option(name: .customLong("object-type"), help: "Only changes of this kind of object: link, links, app, key, webhook, domain.")
        var objectType: String?
        @Option(name: .customLong("object-id"), help: "Only changes of the object with this id.") var objectID: String?
        @Option(help: "Only changes by this actor: a key's id, a user's id, a system user's name.") var actor: String?
        @Option(help: "Only changes at or after this time (2026-01-31T00:00:00Z).") var since: String?
        @Option(help: "Only changes before this time.") var until: String?
        @Option(help: "At most this many changes (1 to 100000).") var limit: Int = 100
        @Flag(help: "One JSON object a line, as GET /v1/audit-log answers each.") var json = false
        @Flag(help: "CSV, one line per field changed, as GET /v1/audit-log?format=csv.") var csv = false

        func run() async throws {
            try await runReportingErrors {
                guard (1...100_000).contains(limit) else { throw FerryCore.ValidationError(field: "limit", "--limit must be from 1 to 100000") }
                guard !(json && csv) else { throw FerryCore.ValidationError(field: "format", "choose --json or --csv, not both") }
                func date(_ text: String?, _ name: String) throws -> Date? {
                    guard let text else { return nil }
                    guard let date = FerryJSON.parseDate(text) else {
                        throw FerryCore.ValidationError(field: name, "--\(name) must be a date and time such as 2026-01-31T00:00:00Z")
                    }
                    return date
                }
                let store = try await database.open()
                var query = AuditQuery(appID: app, environment: environment, objectType: objectType, objectID: objectID, actorID: actor,
                                       since: try date(since, "since"), until: try date(until, "until"), limit: min(limit, 1000))
                if csv { print(CSV.line(AuditEvent.csvColumns), terminator: "") }
                let encoder = FerryJSON.makeEncoder()
                var left = limit
                while left > 0 {
                    query.limit = min(left, 1000)
                    let events = try await store.auditEvents(query)
                    for event in events {
                        if json {
                            print(String(decoding: try encoder.encode(event.response), as: UTF8.self))
                        } else if csv {
                            print(event.csvLines().joined(), terminator: "")
                        } else {
                            print(Self.line(event))
                        }
                    }
                    left -= events.count
                    guard events.count == query.limit, let last = events.last else { break }
                    query.before = last.id
                }
            }
        }

        /// One change as a tab-separated line.
        static func line(_ event: AuditEvent) -> String {
            let actor = event.actor.kind.rawValue + ":" + event.actor.id + (event.actor.label.map { " (\($0))" } ?? "")
            let fields: String = event.changes.keys.sorted().map { field -> String in
                let change = event.changes[field]!
                return "\(field): \(change.before ?? "∅") → \(change.after ?? "∅")"
            }.joined(separator: "; ")
            let columns: [String] = [FerryJSON.formatDate(event.at), event.appID ?? "-", event.environment?.rawValue ?? "-", actor,
                                     event.actor.address ?? "-", event.action, event.objectType + ":" + event.objectID, fields]
            return columns.joined(separator: "\t")
        }
    }
}
extension AuditActor {
    /// This run of `ferry`, by the system user the environment names: who the audit log says made its changes.
    static var thisCommand: AuditActor { .commandLine(environment: ProcessInfo.processInfo.environment) }
}
#endif
