#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Two `ferry serve` nodes on one PostgreSQL database, as behind a load balancer.
@Suite("Several nodes on one PostgreSQL", .takesTurns)
struct MultiNodeTests {
    static let postgresURL = ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static func schemaURL() throws -> String {
        let base = try #require(postgresURL)
        return base + (base.contains("?") ? "&" : "?") + "search_path=n_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// How long a change may take to reach another node before a test fails: far above the second it takes on an idle
    /// machine (a test run on two busy cores can stall a task for seconds) and far below the hour of the polling that
    /// the notice tests turn all but off.
    static let deadline = 20.0

    /// What node B answers for a link, polled until `accept` holds or `deadline` seconds pass; returns the seconds it took.
    func until(_ client: some TestClientProtocol, slug: String, deadline: Double, _ accept: (TestResponse) -> Bool) async throws -> Double? {
        let start = ContinuousClock.now
        while true {
            let response = try await client.execute(uri: "/\(slug)", method: .get, headers: headers(userAgent: UA.desktop))
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if accept(response) { return seconds }
            if seconds > deadline { return nil }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    @Test func nodesStartingTogetherOnAnEmptyDatabaseSetItUpOnce() async throws {
        var pairs: [(any FerryDatabase, any FerryDatabase)] = []
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-nodes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ferry.sqlite").path
        pairs.append((try SQLiteStore(path: path), try SQLiteStore(path: path)))
        if Self.postgresURL != nil {
            let url = try Self.schemaURL()
            pairs.append((try await PostgresStore(url: url), try await PostgresStore(url: url)))
        }
        for (first, second) in pairs {
            // Each node on its own port: the default app's domains differ, so only the mark can keep them to one app.
            async let a = FerryAdmin(store: first).bootstrapIfEmpty(domains: ["localhost:8080"])
            async let b = FerryAdmin(store: second).bootstrapIfEmpty(domains: ["localhost:8081"])
            let results = try await [a, b]
            #expect(results.compactMap { $0 }.count == 1)
            #expect(try await first.listApps().count == 1)
            #expect(try await FerryAdmin(store: second).bootstrapIfEmpty(domains: ["localhost:8082"]) == nil)
            try await first.close()
            try await second.close()
        }
    }

    @Test(.enabled(if: postgresURL != nil, "needs FERRY_TEST_POSTGRES_URL"))
    func aLinkChangedThroughOneNodeIsServedByEveryOther() async throws {
        let url = try Self.schemaURL()
        let storeA = try await PostgresStore(url: url), storeB = try await PostgresStore(url: url)
        let admin = FerryAdmin(store: storeA)
        let app = try await admin.createApp(.init(name: "Example", domains: ["go.example.com"]))
        let secret = try await admin.createKey(appID: app.id, kind: .secret, environment: .live).key
        var configuration = Fixture.configuration
        configuration.cacheRefreshInterval = .seconds(1)  // the shipped default: what "within a second" rests on
        let nodeA = try await buildApplication(configuration, store: storeA)
        let nodeB = try await buildApplication(configuration, store: storeB)
        try await nodeA.testLive { a in
            try await nodeB.testLive { b in
                // B has already answered "no such link" (and cached that answer) before A creates it.
                #expect(try await b.execute(uri: "/promo", method: .get, headers: headers(userAgent: UA.desktop)).status == .notFound)
                let created = try await a.execute(uri: "/v1/links", method: .post, headers: headers(key: secret, json: true),
                                                  body: jsonBody(#"{"slug": "promo", "destination": "https://example.com/one"}"#))
                #expect(created.status == .created)
                let id = try created.decode(LinkResponse.self).id
                // The notice (or, failing it, the poll each second) makes this about a second on an idle machine; the bound
                // is loose because a fully loaded test run can stall any task for seconds. That notices alone carry a
                // change is checked below, with polling all but off.
                let seen = try await until(b, slug: "promo", deadline: Self.deadline) { $0.headers[.location] == "https://example.com/one" }
                #expect(seen != nil, "created through A, never served by B")

                let changed = try await a.execute(uri: "/v1/links/\(id)", method: .patch, headers: headers(key: secret, json: true),
                                                  body: jsonBody(#"{"destination": "https://example.com/two"}"#))
                #expect(changed.status == .ok)
                let updated = try await until(b, slug: "promo", deadline: Self.deadline) { $0.headers[.location] == "https://example.com/two" }
                #expect(updated != nil, "changed through A, B still serves the old destination")

                #expect(try await a.execute(uri: "/v1/links/\(id)", method: .delete, headers: headers(key: secret)).status == .noContent)
                let gone = try await until(b, slug: "promo", deadline: Self.deadline) { $0.status == .notFound }
                #expect(gone != nil, "deleted through A, still served by B")

                // Clicks made on either node land in the one database.
                _ = try await admin.createLink(CreateLinkRequest(slug: "both", destination: "https://example.com/both"), app: app, environment: .live)
                _ = try await until(a, slug: "both", deadline: Self.deadline) { $0.status == .found }
                _ = try await until(b, slug: "both", deadline: Self.deadline) { $0.status == .found }
                let link = try #require(try await storeB.link(domain: "go.example.com", slug: "both"))
                var clicks = 0
                let start = ContinuousClock.now
                while clicks < 2, ContinuousClock.now - start < .seconds(Self.deadline) {
                    clicks = try await storeA.clickCount(linkID: link.id)
                    if clicks < 2 { try await Task.sleep(nanoseconds: 50_000_000) }
                }
                #expect(clicks >= 2)
            }
        }
        try await storeA.close()
        try await storeB.close()
    }

    @Test(.enabled(if: postgresURL != nil, "needs FERRY_TEST_POSTGRES_URL"))
    func noticesCarryChangesAtOnceAndALostListenerFlushesOnReconnect() async throws {
        let url = try Self.schemaURL()
        let storeA = try await PostgresStore(url: url), storeB = try await PostgresStore(url: url)
        let admin = FerryAdmin(store: storeA)
        let app = try await admin.createApp(.init(name: "Example", domains: ["go.example.com"]))
        let created = try await admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/one"), app: app, environment: .live)
        var configuration = Fixture.configuration
        configuration.cacheRefreshInterval = .seconds(3600)  // no polling to speak of: only the notices can tell B
        let nodeB = try await buildApplication(configuration, store: storeB)
        try await nodeB.testLive { b in
            var link = created
            _ = try await until(b, slug: "promo", deadline: Self.deadline) { $0.headers[.location] == "https://example.com/one" }
            link.destination = "https://example.com/two"
            #expect(try await storeA.updateLink(link))
            // B polls once an hour: seeing the change within the deadline can only come from the notice.
            let seen = try await until(b, slug: "promo", deadline: Self.deadline) { $0.headers[.location] == "https://example.com/two" }
            #expect(seen != nil, "changed on the database, never served by B")

            // Cut B's listening connection, change the link while B is not listening: the notice is lost, and B must
            // catch up from the log of changes when it listens again (it polls only once an hour here).
            let admin = try await PostgresStore(url: url)
            let cut = try await admin.terminateListeners()
            #expect(cut >= 1)
            try await Task.sleep(nanoseconds: 200_000_000)  // the backend is gone (B listens again only a second after losing it)
            link.destination = "https://example.com/three"
            #expect(try await storeA.updateLink(link))
            let recovered = try await until(b, slug: "promo", deadline: Self.deadline) { $0.headers[.location] == "https://example.com/three" }
            #expect(recovered != nil, "B never forgot the link it cached while its listener was gone")
            try await admin.close()
        }
        try await storeA.close()
        try await storeB.close()
    }
}

/// A server whose PostgreSQL goes away and comes back.
@Suite("A database outage", .takesTurns)
struct DatabaseOutageTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/test-postgres.sh").standardized.path

    /// Runs the test database script for a cluster of the test's own; returns what it printed.
    ///
    /// Spawned and waited for directly: the server the script leaves running must not keep the test waiting on a pipe,
    /// and the script is reaped here rather than by Foundation's process monitor.
    static func cluster(_ action: String, directory: String, port: Int) async throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-pg-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var environment = ProcessInfo.processInfo.environment
        environment["FERRY_TEST_POSTGRES_DIR"] = directory
        environment["FERRY_TEST_POSTGRES_PORT"] = "\(port)"
        let variables = environment
        let status = try await onItsOwnThread { () -> Int32 in
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            // The server the script starts lives on: it must not inherit other tests' pipes (a test reading a child's
            // output to its end would wait for this server to stop).
            Self.closeDescriptors(from: 3, in: &actions)
            let words: [String] = ["/bin/bash", script, action]
            let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            let variables: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (arguments + variables).forEach { free($0) } }
            var pid = pid_t()
            guard posix_spawn(&pid, "/bin/bash", &actions, nil, arguments, variables) == 0 else { throw ConfigurationError("cannot run bash") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return status
        }
        guard status == 0 else { throw ConfigurationError("test-postgres.sh \(action) failed (\(status))") }
        return (try String(contentsOfFile: outputPath, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Adds "close every descriptor from `lowest` up" to spawn actions (glibc's `posix_spawn_file_actions_addclosefrom_np`,
    /// looked up at run time: Swift's Glibc module does not declare it).
    static func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
    }

    @Test(.enabled(if: MultiNodeTests.postgresURL != nil, "needs FERRY_TEST_POSTGRES_URL (and PostgreSQL's binaries)"), .timeLimit(.minutes(5)))
    func theEdgeRedirectsFromItsCacheKeepsClicksAndRecoversWhenTheDatabaseReturns() async throws {
        let directory = "/tmp/ferry-outage-\(UUID().uuidString.prefix(8))"
        // Below Linux's ephemeral ports (32768 and up), which the tests' many short connections keep busy.
        let port = Int.random(in: 21_000..<29_000)
        let url = try await Self.cluster("setup", directory: directory, port: port)
        do {
            try await outage(url: url, directory: directory, port: port)
        } catch {
            _ = try? await Self.cluster("stop", directory: directory, port: port)
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        _ = try? await Self.cluster("stop", directory: directory, port: port)
        try? FileManager.default.removeItem(atPath: directory)
    }

    func outage(url: String, directory: String, port: Int) async throws {
        // A statement caught by the stop may never be answered (see `PostgresStore.guarded`): a short deadline lets the
        // server's shutdown at the end wait seconds for it rather than the default minute.
        let store = try await PostgresStore(url: url, operationDeadline: .seconds(5))
        let admin = FerryAdmin(store: store)
        let app = try await admin.createApp(.init(name: "Example", domains: ["go.example.com"]))
        let link = try await admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: app, environment: .live)
        _ = try await admin.createLink(CreateLinkRequest(slug: "later", destination: "https://example.com/later"), app: app, environment: .live)
        let secret = try await admin.createKey(appID: app.id, kind: .secret, environment: .live).key
        let server = try await buildApplication(Fixture.configuration, store: store)
        try await server.testLive { client in
            func click() async throws -> TestResponse {
                try await client.execute(uri: "/promo", method: .get, headers: headers(userAgent: UA.desktop))
            }
            #expect(try await click().status == .found)  // now in the cache
            #expect(try await client.execute(uri: "/readyz", method: .get, headers: headers()).status == .ok)

            _ = try await Self.cluster("stop", directory: directory, port: port)
            for _ in 0..<5 {
                let response = try await click()
                #expect(response.status == .found, "a cached link is still served while the database is away")
                #expect(response.headers[.location] == "https://example.com/promo")
            }
            #expect(try await client.execute(uri: "/readyz", method: .get, headers: headers()).status == .serviceUnavailable)
            // A link the node never looked up cannot be served: a 503 page that says to come back, not a hang.
            let uncached = try await client.execute(uri: "/later", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(uncached.status == .serviceUnavailable)
            #expect(uncached.headers[.retryAfter] == "5")
            #expect(String(buffer: uncached.body).contains("Try again in a moment"))
            // The API says the same in JSON.
            let listing = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: secret))
            #expect(listing.status == .serviceUnavailable)
            #expect(String(buffer: listing.body).contains("database_unavailable"))
            #expect(listing.headers[.retryAfter] == "5")
            // And the LinkTrace-style routes in their own envelope.
            let referral = try await client.execute(uri: "/api/v1/referral-links", method: .post, headers: headers(key: secret, json: true),
                                                    body: jsonBody(#"{"referrerIdentifier": "u1"}"#))
            #expect(referral.status == .serviceUnavailable)
            let envelope = try JSONSerialization.jsonObject(with: Data(buffer: referral.body)) as? [String: Any]
            #expect(envelope?["success"] as? Bool == false)
            #expect((envelope?["error"] as? [String: Any])?["code"] as? String == "database_unavailable")

            _ = try await Self.cluster("start", directory: directory, port: port)
            // Without a restart: ready again, and the clicks held in memory reach the database.
            var ready = false
            for _ in 0..<150 where !ready {
                ready = try await client.execute(uri: "/readyz", method: .get, headers: headers()).status == .ok
                if !ready { try await Task.sleep(nanoseconds: 200_000_000) }
            }
            #expect(ready)
            var clicks = 0
            for _ in 0..<150 where clicks < 6 {
                clicks = (try? await store.clickCount(linkID: link.id)) ?? 0
                if clicks < 6 { try await Task.sleep(nanoseconds: 200_000_000) }
            }
            #expect(clicks == 6, "every click made during the outage was written once the database came back")
            #expect(try await click().status == .found)
            let later = try await client.execute(uri: "/later", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(later.status == .found, "\(String(buffer: later.body))")
        }
        try await store.close()
    }
}
#endif
