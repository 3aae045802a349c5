#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import Testing
import FerryTestSupport

/// Runs the real `ferry` executable that `swift test` built next to the test bundle.
struct FerryProcess {
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // On macOS the test bundle is a folder (…/FerryPackageTests.xctest/Contents/MacOS/…).
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("ferry").path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("ferry")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a command to completion (waiting on a thread of its own).
    /// Runs a command to completion (waiting on a thread of its own), with `input` on its standard input.
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) async throws -> Result {
        try await onItsOwnThread { try runWaiting(arguments, environment: environment, input: input) }
    }

    static func runWaiting(_ arguments: [String], environment: [String: String], input: String? = nil) throws -> Result {
        var env = ProcessInfo.processInfo.environment
        env["FERRY_DATABASE_URL"] = nil
        for (key, value) in environment { env[key] = value }
        var inputFile: URL?
        if let input {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-input-\(UUID().uuidString)")
            try Data(input.utf8).write(to: file)
            inputFile = file
        }
        defer { inputFile.map { try? FileManager.default.removeItem(at: $0) } }
        let result = try ChildProcess.run(executable.path, arguments, environment: env, standardInput: inputFile?.path)
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// A running `ferry serve`, its output going to a file.
    final class Server {
        let process: ChildProcess
        let output: URL
        let port: Int

        init(database: String, port: Int, directory: URL, environment: [String: String] = [:]) throws {
            self.port = port
            output = directory.appendingPathComponent("serve-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            var env = ProcessInfo.processInfo.environment
            env["FERRY_DATABASE_URL"] = nil
            env["FERRY_LOG_LEVEL"] = "warning"
            // With PostgreSQL the click journal would be `ferry-clicks` in the working directory, which every server of
            // the run shares: each test's goes in its own directory (the same one when it restarts its server). With
            // SQLite it goes beside the database, as it does for everyone.
            if database.hasPrefix("postgres") { env["FERRY_CLICK_JOURNAL"] = directory.appendingPathComponent("ferry-clicks").path }
            for (key, value) in environment { env[key] = value }
            process = try ChildProcess(executable: FerryProcess.executable.path, arguments: ["serve", "--database", database, "--port", String(port)],
                                       environment: env, standardOutput: .file(output.path), standardError: .standardOutput)
        }

        var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        /// Waits until the server says it listens (at most 20 s).
        func waitUntilRunning() async throws {
            for _ in 0..<400 {
                if log.contains("Ferry is running at") { return }
                if !process.isRunning { throw RawHTTPClient.Failure(description: "ferry serve exited: \(log)") }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw RawHTTPClient.Failure(description: "ferry serve did not start: \(log)")
        }

        func terminate() { process.send(SIGTERM) }

        func kill() { process.send(SIGKILL) }

        func waitForExit() -> Int32 { process.wait() }
    }
}

func temporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

func matches(_ text: String, _ pattern: String) -> Bool {
    text.range(of: pattern, options: .regularExpression) != nil
}

@Suite("The ferry command", .serialized, .takesTurns)
struct CommandLineTests {
    @Test func adminCommandsPrintOnlyWhatScriptsNeed() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = "sqlite:" + directory.appendingPathComponent("admin.sqlite").path

        let app = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Demo", "--domain", "Go.Demo.test",
                                        "--team-id", "abcde12345", "--bundle-id", "com.demo.app", "--app-store-id", "id123456",
                                        "--android-package", "com.demo.android", "--android-sha256", String(repeating: "ab", count: 32)])
        #expect(app.status == 0, "\(app.stderr)")
        #expect(matches(app.stdout, #"^app_[A-Za-z0-9]{22}\n$"#), "\(app.stdout)")
        let appID = app.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        for (kind, env, prefix) in [("secret", "live", "fs_live_"), ("publishable", "test", "fk_test_")] {
            let key = try await FerryProcess.run(["key", "create", "--database", database, "--app", appID, "--kind", kind, "--env", env])
            #expect(key.status == 0, "\(key.stderr)")
            #expect(matches(key.stdout, "^\(prefix)[A-Za-z0-9]{32}\\n$"), "\(key.stdout)")
        }
        let keys = try await FerryProcess.run(["key", "list", "--database", database, "--app", appID])
        #expect(keys.stdout.split(separator: "\n").count == 2)
        let firstKeyID = String(keys.stdout.split(separator: "\t")[0])
        #expect(try await FerryProcess.run(["key", "revoke", "--database", database, firstKeyID]).status == 0)
        #expect(try await FerryProcess.run(["key", "revoke", "--database", database, firstKeyID]).status == 1)
        #expect(try await FerryProcess.run(["key", "list", "--database", database, "--app", appID]).stdout.contains("revoked"))

        let link = try await FerryProcess.run(["link", "create", "--database", database, "--destination", "https://demo.test/a", "--slug", "Promo",
                                         "--param", "screen=promo", "--utm-source", "cli"])
        #expect(link.status == 0, "\(link.stderr)")
        #expect(link.stdout == "https://go.demo.test/promo\n")
        let list = try await FerryProcess.run(["link", "list", "--database", database, "--json"])
        let decoded = try FerryJSON.makeDecoder().decode(LinkResponse.self, from: Data(list.stdout.utf8))
        #expect(decoded.params == ["screen": "promo"])
        #expect(decoded.utm.source == "cli")

        // Per-link routing and the app's URL patterns.
        let routed = try await FerryProcess.run([
            "link", "create", "--database", database, "--destination", "https://demo.test/r", "--slug", "routed", "--json",
            "--ios-fallback-url", "https://demo.test/ios", "--ipad-fallback-url", "https://demo.test/ipad", "--ipad-bundle-id", "test.demo.ipad",
            "--app-store-id", "id42", "--ios-min-version", "3.0", "--android-fallback-url", "https://demo.test/android",
            "--android-min-version-code", "77", "--other-fallback-url", "https://demo.test/desktop", "--skip-preview-page",
        ])
        #expect(routed.status == 0, "\(routed.stderr)")
        #expect(try FerryJSON.makeDecoder().decode(LinkResponse.self, from: Data(routed.stdout.utf8)).routing == LinkRouting(
            iosFallbackURL: "https://demo.test/ios", ipadFallbackURL: "https://demo.test/ipad", ipadBundleID: "test.demo.ipad", appStoreID: "42",
            iosMinimumVersion: "3.0", androidFallbackURL: "https://demo.test/android", androidMinimumVersionCode: 77,
            otherPlatformFallbackURL: "https://demo.test/desktop", skipPreviewPage: true
        ))
        let patterns = try await FerryProcess.run(["app", "update", "--database", database, appID, "--allow-url-pattern", #"^https://demo\.test/.*$"#])
        #expect(patterns.status == 0, "\(patterns.stderr)")

        // Bad input: a clear message on stderr, a non-zero status, nothing on stdout, nothing stored.
        let refusals: [([String], String)] = [
            (["link", "create", "--database", database, "--destination", "https://demo.test/", "--ios-fallback-url", "javascript:x"], "routing.iosFallbackURL"),
            (["app", "update", "--database", database, appID, "--allow-url-pattern", "(unclosed"], "not a valid regular expression"),
            (["link", "create", "--database", database, "--destination", "javascript:alert(1)"], "destination"),
            (["link", "create", "--database", database, "--destination", "https://demo.test/", "--slug", "promo"], "already taken"),
            (["app", "create", "--database", database, "--name", "Again", "--domain", "go.demo.test"], "already belongs"),
            (["app", "create", "--database", database, "--name", "Bad", "--domain", "not a host"], "domain"),
            (["key", "create", "--database", database, "--app", "app_missing", "--kind", "secret"], "no app"),
        ]
        for (arguments, message) in refusals {
            let result = try await FerryProcess.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
        // Changing an app keeps what is not named, and refuses what breaks a rule without changing anything.
        let updated = try await FerryProcess.run(["app", "update", appID, "--database", database, "--add-domain", "links.demo.test",
                                            "--attribution-window", "48", "--copy-to-open", "on", "--name", "Demo 2"])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(updated.stdout == "\(appID)\tDemo 2\tgo.demo.test,links.demo.test\n")
        let other = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Other", "--domain", "other.demo.test"])
        #expect(other.status == 0)
        for (arguments, message) in [
            (["--attribution-window", "500"], "attribution window"),
            (["--add-domain", "other.demo.test"], "already belongs"),
            (["--remove-domain", "go.demo.test", "--remove-domain", "links.demo.test"], "at least one link domain"),
        ] {
            let refused = try await FerryProcess.run(["app", "update", appID, "--database", database] + arguments)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains(message), "\(refused.stderr)")
        }
        let apps = try await FerryProcess.run(["app", "list", "--database", database])
        #expect(apps.stdout.contains("\(appID)\tDemo 2\tgo.demo.test,links.demo.test"))
        let store = try SQLiteStore(path: String(database.dropFirst("sqlite:".count)))
        let stored = try #require(try await store.app(id: appID))
        #expect(stored.attribution == AttributionSettings(window: 48 * 3600, copyToOpen: true))
        #expect(stored.ios.teamID == "ABCDE12345")

        let bad = try await FerryProcess.run(["key", "create", "--database", database, "--app", appID, "--kind", "admin"])
        #expect(bad.status != 0)
        let count = try await FerryProcess.run(["link", "list", "--database", database, "--app", appID])
        #expect(count.stdout.split(separator: "\n").count == 2, "promo and routed; nothing refused was stored")
    }

    /// `ferry key create --scope` limits a secret key; `key list` shows each key's scopes; a bad scope is refused by name.
    @Test func keysAreLimitedToScopesFromTheCommandLine() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = "sqlite:" + directory.appendingPathComponent("scopes.sqlite").path
        let appID = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Demo", "--domain", "go.demo.test"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let scoped = try await FerryProcess.run(["key", "create", "--database", database, "--app", appID, "--kind", "secret",
                                                 "--scope", "stats:read,links:read", "--scope", "webhooks:write"])
        #expect(scoped.status == 0, "\(scoped.stderr)")
        #expect(matches(scoped.stdout, #"^fs_live_[A-Za-z0-9]{32}\n$"#))
        #expect(try await FerryProcess.run(["key", "create", "--database", database, "--app", appID, "--kind", "secret"]).status == 0)
        #expect(try await FerryProcess.run(["key", "create", "--database", database, "--app", appID, "--kind", "publishable"]).status == 0)
        let listed = try await FerryProcess.run(["key", "list", "--database", database, "--app", appID]).stdout.split(separator: "\n")
        #expect(listed.map { $0.split(separator: "\t").last.map(String.init) } == ["links:read,stats:read,webhooks:write", "all", "-"])
        for (arguments, message) in [
            (["--kind", "secret", "--scope", "links:admin"], "'links:admin' is not a scope"),
            (["--kind", "secret", "--scope", ","], "name at least one scope"),
            (["--kind", "publishable", "--scope", "links:read"], "publishable keys have no scopes"),
        ] {
            let refused = try await FerryProcess.run(["key", "create", "--database", database, "--app", appID] + arguments)
            #expect(refused.status != 0 && refused.stdout.isEmpty)
            #expect(refused.stderr.contains(message), "\(refused.stderr)")
        }
        #expect(try await FerryProcess.run(["key", "list", "--database", database, "--app", appID]).stdout.split(separator: "\n").count == 3)
    }

    /// What the command line changes is in the audit log as the system user's, and `ferry audit list` reads it.
    @Test func theCommandLineRecordsItsChangesAndListsTheAuditLog() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = "sqlite:" + directory.appendingPathComponent("audit.sqlite").path
        let user = ["USER": "ops-anna"]
        let appID = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Demo", "--domain", "go.demo.test"], environment: user)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = try await FerryProcess.run(["key", "create", "--database", database, "--app", appID, "--kind", "secret", "--scope", "stats:read"],
                                             environment: user)
        #expect(key.status == 0)
        #expect(try await FerryProcess.run(["app", "update", appID, "--database", database, "--name", "Demo 2"], environment: user).status == 0)
        #expect(try await FerryProcess.run(["link", "create", "--database", database, "--destination", "https://demo.test/a", "--slug", "promo"],
                                           environment: user).status == 0)

        let listed = try await FerryProcess.run(["audit", "list", "--database", database])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines.map { $0[5] + " " + $0[6].prefix { $0 != ":" } } == ["created link", "updated app", "created key", "created app"])
        #expect(lines.allSatisfy { $0[1] == appID && $0[3] == "cli:ops-anna" && $0[4] == "-" })
        #expect(lines[1][7] == "name: Demo → Demo 2")
        #expect(lines[2][7].contains("scopes: ∅ → stats:read") && !listed.stdout.contains(key.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))

        let json = try await FerryProcess.run(["audit", "list", "--database", database, "--object-type", "app", "--json"])
        let events = try json.stdout.split(separator: "\n").map { try FerryJSON.makeDecoder().decode(AuditEventResponse.self, from: Data($0.utf8)) }
        #expect(events.map(\.action) == ["updated", "created"])
        let csv = try await FerryProcess.run(["audit", "list", "--database", database, "--csv", "--limit", "1"])
        let rows = try CSV.parse(csv.stdout)
        #expect(rows.first == AuditEvent.csvColumns)
        #expect(rows.dropFirst().allSatisfy { $0[7] == "created" && $0[8] == "link" }, "one event, the newest: the link")
        #expect(rows.contains { $0[10] == "slug" && $0[11] == "" && $0[12] == "promo" })
        #expect(rows.contains { $0[10] == "destination" && $0[12] == "https://demo.test/a" })
        for (arguments, message) in [(["--since", "yesterday"], "--since must be a date"), (["--limit", "0"], "--limit"),
                                     (["--json", "--csv"], "not both")] {
            let refused = try await FerryProcess.run(["audit", "list", "--database", database] + arguments)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
    }

    /// `ferry user` makes, lists, re-passwords and removes accounts; a weak password or an unknown app is refused.
    @Test func accountsAreManagedFromTheCommandLine() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = "sqlite:" + directory.appendingPathComponent("users.sqlite").path
        let environment = ["FERRY_PASSWORD_HASH_COST": "10", "USER": "ops"]
        let appID = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Demo", "--domain", "go.demo.test"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let made = try await FerryProcess.run(["user", "create", "--database", database, "--email", "Ana@Example.com", "--role", "owner"],
                                              environment: environment, input: "ferry tales under the bridge\n")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(matches(made.stdout, #"^usr_[A-Za-z0-9]{22}\n$"#))
        for (arguments, input, message) in [
            (["--email", "ben@example.com", "--role", "viewer"], "password1234\n", "commonest passwords"),
            (["--email", "ben@example.com", "--role", "viewer"], "short\n", "at least 12 characters"),
            (["--email", "ben@example.com", "--role", "viewer"], "", "standard input"),
            (["--email", "ana@example.com", "--role", "viewer"], "another fine passphrase\n", "has an account already"),
            (["--email", "ben@example.com", "--role", "viewer", "--app", "app_missing"], "another fine passphrase\n", "no app"),
            (["--email", "not an email", "--role", "viewer"], "another fine passphrase\n", "email address"),
        ] {
            let refused = try await FerryProcess.run(["user", "create", "--database", database] + arguments, environment: environment, input: input)
            #expect(refused.status != 0 && refused.stdout.isEmpty && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        let bad = try await FerryProcess.run(["user", "create", "--database", database, "--email", "ben@example.com", "--role", "root"], input: "x\n")
        #expect(bad.status != 0)
        #expect(try await FerryProcess.run(["user", "create", "--database", database, "--email", "ben@example.com", "--role", "viewer", "--app", appID],
                                           environment: environment, input: "ben reads the numbers\n").status == 0)
        let listed = try await FerryProcess.run(["user", "list", "--database", database])
        #expect(listed.stdout.split(separator: "\n").map { $0.split(separator: "\t").dropFirst().joined(separator: " ") }
                == ["ana@example.com \(appID)=owner", "ben@example.com \(appID)=viewer"])
        #expect(try await FerryProcess.run(["user", "set-password", "--database", database, "--email", "ben@example.com"],
                                           environment: environment, input: "a new one for ben\n").status == 0)
        #expect(try await FerryProcess.run(["user", "remove", "--database", database, "--email", "ben@example.com"], environment: environment).status == 0)
        let gone = try await FerryProcess.run(["user", "remove", "--database", database, "--email", "ben@example.com"], environment: environment)
        #expect(gone.status == 1 && gone.stderr.contains("no account"))
        let audit = try await FerryProcess.run(["audit", "list", "--database", database, "--object-type", "user"])
        #expect(audit.stdout.split(separator: "\n").map { $0.split(separator: "\t")[5] } == ["removed", "updated", "created", "created"])
        #expect(!audit.stdout.contains("passphrase") && !audit.stdout.contains("ben reads"))
    }

    /// Client links are turned on and off, listed and purged from the command line; nothing else is purged.
    @Test func clientLinksAreTurnedOnListedAndPurgedFromTheCommandLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ferry.sqlite").path
        let database = "sqlite:" + path
        let created = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Demo", "--domain", "go.demo.test",
                                                  "--fallback-url", "https://demo.test/"])
        #expect(created.status == 0, "\(created.stderr)")
        let appID = String(created.stdout.prefix { $0 != "\t" && $0 != "\n" })
        let on = try await FerryProcess.run(["app", "update", appID, "--database", database, "--client-links", "on"])
        #expect(on.status == 0, "\(on.stderr)")
        let store = try SQLiteStore(path: path)
        let app = try #require(try await store.app(id: appID))
        #expect(app.clientLinks)
        let admin = FerryAdmin(store: store)
        for post in ["1", "2"] {
            #expect(try await admin.createClientLink(CreateLinkRequest(destination: "https://demo.test/posts/\(post)"), app: app, environment: .live).created)
        }
        _ = try await admin.createLink(CreateLinkRequest(slug: "kept", destination: "https://demo.test/"), app: app, environment: .live)

        let listed = try await FerryProcess.run(["link", "list", "--database", database, "--created-in-app"])
        #expect(listed.stdout.split(separator: "\n").map { $0.split(separator: "\t").last ?? "" } == ["https://demo.test/posts/2", "https://demo.test/posts/1"])
        let refused = try await FerryProcess.run(["link", "purge", "--database", database])
        #expect(refused.status != 0 && refused.stderr.contains("--created-in-app"))
        let badDate = try await FerryProcess.run(["link", "purge", "--database", database, "--created-in-app", "--before", "last week"])
        #expect(badDate.status != 0 && badDate.stderr.contains("--before"))
        let none = try await FerryProcess.run(["link", "purge", "--database", database, "--created-in-app", "--before", "2020-01-01T00:00:00Z"])
        #expect(none.stdout == "0\n")
        let purged = try await FerryProcess.run(["link", "purge", "--database", database, "--created-in-app"])
        #expect(purged.status == 0 && purged.stdout == "2\n", "\(purged.stderr)")
        #expect(try await store.listLinks(appID: appID, environment: .live, limit: 10, after: nil).links.map(\.slug) == ["kept"])

        let off = try await FerryProcess.run(["app", "update", appID, "--database", database, "--client-links", "off"])
        #expect(off.status == 0)
        #expect(try await store.app(id: appID)?.clientLinks == false)
        let wrong = try await FerryProcess.run(["app", "update", appID, "--database", database, "--client-links", "maybe"])
        #expect(wrong.status != 0)
    }

    /// An app's least match confidence is set on create and update, kept when not named, refused out of range, and
    /// cleared back to the server's threshold with `default`.
    @Test func anAppsMinimumMatchConfidenceIsSetAndClearedFromTheCommandLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ferry.sqlite").path
        let database = "sqlite:" + path
        let refusedApp = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Bad", "--domain", "bad.demo.test",
                                                     "--min-confidence", "1.5"])
        #expect(refusedApp.status == 1 && refusedApp.stderr.contains("minConfidence must be from 0.4 to 1"), "\(refusedApp.stderr)")
        let created = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Demo", "--domain", "go.demo.test",
                                                  "--min-confidence", "0.7"])
        #expect(created.status == 0, "\(created.stderr)")
        let appID = String(created.stdout.prefix { $0 != "\n" })
        let store = try SQLiteStore(path: path)
        #expect(try await store.listApps().map(\.name) == ["Demo"], "the refused app was not stored")
        #expect(try await store.app(id: appID)?.attribution == AttributionSettings(window: 86400, minConfidence: 0.7))

        func update(_ arguments: [String]) async throws -> FerryProcess.Result {
            try await FerryProcess.run(["app", "update", appID, "--database", database] + arguments)
        }
        #expect(try await update(["--min-confidence", "0.5", "--attribution-window", "6"]).status == 0)
        #expect(try await store.app(id: appID)?.attribution == AttributionSettings(window: 6 * 3600, minConfidence: 0.5))
        #expect(try await update(["--name", "Renamed"]).status == 0)
        #expect(try await store.app(id: appID)?.attribution.minConfidence == 0.5, "kept when not named")
        for value in ["0.39", "1.01", "nan", "inf", "-1"] {
            let refused = try await update(["--min-confidence=\(value)"])
            #expect(refused.status == 1, "\(value)")
            #expect(refused.stderr.contains("minConfidence must be from 0.4 to 1"), "\(value): \(refused.stderr)")
        }
        let unreadable = try await update(["--min-confidence", "high"])
        #expect(unreadable.status != 0 && unreadable.stderr.contains("--min-confidence"), "\(unreadable.stderr)")
        #expect(try await store.app(id: appID)?.attribution.minConfidence == 0.5, "nothing refused was stored")
        #expect(try await update(["--min-confidence", "1"]).status == 0)
        #expect(try await store.app(id: appID)?.attribution.minConfidence == 1)
        #expect(try await update(["--min-confidence", "default"]).status == 0)
        #expect(try await store.app(id: appID)?.attribution == AttributionSettings(window: 6 * 3600))
    }

    @Test func serveBootstrapsOnceThenServesWhatTheCLIWrites() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("serve.sqlite").path
        let port = try RawHTTPClient.freePort()

        let server = try FerryProcess.Server(database: "sqlite:" + path, port: port, directory: directory)
        defer { server.terminate() }
        try await server.waitUntilRunning()
        let log = server.log
        #expect(log.contains("Ferry is running at http://127.0.0.1:\(port)"))
        let secret = try #require(log.split(separator: "\n").first { $0.contains("Secret key") }?.split(separator: " ").last.map(String.init))
        let publishable = try #require(log.split(separator: "\n").first { $0.contains("Publishable key") }?.split(separator: " ").last.map(String.init))
        #expect(APIKeyFormat(parsing: secret) == APIKeyFormat(kind: .secret, environment: .live))
        #expect(APIKeyFormat(parsing: publishable) == APIKeyFormat(kind: .publishable, environment: .live))

        // The secret key works over a real socket.
        let created = try RawHTTPClient.request(
            port: port, method: "POST", path: "/v1/links", host: "localhost:\(port)",
            headers: [("Authorization", "Bearer \(secret)"), ("Content-Type", "application/json")],
            body: #"{"slug": "live", "destination": "https://example.com/live"}"#)
        #expect(created.status == 201, "\(created.body)")
        #expect(created.body.contains("\"url\":\"http://localhost:\(port)/live\""))
        let visit = try RawHTTPClient.request(port: port, path: "/live?utm_source=test", host: "localhost:\(port)", headers: [("User-Agent", "Mozilla/5.0 (X11; Linux x86_64)")])
        #expect(visit.status == 302)
        #expect(visit.header("Location") == "https://example.com/live?utm_source=test")

        // A link written by the CLI, while the server runs, is served without a restart (even after a miss).
        #expect(try RawHTTPClient.request(port: port, path: "/fromcli", host: "localhost:\(port)").status == 404)
        let cli = try await FerryProcess.run(["link", "create", "--database", "sqlite:" + path, "--destination", "https://example.com/cli", "--slug", "fromcli"])
        #expect(cli.status == 0, "\(cli.stderr)")
        var served = false
        for _ in 0..<100 where !served {
            served = try RawHTTPClient.request(port: port, path: "/fromcli", host: "localhost:\(port)", headers: [("User-Agent", "Mozilla/5.0 (X11; Linux x86_64)")]).status == 302
            if !served { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(served)

        // SIGTERM: a graceful stop that writes every pending click.
        server.terminate()
        #expect(server.waitForExit() == 0)
        let store = try SQLiteStore(path: path)
        let live = try #require(try await store.link(domain: "localhost:\(port)", slug: "live"))
        #expect(try await store.clickCount(linkID: live.id) == 1)

        // A second start on the same database prints no keys.
        let again = try FerryProcess.Server(database: "sqlite:" + path, port: port, directory: directory)
        defer { again.terminate() }
        try await again.waitUntilRunning()
        #expect(!again.log.contains("Secret key"))
        again.terminate()
        _ = again.waitForExit()
    }

    @Test func everyLinkWhoseCreateReturned201SurvivesAKill() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("restart.sqlite").path
        let port = try RawHTTPClient.freePort()
        let server = try FerryProcess.Server(database: "sqlite:" + path, port: port, directory: directory)
        defer { server.terminate() }
        try await server.waitUntilRunning()
        let secret = try #require(server.log.split(separator: "\n").first { $0.contains("Secret key") }?.split(separator: " ").last.map(String.init))

        // Many concurrent creates over real sockets; remember which returned 201.
        let created = try await withThrowingTaskGroup(of: (String, Int).self) { group in
            for index in 0..<60 {
                group.addTask {
                    let response = try RawHTTPClient.request(
                        port: port, method: "POST", path: "/v1/links", host: "localhost:\(port)",
                        headers: [("Authorization", "Bearer \(secret)"), ("Content-Type", "application/json")],
                        body: #"{"slug": "r\#(index)", "destination": "https://example.com/\#(index)", "params": {"n": "\#(index)"}}"#)
                    return ("r\(index)", response.status)
                }
            }
            var ok: [String] = []
            for try await (slug, status) in group where status == 201 { ok.append(slug) }
            return ok
        }
        #expect(created.count == 60)
        server.kill()
        _ = server.waitForExit()

        let restarted = try FerryProcess.Server(database: "sqlite:" + path, port: port, directory: directory)
        defer { restarted.terminate() }
        try await restarted.waitUntilRunning()
        for slug in created {
            let index = slug.dropFirst()
            let response = try RawHTTPClient.request(port: port, path: "/\(slug)", host: "localhost:\(port)", headers: [("User-Agent", "Mozilla/5.0 (Windows NT 10.0)")])
            #expect(response.status == 302, "\(slug)")
            #expect(response.header("Location") == "https://example.com/\(index)")
        }
        let listed = try RawHTTPClient.request(port: port, path: "/v1/links?limit=100", host: "localhost:\(port)", headers: [("Authorization", "Bearer \(secret)")])
        let page = try FerryJSON.makeDecoder().decode(LinkListResponse.self, from: Data(listed.body.utf8))
        #expect(Set(page.data.map(\.slug)) == Set(created))
        #expect(page.data.allSatisfy { $0.params["n"] == String($0.slug.dropFirst()) })
        restarted.terminate()
        _ = restarted.waitForExit()
    }

    @Test func serveOnAPortPickedByTheSystemStillBootstraps() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try FerryProcess.Server(database: "sqlite:" + directory.appendingPathComponent("zero.sqlite").path, port: 0, directory: directory)
        defer { server.terminate() }
        try await server.waitUntilRunning()
        let line = try #require(server.log.split(separator: "\n").first { $0.contains("Ferry is running at") })
        let port = try #require(Int(line.split(separator: ":")[2].prefix { $0.isNumber }))
        #expect(port > 0)
        #expect(server.log.contains("Secret key"))
        // The default app's domains carry no port, so it answers on whatever port was picked.
        let health = try RawHTTPClient.request(port: port, path: "/.well-known/apple-app-site-association", host: "localhost:\(port)")
        #expect(health.status == 200)
        server.terminate()
        #expect(server.waitForExit() == 0)
    }
}
#endif
