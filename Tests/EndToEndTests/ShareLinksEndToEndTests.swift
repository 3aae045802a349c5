#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryKit
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Share links made by the real FerryKit, over URLSession, against the real server on a real port, with each store
/// Ferry ships: SQLite always, PostgreSQL when `FERRY_TEST_POSTGRES_URL` names a server (CI always does).
@Suite("Share links: FerryKit against the real server", .takesTurns)
struct ShareLinksEndToEndTests {
    enum Backend: String, CustomTestStringConvertible {
        case sqlite, postgres
        static var available: [Backend] {
            (ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"] ?? "").isEmpty ? [.sqlite] : [.sqlite, .postgres]
        }
        var testDescription: String { rawValue }

        func open(_ directory: URL) async throws -> any FerryDatabase {
            switch self {
            case .sqlite:
                return try SQLiteStore(path: directory.appendingPathComponent("ferry.sqlite").path)
            case .postgres:
                let base = try #require(ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"])
                let schema = "e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
                return try await PostgresStore(url: base + (base.contains("?") ? "&" : "?") + "search_path=" + schema)
            }
        }
    }

    /// An app on the loopback address that allows its own site and lets its installs make links, and its keys.
    static func withServer(_ backend: Backend, clientLinks: Bool = true,
                           _ body: @Sendable (URL, any FerryDatabase, App, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-share-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await backend.open(directory)
        let admin = FerryAdmin(store: store)
        var spec = FerryAdmin.AppSpec(name: "Example", domains: ["127.0.0.1"])
        spec.teamID = "ABCDE12345"
        spec.bundleIDs = ["com.example.app"]
        spec.urlScheme = "example"
        spec.allowedURLPatterns = [#"^https://example\.com/.*$"#]
        spec.clientLinks = clientLinks
        let app = try await admin.createApp(spec)
        let publishable = try await admin.createKey(appID: app.id, kind: .publishable, environment: .live).key
        var configuration = FerryConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.clickFlushInterval = .milliseconds(20)
        configuration.ipHashKey = "end-to-end-ip-hash-key-0123"
        configuration.logLevel = .error
        configuration.edgeLookupTimeout = .seconds(15)
        let application = try await buildApplication(configuration, store: store)
        do {
            try await application.test(.live) { client in
                let port = try #require(client.port)
                try await body(URL(string: "http://127.0.0.1:\(port)")!, store, app, publishable)
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    static func ferry(_ server: URL, key: String) throws -> Ferry {
        var options = FerryOptions(serverURL: server)
        options.storage = InMemoryStorage()
        options.deviceSignalsProvider = ClickingIPhone()
        options.logLevel = .error
        options.eventFlushDelay = 3600
        // A busy machine must not make a link that resolves look like one the server could not answer in time.
        options.linkResolutionTimeout = 30
        return try Ferry(apiKey: key, options: options)
    }

    @Test(arguments: Backend.available)
    func theAppMakesAShareLinkThatOpensItOnAnotherPhone(backend: Backend) async throws {
        try await Self.withServer(backend) { server, store, app, publishable in
            let ferry = try Self.ferry(server, key: publishable)
            var builder = LinkBuilder(destination: URL(string: "https://example.com/recipes/42")!)
            builder.iosURL = URL(string: "example://recipes/42")
            builder.params = ["recipeID": "42"]
            builder.referrer = "user-7"
            builder.utm = UTMParameters(source: "app", medium: "share")
            builder.social = .init(title: "Lemon tart", description: "Ready in 40 minutes", imageURL: URL(string: "https://example.com/tart.jpg"))
            builder.ios.fallbackURL = URL(string: "https://example.com/get-the-app")
            builder.skipPreviewPage = true
            let created = try await ferry.createLink(for: builder)
            #expect(created.url.absoluteString == "http://127.0.0.1/\(created.slug)")
            // Tapping share twice, or a retry, is the same link.
            #expect(try await ferry.shortLink(for: builder) == created.url)
            let stored = try #require(try await store.link(id: created.id, appID: app.id))
            #expect(stored.createdInApp && stored.referrer == "user-7" && stored.params == ["recipeID": "42"])
            #expect(stored.routing.iosFallbackURL == "https://example.com/get-the-app" && stored.routing.skipPreviewPage == true)
            #expect(try await store.listLinks(appID: app.id, environment: .live, limit: 10, after: nil).links.count == 1)

            // The friend's phone, with the app, opens it as a Universal Link and lands on the recipe.
            let friend = try Self.ferry(server, key: publishable)
            let opened = try #require(try await friend.handleDeepLink(created.url))
            #expect(opened.linkID == created.id && opened.params["recipeID"] == "42" && opened.referrer == "user-7")
            #expect(opened.routingURL.absoluteString == "example://recipes/42")

            // The completion twin answers on the main actor.
            var other = builder
            other.referrer = "user-8"
            let url: URL = try await withCheckedThrowingContinuation { continuation in
                ferry.shortLink(for: other) { result in
                    MainActor.assertIsolated()
                    continuation.resume(with: result)
                }
            }
            #expect(url != created.url)
        }
    }

    @Test(arguments: Backend.available)
    func whatTheServerRefusesComesBackSayingWhat(backend: Backend) async throws {
        try await Self.withServer(backend) { server, store, app, publishable in
            let ferry = try Self.ferry(server, key: publishable)
            do {
                _ = try await ferry.shortLink(for: LinkBuilder(destination: URL(string: "https://evil.example.net/phish")!))
                Issue.record("a link outside the allowed patterns was made")
            } catch let error as FerryError {
                #expect(error.code == .badRequest && error.httpStatus == 400)
                #expect(error.serverCode == .urlNotAllowed && error.field == "destination")
                #expect(error.message.contains("allowed URL patterns") && error.message.contains("--allow-url-pattern"))
            }
            var tooMany = LinkBuilder(destination: URL(string: "https://example.com/")!)
            tooMany.iosURL = URL(string: "otherapp://steal")
            do {
                _ = try await ferry.shortLink(for: tooMany)
                Issue.record("a deep link into another app was made")
            } catch let error as FerryError {
                #expect(error.serverCode == .urlNotAllowed && error.field == "iosURL")
            }
            #expect(try await store.listLinks(appID: app.id, environment: .live, limit: 10, after: nil).links.isEmpty)
        }
        try await Self.withServer(backend, clientLinks: false) { server, store, app, publishable in
            let ferry = try Self.ferry(server, key: publishable)
            do {
                _ = try await ferry.shortLink(for: LinkBuilder(destination: URL(string: "https://example.com/")!))
                Issue.record("a link was made without client links")
            } catch let error as FerryError {
                #expect(error.code == .forbidden && error.serverCode == .clientLinksOff)
                #expect(error.message.contains("--client-links on"))
            }
            #expect(try await store.listLinks(appID: app.id, environment: .live, limit: 10, after: nil).links.isEmpty)
        }
    }
}
#endif
