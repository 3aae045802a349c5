#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
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

/// The iPhone that clicks and then installs, as UIKit would describe it (UIKit does not exist here).
struct ClickingIPhone: DeviceSignalsProvider {
    var idfv = UUID().uuidString
    func signals() async -> DeviceSignals {
        DeviceSignals(platform: "ios", osVersion: "18.1", model: "iPhone16,1", screenWidth: 393, screenHeight: 852, screenScale: 3,
                      timeZone: "America/New_York", timeZoneOffsetSeconds: -18000, languages: ["en-US"])
    }
    func installIdentifier() async -> String? { idfv }
}

/// Counts the requests the real URLSession transport carries.
final class CountingTransport: FerryTransport, @unchecked Sendable {
    // @unchecked: `paths` is only touched under `lock`.
    private let inner = URLSessionTransport(timeout: 10)
    private let lock = NSLock()
    private var paths: [String] = []
    var sent: [String] { lock.withLock { paths } }
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        lock.withLock { paths.append(request.url?.path ?? "") }
        return try await inner.send(request)
    }
}

@Suite("FerryKit against the real server", .takesTurns)
struct FerryKitEndToEndTests {
    /// A server on a random port with one app whose link domain is the loopback address, its keys, and a link
    /// created through the HTTP API.
    struct Server {
        let directory: URL
        let store: SQLiteStore
        let secret: String
        let publishable: String

        static func make() async throws -> Server {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let store = try SQLiteStore(path: directory.appendingPathComponent("ferry.sqlite").path)
            let admin = FerryAdmin(store: store)
            var spec = FerryAdmin.AppSpec(name: "Example", domains: ["127.0.0.1", "localhost"])
            spec.teamID = "ABCDE12345"
            spec.bundleIDs = ["com.example.app"]
            spec.appStoreID = "1234567890"
            spec.urlScheme = "example"
            let app = try await admin.createApp(spec)
            return Server(
                directory: directory, store: store,
                secret: try await admin.createKey(appID: app.id, kind: .secret, environment: .live).key,
                publishable: try await admin.createKey(appID: app.id, kind: .publishable, environment: .live).key)
        }

        func run(_ body: @Sendable (URL) async throws -> Void) async throws {
            var configuration = FerryConfiguration()
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.clickFlushInterval = .milliseconds(20)
            configuration.cacheRefreshInterval = .milliseconds(100)
            configuration.ipHashKey = "end-to-end-ip-hash-key-0123"
            configuration.logLevel = .error
            // The whole suite runs at once on two cores: a lookup can wait seconds for the processor, which is not the
            // database being away.
            configuration.edgeLookupTimeout = .seconds(15)
            configuration.passwordHashCost = 10
            let application = try await buildApplication(configuration, store: store)
            try await application.test(.live) { client in
                let port = try #require(client.port)
                try await body(URL(string: "http://127.0.0.1:\(port)")!)
            }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static let iPhoneSafari = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
    /// What the interstitial's script reports for that iPhone's Safari.
    static let browserReport = #"{"platform": "iPhone", "screenWidth": 393, "screenHeight": 852, "screenScale": 3, "timeZone": "America/New_York", "timeZoneOffsetSeconds": -18000, "languages": ["en-US", "en"]}"#

    static func http(_ method: String, _ url: URL, headers: [String: String] = [:], body: String? = nil) async throws -> (Int, Data) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Creates a link through the REST API with the secret key.
    static func createLink(_ server: URL, secret: String, slug: String) async throws -> LinkResponse {
        let body = #"{"slug": "\#(slug)", "destination": "https://example.com/sale", "iosURL": "example://product/42", "params": {"productID": "42", "color": "blue"}, "utm": {"source": "newsletter", "campaign": "spring"}, "campaign": "spring-sale"}"#
        let (status, data) = try await http("POST", server.appendingPathComponent("v1/links"),
                                            headers: ["Authorization": "Bearer \(secret)", "Content-Type": "application/json"], body: body)
        #expect(status == 201)
        return try FerryJSON.makeDecoder().decode(LinkResponse.self, from: data)
    }

    /// Clicks the short link as iPhone Safari: the interstitial page, then its script's beacon with the browser's signals
    /// (and the id the page keeps in the browser's storage, when given).
    static func clickAsIPhone(_ server: URL, slug: String, browser: String? = nil) async throws -> String {
        let (status, page) = try await http("GET", server.appendingPathComponent(slug), headers: ["User-Agent": iPhoneSafari])
        #expect(status == 200)
        let html = String(decoding: page, as: UTF8.self)
        let start = try #require(html.range(of: "data-click=\"")).upperBound
        let clickID = String(html[start...].prefix(26))
        #expect(clickID.hasPrefix("clk_"))
        let (beacon, _) = try await http("POST", server.appendingPathComponent(".ferry/signals"),
                                         headers: ["Content-Type": "text/plain;charset=UTF-8", "User-Agent": iPhoneSafari],
                                         body: #"{"click": "\#(clickID)", "signals": \#(browserReport)\#(browser.map { #", "browser": "\#($0)""# } ?? "")}"#)
        #expect(beacon == 204)
        return clickID
    }

    static func options(_ server: URL, storage: any FerryStorage, transport: (any FerryTransport)? = nil, device: ClickingIPhone) -> FerryOptions {
        var options = FerryOptions(serverURL: server)
        options.storage = storage
        options.transport = transport
        options.deviceSignalsProvider = device
        options.logLevel = .error
        options.eventFlushDelay = 3600
        // A loaded test machine must not turn a slow answer into a link read from its URL.
        options.linkResolutionTimeout = 30
        return options
    }

    @Test func aLongLinkOpenedAsAUniversalLinkResolvesToItsDeepLink() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        let admin = FerryAdmin(store: server.store)
        let app = try #require(try await admin.listApps().first)
        _ = try await admin.updateApp(id: app.id) { $0.allowedURLPatterns = [#"^https://example\.com/.*$"#] }
        try await server.run { base in
            let ferry = try Ferry(apiKey: server.publishable, options: Self.options(base, storage: InMemoryStorage(), device: ClickingIPhone()))
            _ = try await ferry.validateKey()
            let long = URL(string: "\(base.absoluteString)/?link=https%3A%2F%2Fexample.com%2Fitem%3Fid%3D7&ibi=com.example.app&isi=1234567890"
                           + "&utm_source=mail&utm_campaign=spring&gclid=g1&imv=2.1&ref=friend")!
            #expect(ferry.canHandle(long))
            let opened = try #require(try await ferry.handleDeepLink(long))
            #expect(opened.source == .universalLink && opened.linkID?.hasPrefix("lnk_") == true && !opened.isDeferred)
            #expect(opened.routingURL.absoluteString == "https://example.com/item?id=7")
            #expect(opened.params == ["gclid": "g1", "ref": "friend"])
            #expect(opened.utm.source == "mail" && opened.utm.campaign == "spring")
            #expect(opened.minimumAppVersion == "2.1")
            #expect(opened.url == long)
            // The open was recorded against the stored long link.
            let linkID = try #require(opened.linkID)
            let stored = try #require(try await server.store.link(id: linkID, appID: app.id))
            #expect(stored.longLink != nil && stored.destination == "https://example.com/item?id=7")
            // A long link the app does not allow is not followed.
            #expect(try await ferry.handleDeepLink(URL(string: "\(base.absoluteString)/?link=https%3A%2F%2Fevil.example.net%2F")!) == nil)
        }
    }

    @Test func aClickBeforeTheInstallArrivesOnTheFirstLaunchAndOnlyThen() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            let created = try await Self.createLink(base, secret: server.secret, slug: "spring-sale")
            let clickID = try await Self.clickAsIPhone(base, slug: "spring-sale")
            for _ in 0..<250 where try await server.store.click(id: clickID) == nil { try await Task.sleep(nanoseconds: 20_000_000) }

            // A fresh install of the app: a new storage, the real URLSession transport.
            let storage = InMemoryStorage(), device = ClickingIPhone()
            let firstTransport = CountingTransport()
            let ferry = try Ferry(apiKey: server.publishable, options: Self.options(base, storage: storage, transport: firstTransport, device: device))
            #expect(ferry.isFirstLaunch)
            let link = try #require(try await ferry.checkDeferredDeepLink())
            #expect(link.isDeferred && link.source == .deferred)
            #expect(link.linkID == created.id && link.slug == "spring-sale")
            #expect(link.matchType == .probabilistic)
            #expect((link.confidence ?? 0) > 0.5 && (link.confidence ?? 2) <= 1)
            #expect(link.params == ["productID": "42", "color": "blue"])
            #expect(link.iosURL?.absoluteString == "example://product/42")
            #expect(link.utm.source == "newsletter" && link.campaign == "spring-sale")
            #expect(firstTransport.sent.filter { $0 == FerryRoutes.attributionMatch }.count == 1)

            // The key check ran against the server and taught the SDK the app's domains and scheme.
            let settings = try await ferry.validateKey()
            #expect(settings.domains.contains("127.0.0.1") && settings.urlScheme == "example")

            // The link opens the app as a Universal Link.
            let universal = URL(string: "\(base.absoluteString)/spring-sale?utm_source=push&coupon=SAVE10")!
            let opened = try #require(try await ferry.handleDeepLink(universal))
            #expect(opened.linkID == created.id && !opened.isDeferred && opened.source == .universalLink)
            #expect(opened.params["coupon"] == "SAVE10" && opened.utm.source == "push")
            #expect(try await ferry.handleDeepLink(URL(string: "\(base.absoluteString)/no-such-link")!) == nil)

            // The user signs up: the server binds the user to the link that brought them.
            let user = try await ferry.identify(userID: "user-42")
            #expect(user.attributed && user.link?.linkID == created.id && user.boundToThisInstall)
            // The same user signing in on a second phone: that install is told nothing of the first one's link.
            let secondPhone = try Ferry(apiKey: server.publishable,
                                        options: Self.options(base, storage: InMemoryStorage(), transport: CountingTransport(), device: ClickingIPhone()))
            let elsewhere = try await secondPhone.identify(userID: "user-42")
            #expect(!elsewhere.attributed && elsewhere.link == nil && !elsewhere.boundToThisInstall)
            let firstID = await ferry.installID(), secondID = await secondPhone.installID(), again = await ferry.installID()
            #expect(firstID != secondID && firstID == again)

            // Install and open events reach the server.
            await ferry.flushEvents()
            #expect(await ferry.pendingEventCount == 0)

            // The second launch answers from storage: no match, no key check on the network.
            let secondTransport = CountingTransport()
            let relaunch = try Ferry(apiKey: server.publishable, options: Self.options(base, storage: storage, transport: secondTransport, device: device))
            #expect(!relaunch.isFirstLaunch)
            #expect(try await relaunch.checkDeferredDeepLink() == link)
            #expect(try await relaunch.identify(userID: "user-42") == user)
            #expect(secondTransport.sent.isEmpty, "the second launch made \(secondTransport.sent)")
        }
    }

    /// Universal Links with a slug of several segments, and on a domain whose links are under a path prefix, which
    /// FerryKit does not know: the SDK sends the path, the server reads it with the domain's prefix.
    @Test func linksOfSeveralSegmentsAndUnderAPrefixOpenTheApp() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        let apps = try await server.store.listApps()
        _ = try await FerryAdmin(store: server.store).updateApp(id: try #require(apps.first).id) { $0.pathPrefixes["localhost"] = "/links" }
        try await server.run { base in
            let port = try #require(base.port)
            let plain = try await Self.createLink(base, secret: server.secret, slug: "promo/spring-26")
            #expect(plain.url == "http://127.0.0.1/promo/spring-26")
            let body = #"{"domain": "localhost", "slug": "Promo/X", "destination": "https://example.com/x", "params": {"productID": "7"}}"#
            let (status, data) = try await Self.http("POST", base.appendingPathComponent("v1/links"),
                                                     headers: ["Authorization": "Bearer \(server.secret)", "Content-Type": "application/json"], body: body)
            #expect(status == 201)
            let prefixed = try FerryJSON.makeDecoder().decode(LinkResponse.self, from: data)
            #expect(prefixed.url == "http://localhost/links/promo/x")

            let transport = CountingTransport()
            let ferry = try Ferry(apiKey: server.publishable,
                                  options: Self.options(base, storage: InMemoryStorage(), transport: transport, device: ClickingIPhone()))
            _ = try await ferry.validateKey()
            let opened = try #require(try await ferry.handleDeepLink(URL(string: "http://127.0.0.1:\(port)/Promo/Spring-26?coupon=A")!))
            #expect(opened.linkID == plain.id && opened.slug == "promo/spring-26" && opened.params["coupon"] == "A")
            let formed = try #require(try await ferry.handleDeepLink(URL(string: "http://127.0.0.1:\(port)/link/promo/spring-26")!))
            #expect(formed.linkID == plain.id)
            let underPrefix = try #require(try await ferry.handleDeepLink(URL(string: "http://localhost:\(port)/links/promo/x")!))
            #expect(underPrefix.linkID == prefixed.id && underPrefix.slug == "promo/x" && underPrefix.params["productID"] == "7")
            #expect(try await ferry.handleDeepLink(URL(string: "http://localhost:\(port)/links/promo/nothing")!) == nil)
            // Nine segments is no link: one of the app's own Universal Links on the domain, read on the device.
            let nine = try #require(try await ferry.handleDeepLink(URL(string: "http://127.0.0.1:\(port)/promo/spring-26/a/b/c/d/e/f/g")!))
            #expect(nine.isResolved && nine.linkID == nil && nine.slug == nil && nine.source == .universalLink)
            #expect(transport.sent.contains("/v1/links/resolve/promo/spring-26"))
            #expect(transport.sent.contains("/v1/links/resolve/links/promo/x"))
            #expect(!transport.sent.contains { $0.hasPrefix("/v1/links/resolve/promo/spring-26/a") }, "nine segments is no link: no request")
        }
    }

    @Test func anInstallNobodyClickedForGetsNoLinkAndAsksOnce() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            _ = try await Self.createLink(base, secret: server.secret, slug: "quiet")
            let storage = InMemoryStorage()
            let transport = CountingTransport()
            let ferry = try Ferry(apiKey: server.publishable, options: Self.options(base, storage: storage, transport: transport, device: ClickingIPhone()))
            #expect(try await ferry.checkDeferredDeepLink() == nil)
            #expect(try await ferry.checkDeferredDeepLink() == nil)
            #expect(transport.sent.filter { $0 == FerryRoutes.attributionMatch }.count == 1)
            let user = try await ferry.identify(userID: "organic-user")
            #expect(!user.attributed && user.link == nil)
        }
    }

    @Test func theServerRefusesWhatTheSDKMustNotDo() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            // The SDK refuses the secret key before any request.
            #expect { try Ferry(apiKey: server.secret, options: FerryOptions(serverURL: base)) } throws: { ($0 as? FerryError)?.code == .secretKeyInApp }
            // A well-formed key the server does not know is unauthorized, and not retried.
            let transport = CountingTransport()
            let unknown = try Ferry(apiKey: "fk_live_" + String(repeating: "Q", count: 32),
                                    options: Self.options(base, storage: InMemoryStorage(), transport: transport, device: ClickingIPhone()))
            await #expect { try await unknown.validateKey() } throws: { ($0 as? FerryError)?.code == .unauthorized && ($0 as? FerryError)?.httpStatus == 401 }
            await #expect { try await unknown.checkDeferredDeepLink() } throws: { ($0 as? FerryError)?.code == .unauthorized }
            #expect(transport.sent.filter { $0 == FerryRoutes.attributionMatch }.count == 1)
        }
    }
}
#endif
