#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import ArgumentParser
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import Logging

struct AttributionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attribution", abstract: "Look at and refit the attribution models learnt for apps (--attribution-model learned).",
        subcommands: [Report.self, Refit.self, Model.self])

    /// `--app` and `--environment`, shared by the subcommands.
    struct Target: ParsableArguments {
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The app's id.") var app: String
        @Option(name: [.customLong("environment"), .customLong("env")], help: "live or test.") var environment: APIEnvironment = .live

        /// The store and the app.
        func open() async throws -> (store: any FerryDatabase, app: App) {
            let store = try await database.open()
            guard let found = try await store.app(id: app) else {
                throw FerryCore.ValidationError(code: .notFound, field: "app", "no app with id '\(app)'")
            }
            return (store, found)
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print how an app's attribution model does: its parameters, accuracy on its labelled installs, calibration.",
            discussion: """
                Each install a click token or the Play Store referrer tied to its click is answered again as if it had \
                carried neither, by the model the app answers with, and the answer is compared with its click: precision \
                and recall at the app's minimum confidence, and a calibration curve of every match stated at 0.40 or \
                more, all together and by segment (household address, shared address, same network, changed network). \
                --svg writes the curve as a chart.
                """)
        @OptionGroup var target: Target
        @Option(help: "Also write the calibration chart, as SVG, to this file.") var svg: String?
        @Flag(help: "Print the report as JSON instead of text.") var json = false
        @Option(help: "Evaluate at most this many observations, the newest first.") var observations = AttributionRefitter.maximumObservations

        func validate() throws {
            guard observations > 0 else { throw ValidationError("--observations must be a positive number") }
        }

        func run() async throws {
            try await runReportingErrors {
                let (store, app) = try await target.open()
                let report = try await AttributionReporter(store: store).report(app: app, environment: target.environment, limit: observations,
                                                                                now: FerryAdmin.wallClock())
                if let svg {
                    do {
                        try Data(CalibrationChart.svg(report.evaluation).utf8).write(to: URL(fileURLWithPath: svg))
                    } catch {
                        throw FerryCore.ValidationError(field: "svg", "cannot write \(svg): \(error.localizedDescription)")
                    }
                }
                if json {
                    let encoder = FerryJSON.makeEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    print(String(decoding: try encoder.encode(report), as: UTF8.self))
                } else {
                    print(report.text, terminator: "")
                }
            }
        }
    }

    struct Refit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refit an app's model now, from its observations of the last 28 days; prints the new version.",
            discussion: "The model becomes the app's active one: a running server answers with it within a minute.")
        @OptionGroup var target: Target

        func run() async throws {
            try await runReportingErrors {
                let (store, app) = try await target.open()
                let refitter = AttributionRefitter(store: store, logger: Logger(label: "ferry"))
                switch try await refitter.refit(app: app, environment: target.environment, force: true) {
                case .refitted(let version):
                    print(version.version)
                    if app.attribution.model == .fixed {
                        FileHandle.standardError.write(Data("note: the app answers with the fixed model until --attribution-model learned\n".utf8))
                    }
                case .tooFewObservations:
                    throw FerryCore.ValidationError(code: .notFound, field: "app", "no observations of '\(app.id)' (\(target.environment.rawValue)) in the last 28 days")
                case .busy:
                    throw FerryCore.ValidationError(field: "app", "another server is refitting this model now; try again in a minute")
                case .notDue:
                    break  // a forced refit is always due
                }
            }
        }
    }

    struct Model: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the summary of an app's active model as JSON: its version, what it was fitted on, what it says.")
        @OptionGroup var target: Target

        func run() async throws {
            try await runReportingErrors {
                let (store, app) = try await target.open()
                guard let active = try await store.activeModel(appID: app.id, environment: target.environment) else {
                    throw FerryCore.ValidationError(code: .notFound, field: "app",
                                                    "no model was fitted for '\(app.id)' (\(target.environment.rawValue)) yet; see ferry attribution refit")
                }
                let printed = Printed(version: active.version.version, createdAt: active.version.createdAt, answersWithIt: app.attribution.model == .learned,
                                      summary: active.version.summary)
                let encoder = FerryJSON.makeEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(printed), as: UTF8.self))
            }
        }

        struct Printed: Encodable {
            var version: Int
            var createdAt: Date
            /// Whether the app's setting is `learned` (otherwise the model is kept but unused).
            var answersWithIt: Bool
            var summary: AttributionModelSummary
        }
    }
}
#endif
