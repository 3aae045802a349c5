#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

/// Runs blocking work (waiting for a child process) on a thread of its own, so that tests running meanwhile keep
/// the few threads Swift's concurrency runs on (two on a two-core machine).
func onItsOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// A database with two apps and their keys, as the CLI would set them up.
struct Fixture {
    let directory: URL
    let store: SQLiteStore
    let admin: FerryAdmin
    let app: App
    let otherApp: App
    let secret: String
    let publishable: String
    let testSecret: String
    let otherSecret: String

    var path: String { directory.appendingPathComponent("ferry.sqlite").path }

    static func make() async throws -> Fixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: directory.appendingPathComponent("ferry.sqlite").path)
        let admin = FerryAdmin(store: store)
        var spec = FerryAdmin.AppSpec(name: "Example", domains: ["go.example.com", "links.example.com"])
        spec.teamID = "ABCDE12345"
        spec.bundleIDs = ["com.example.app", "com.example.app.beta"]
        spec.appStoreID = "1234567890"
        spec.urlScheme = "example"
        spec.androidPackage = "com.example.android"
        spec.androidFingerprints = ["14:6d:e9:83:c5:73:06:50:d8:ee:b9:95:2f:34:fc:64:16:a0:83:42:e6:1d:be:a8:8a:04:96:b2:3f:cf:44:e5"]
        spec.fallbackURL = "https://example.com/"
        spec.social = SocialMetadata(title: "Example App", description: "The example app", imageURL: "https://example.com/card.png")
        let app = try await admin.createApp(spec)
        let other = try await admin.createApp(.init(name: "Other", domains: ["other.test"]))
        return Fixture(
            directory: directory, store: store, admin: admin, app: app, otherApp: other,
            secret: try await admin.createKey(appID: app.id, kind: .secret, environment: .live).key,
            publishable: try await admin.createKey(appID: app.id, kind: .publishable, environment: .live).key,
            testSecret: try await admin.createKey(appID: app.id, kind: .secret, environment: .test).key,
            otherSecret: try await admin.createKey(appID: other.id, kind: .secret, environment: .live).key
        )
    }

    static var configuration: FerryConfiguration {
        var configuration = FerryConfiguration()
        configuration.port = 0
        configuration.clickFlushInterval = .milliseconds(20)
        configuration.cacheRefreshInterval = .milliseconds(100)
        configuration.ipHashKey = "test-ip-hash-key-0123456789"
        configuration.logLevel = .error
        // The whole suite runs at once on two cores: a lookup can wait seconds for the processor, which is not the
        // database being away (the outage tests stop a real database instead).
        configuration.edgeLookupTimeout = .seconds(15)
        // Passwords hashed at the lowest cost the server takes: a sign-in at the default cost takes seconds in a debug build.
        configuration.passwordHashCost = 10
        return configuration
    }

    func application(_ configuration: FerryConfiguration = Fixture.configuration, logger: Logger? = nil) async throws -> some ApplicationProtocol {
        try await buildApplication(configuration, store: store, logger: logger)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Waits until a condition holds (the click recorder writes off the request path), for at most five seconds.
    func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<250 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// HummingbirdTesting's live client sends `Host: localhost` ahead of any `Host` a test gives, which no real client
/// does and Ferry refuses (two `Host` fields, RFC 9112 §3.2). `testLive` runs the server as `test(.live)` does, and
/// hands the test a client that sends each request over a real socket with the test's `Host` as its only one
/// (`localhost` when it gives none). The answers reach the test through HummingbirdTesting's router framework, the one
/// maker of its `TestResponse`s, from a responder that relays each request to the live server.
extension ApplicationProtocol {
    func testLive<Value>(_ test: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await self.test(.live) { live in
            let port = try #require(live.port)
            let connection = TestClient(host: "localhost", port: port, configuration: .init(timeout: .seconds(20)))
            connection.connect()
            do {
                let value = try await Application(responder: OneHostRelay(connection: connection)).test(.router) { relayed in
                    try await test(LiveClient(relayed: relayed, port: port))
                }
                try await connection.shutdown()
                return value
            } catch {
                try? await connection.shutdown()
                throw error
            }
        }
    }
}

/// Sends each request it is given to a live server with one `Host` (see `testLive`), and answers with the server's answer.
struct OneHostRelay: HTTPResponder {
    typealias Context = BasicRequestContext
    let connection: TestClient

    func respond(to request: Request, context: Context) async throws -> Response {
        var headers = request.headers
        let host = headers[.host] ?? "localhost"
        headers[.host] = nil
        headers[.connection] = "keep-alive"
        let body = try await request.body.collect(upTo: .max)
        let sent = TestClient.Request(request.head.path ?? "/", method: request.method, authority: host, headers: headers,
                                      body: body.readableBytes > 0 || headers[.contentLength] != nil ? body : nil)
        let answer = try await connection.execute(sent)
        return Response(status: answer.status, headers: answer.headers, body: .init(byteBuffer: answer.body ?? ByteBuffer()))
    }
}

/// The client `testLive` hands a test: requests through `OneHostRelay`, and the live server's port for raw sockets.
struct LiveClient: TestClientProtocol {
    let relayed: any TestClientProtocol
    let port: Int?

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        try await relayed.executeRequest(uri: uri, method: method, headers: headers, body: body)
    }
}

/// Keeps what is logged, for tests of logging.
struct RecordingLogHandler: LogHandler {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    /// The entries of every handler made from it.
    final class Records: Sendable {
        private let list = Mutex<[Entry]>([])

        var entries: [Entry] { list.withLock { $0 } }

        /// The entries with that message.
        func entries(saying message: String) -> [Entry] { entries.filter { $0.message == message } }

        func append(_ entry: Entry) { list.withLock { $0.append(entry) } }

        /// A logger at `level` that keeps what it logs here.
        func logger(_ level: Logger.Level) -> Logger {
            Logger(label: "ferry-test") { _ in RecordingLogHandler(records: self, logLevel: level) }
        }
    }

    let records: Records
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append(Entry(level: event.level, message: event.message.description, metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}

extension HTTPField.Name {
    static let host = HTTPField.Name("Host")!
    static let apiKey = HTTPField.Name("x-api-key")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let csp = HTTPField.Name("Content-Security-Policy")!
}

/// Headers for a request to a link domain or the API.
func headers(host: String = "go.example.com", key: String? = nil, userAgent: String? = nil, json: Bool = false, extra: [(HTTPField.Name, String)] = []) -> HTTPFields {
    var fields = HTTPFields()
    fields[.host] = host
    if let key { fields[.authorization] = "Bearer \(key)" }
    if let userAgent { fields[.userAgent] = userAgent }
    if json { fields[.contentType] = "application/json" }
    for (name, value) in extra { fields.append(HTTPField(name: name, value: value)) }
    return fields
}

extension TestResponse {
    var text: String { String(buffer: body) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try FerryJSON.makeDecoder().decode(T.self, from: Data(buffer: body))
    }

    var error: ErrorResponse.Detail? { (try? decode(ErrorResponse.self))?.error }
}

func jsonBody(_ value: some Encodable) throws -> ByteBuffer {
    ByteBuffer(bytes: try FerryJSON.makeEncoder().encode(value))
}

func jsonBody(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

enum UA {
    static let iPhoneSafari = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
    static let iPhoneInstagram = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 334.0.4.32.98 (iPhone15,2; iOS 17_5; en_US; en; scale=3.00; 1179x2556; 607436522)"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"
    static let facebookBot = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
    static let slackBot = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
    static let iPadSafari = "Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
    static let iPhoneFacebook = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22B83 [FBAN/FBIOS;FBAV/489.0.0.46.107;FBBV/660000000;FBDV/iPhone16,2;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0]"
    static let androidFacebook = "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.135 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/489.0.0.48.108;]"
    static let androidInstagram = "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.135 Mobile Safari/537.36 Instagram 357.0.0.25.101 Android (34/14; 420dpi; 1080x2400; Google/google; Pixel 8; shiba; shiba; en_US; 658302358)"
    static let windowsChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
    static let linuxFirefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
    static let twitterBot = "Twitterbot/1.0"
    static let whatsApp = "WhatsApp/2.24.23.78 A"
    static let discordBot = "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)"
    static let linkedInBot = "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)"
    static let iMessage = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0"
    static let telegramBot = "TelegramBot (like TwitterBot)"

    /// Link-unfurling bots of the main messengers and networks.
    static let bots = [facebookBot, slackBot, twitterBot, whatsApp, discordBot, linkedInBot, iMessage, telegramBot]
    /// Desktop browsers.
    static let desktops = [desktop, windowsChrome, linuxFirefox]
}

/// The `data-store` URL of an interstitial page (where its button and script lead), unescaped.
func interstitialStoreURL(_ html: String) -> String? {
    guard let start = html.range(of: "data-store=\"")?.upperBound, let end = html[start...].firstIndex(of: "\"") else { return nil }
    return String(html[start..<end]).replacingOccurrences(of: "&amp;", with: "&")
}

/// Clicks a link as an iPhone from an address; returns the click id the interstitial carries.
func clickOnIPhone(_ client: some TestClientProtocol, slug: String, address: String, report: String? = iPhoneBrowserReport,
                   host: String = "go.example.com", path: String? = nil, browser: String? = nil) async throws -> String {
    let page = try await client.execute(uri: path ?? "/\(slug)", method: .get, headers: headers(host: host, userAgent: UA.iPhoneSafari, extra: [(.forwardedFor, address)]))
    #expect(page.status == .ok)
    let text = page.text
    let start = try #require(text.range(of: "data-click=\"")).upperBound
    let clickID = String(text[start...].prefix(26))
    #expect(AttributionRules.isClickID(clickID))
    if let report {
        let beacon = try await client.execute(uri: "/.ferry/signals", method: .post, headers: headers(host: host, extra: [(.contentType, "text/plain;charset=UTF-8")]),
                                              body: jsonBody(#"{"click": "\#(clickID)", "signals": \#(report)\#(browser.map { #", "browser": "\#($0)""# } ?? "")}"#))
        #expect(beacon.status == .noContent)
    }
    return clickID
}
#endif
