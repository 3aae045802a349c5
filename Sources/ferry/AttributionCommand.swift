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
        subcommands: [Refit.self, Model.self])

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
