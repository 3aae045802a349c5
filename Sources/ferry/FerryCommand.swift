#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import ArgumentParser
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

@main
struct FerryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "Self-hosted deep links: short links, previews, association files and attribution.",
        subcommands: [Serve.self, AppCommand.self, KeyCommand.self, LinkCommand.self, ImportCommand.self, AttributionCommand.self, AuditCommand.self, UserCommand.self]
    )
}

/// `--database`, shared by every command.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "sqlite:PATH or postgres://… (default: $FERRY_DATABASE_URL, else sqlite:ferry.sqlite).")
    var database: String?

    func location() throws -> DatabaseLocation {
        if let database { return try DatabaseLocation(parsing: database) }
        if let value = ProcessInfo.processInfo.environment["FERRY_DATABASE_URL"], !value.isEmpty { return try DatabaseLocation(parsing: value) }
        return .default
    }

    func open() async throws -> any FerryDatabase {
        do { return try await location().open() } catch let error as ConfigurationError { throw ValidationError(error.description) }
    }
}

/// Prints a store or validation failure as one line and exits 1 (usage mistakes exit 64 through ArgumentParser).
func runReportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as FerryCore.ValidationError {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        throw ExitCode(1)
    } catch let error as StoreConflict {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        throw ExitCode(1)
    } catch let error as ConfigurationError {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        throw ExitCode(1)
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the Ferry server (SQLite at ./ferry.sqlite unless told otherwise).")

    @Option(help: "Address to listen on.") var host: String?
    @Option(help: "Port to listen on (0 picks a free one).") var port: Int?
    @OptionGroup var database: DatabaseOptions
    @Option(name: .customLong("trusted-proxy"), help: "A proxy (address or CIDR) whose X-Forwarded-For is believed; repeatable.")
    var trustedProxies: [String] = []

    /// glibc gives each thread that allocates under contention an arena of its own and keeps what they free; with a
    /// server's many threads that held about 100 MB more than the data under load. Two arenas are plenty for
    /// Ferry's allocation rate. `MALLOC_ARENA_MAX` set by the operator wins.
    static func limitMallocArenas() {
        #if canImport(Glibc)
        // mallopt is declared in <malloc.h>, which Swift's Glibc module leaves out: found at run time instead.
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8  // M_ARENA_MAX
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil,
              let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: MallOpt.self)(arenaMax, 2)
        #endif
    }

    func run() async throws {
        Self.limitMallocArenas()
        try await runReportingErrors {
            var configuration = FerryConfiguration()
            let environment = ProcessInfo.processInfo.environment
            try configuration.apply(environment: environment)
            configuration.logFormat.bootstrap()
            let traces = try TraceExport.start(environment)
            if let host { configuration.host = host }
            if let port {
                guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
                configuration.port = port
            }
            if database.database != nil { configuration.database = try database.location() }
            if !trustedProxies.isEmpty {
                do { configuration.trustedProxies = try IPNetwork.parseList(trustedProxies.joined(separator: ",")) } catch { throw ValidationError("--trusted-proxy: \(error)") }
            }
            // The click journal goes beside the database opened here: `buildApplication` cannot tell where a store it
            // is handed lives.
            configuration.clickJournal = configuration.clickJournal.resolved(for: configuration.database)
            let store = try await configuration.database.open()
            let admin = FerryAdmin(store: store)
            let domains = Self.defaultDomains(host: configuration.host, port: configuration.port)
            let bootstrap = try await admin.bootstrapIfEmpty(domains: domains)
            let host = configuration.host
            let location = configuration.database
            let jsonLog = configuration.logFormat == .json
            let app = try await buildApplication(configuration, store: store, processServices: traces.map { [$0] } ?? []) { port in
                let shown = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
                let base = "http://\(shown.contains(":") ? "[\(shown)]" : shown):\(port)"
                if jsonLog {
                    // A JSON log goes to a pipeline: the new app's keys are not written there (`ferry key create`
                    // makes one on this machine).
                    let logger = Logger(label: "ferry")
                    logger.notice("Ferry is running", metadata: ["url": "\(base)", "database": "\(location)"])
                    if let bootstrap {
                        logger.notice("created the default app; its first keys are not written to a JSON log: make one with `ferry key create --app \(bootstrap.app.id) --kind secret`",
                                      metadata: ["app_id": "\(bootstrap.app.id)", "domains": "\(bootstrap.app.domains.joined(separator: ", "))"])
                    }
                    return
                }
                var lines = ["Ferry is running at \(base) (database \(location))", "Dashboard: \(base)/dashboard (sign in with a secret key)"]
                if let bootstrap {
                    lines += [
                        "Created the default app \(bootstrap.app.id) for \(bootstrap.app.domains.joined(separator: ", ")).",
                        "Secret key (server-side only; shown once):    \(bootstrap.secretKey)",
                        "Publishable key (safe to ship in your app):   \(bootstrap.publishableKey)",
                    ]
                }
                FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            }
            try await app.runService()
        }
    }

    /// Link domains of the app created on first start: the loopback names with the port in development.
    static func defaultDomains(host: String, port: Int) -> [String] {
        // With a port picked by the system, the domains carry none: a host without a port matches any port.
        if port == 0 { return ["localhost", "127.0.0.1"] }
        if ["127.0.0.1", "localhost", "0.0.0.0", "::", "::1"].contains(host) {
            return ["localhost:\(port)", "127.0.0.1:\(port)"]
        }
        return ["\(host):\(port)"]
    }
}
#else
/// Elsewhere (SwiftPM builds every target on every platform the package declares) there is nothing to run.
@main
enum FerryCommand {
    static func main() { print("ferry runs on macOS and Linux") }
}
#endif
