@testable import FerryKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that answers from a closure and remembers every request: the server stand-in for unit tests
/// (the end-to-end tests use the real server).
final class ScriptedTransport: FerryTransport, @unchecked Sendable {
    // @unchecked: `requests` and `reply` are only touched under `lock`.
    struct Reply: Sendable {
        var status: Int
        var body: Data
        /// Header fields besides `Content-Type: application/json`.
        var headers: [String: String] = [:]
        static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> Reply {
            Reply(status: status, body: Data(text.utf8), headers: headers)
        }
        static func encoded(_ value: some Encodable, status: Int = 200) -> Reply {
            Reply(status: status, body: try! FerryJSON.makeEncoder().encode(value))
        }
    }
    /// What the stand-in does with a request: answer, or throw as a failed connection would.
    typealias Handler = @Sendable (URLRequest) async throws -> Reply

    private let lock = NSLock()
    private var requests: [URLRequest] = []
    private var handler: Handler

    init(_ handler: @escaping Handler = { _ in .json(404, #"{"error":{"code":"not_found","message":"no route","field":null}}"#) }) {
        self.handler = handler
    }

    func setHandler(_ handler: @escaping Handler) { lock.withLock { self.handler = handler } }

    var sent: [URLRequest] { lock.withLock { requests } }
    func sent(path: String) -> [URLRequest] { sent.filter { $0.url?.path == path } }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let current = lock.withLock { () -> Handler in
            requests.append(request)
            return handler
        }
        let reply = try await current(request)
        let response = HTTPURLResponse(url: request.url!, statusCode: reply.status, httpVersion: "HTTP/1.1", headerFields: reply.headers.merging(["Content-Type": "application/json"]) { own, _ in own })!
        return (reply.body, response)
    }
}

/// Fixed signals and IDFV, standing in for UIKit, which does not exist here.
struct FixedSignals: DeviceSignalsProvider {
    var idfv: String? = "6F1D2C3B-0000-4000-8000-000000000001"
    func signals() async -> DeviceSignals {
        DeviceSignals(platform: "ios", osVersion: "18.1", model: "iPhone16,1", screenWidth: 393, screenHeight: 852, screenScale: 3,
                      timeZone: "Europe/Paris", timeZoneOffsetSeconds: 3600, languages: ["fr-FR", "en-US"])
    }
    func installIdentifier() async -> String? { idfv }
}

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
    // @unchecked: `date` is only touched under `lock`.
    private let lock = NSLock()
    private var date: Date
    init(_ date: Date = Date(timeIntervalSince1970: 1_780_000_000)) { self.date = date }
    var now: Date { lock.withLock { date } }
    func advance(_ seconds: TimeInterval = 60) { lock.withLock { date.addTimeInterval(seconds) } }
}

/// Collects what a handler receives.
final class Collector<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `items` is only touched under `lock`.
    private let lock = NSLock()
    private var items: [Element] = []
    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var all: [Element] { lock.withLock { items } }
}

enum Kit {
    static let key = "fk_live_" + String(repeating: "a", count: 16) + String(repeating: "B", count: 16)
    static let testKey = "fk_test_" + String(repeating: "7", count: 32)
    static let server = URL(string: "https://api.example.com")!

    static func options(
        storage: any FerryStorage = InMemoryStorage(), transport: ScriptedTransport, clock: TestClock = TestClock(),
        domains: [String] = ["go.example.com"], schemes: [String] = ["myapp"], validate: Bool = false
    ) -> FerryOptions {
        var options = FerryOptions(serverURL: server, linkDomains: domains, urlSchemes: schemes)
        options.storage = storage
        options.transport = transport
        options.deviceSignalsProvider = FixedSignals()
        options.retryPolicy = RetryPolicy(maxAttempts: 3, initialDelay: 0, maxDelay: 0)
        // The longest deadline there is: what a test expects never depends on how busy the machine is. Tests of the
        // deadline itself set a short one, with a server that does not answer.
        options.linkResolutionTimeout = 60
        options.validatesKeyOnLaunch = validate
        options.eventFlushDelay = 3600
        options.logLevel = .none
        options.now = { clock.now }
        return options
    }

    static func linkData(slug: String = "summer", params: [String: String] = ["productID": "42"]) -> LinkData {
        LinkData(id: "lnk_0123456789abcdefghijkl", slug: slug, url: "https://go.example.com/\(slug)", destination: "https://example.com/sale",
                 iosURL: "myapp://product/42", androidURL: nil, params: params, utm: UTMParameters(source: "newsletter", campaign: "spring"),
                 campaign: "spring-sale", referrer: "user-7")
    }

    static func validation(domains: [String] = ["go.example.com"], window: Int = 86400) -> SDKValidateResponse {
        SDKValidateResponse(valid: true, appID: "app_0123456789abcdefghijkl", appName: "Example", domains: domains, environment: .live,
                            urlScheme: "exampleapp", attributionWindowSeconds: window)
    }

    static func query(_ request: URLRequest) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(url: request.url!, resolvingAgainstBaseURL: false)?.queryItems ?? [] { result[item.name] = item.value }
        return result
    }

    static func body<T: Decodable>(_ request: URLRequest, as type: T.Type) throws -> T {
        try FerryJSON.makeDecoder().decode(T.self, from: request.httpBody ?? Data())
    }
}

/// A door that tasks wait at until a test opens it; opening it again does nothing.
final class Latch: Sendable {
    private let state = Locked<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
