@testable import FerryKit
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the resolve requests carry.
@Suite("Ferry: resolve requests")
struct ResolveRequestTests {
    static let longLink = URL(string: "https://go.example.com/?link=https%3A%2F%2Fexample.com%2Fitem%3Fid%3D7&ibi=com.example.app"
                              + "&utm_source=mail&utm_campaign=spring&gclid=g1&imv=2.1&ref=friend")!

    @Test func theInstallIDGoesInAHeaderOfEveryResolveNeverInTheQuery() async throws {
        let transport = ScriptedTransport { _ in .encoded(ResolveResponse(link: Kit.linkData())) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        _ = try #require(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer?installID=spoofed")!))
        _ = try #require(try await ferry.handleDeepLink(Self.longLink))
        let short = try #require(transport.sent(path: FerryRoutes.resolve(slug: "summer")).first)
        let long = try #require(transport.sent(path: FerryRoutes.resolveURL).first)
        #expect(Kit.query(long)["url"] == Self.longLink.absoluteString)
        for request in [short, long] {
            #expect(request.value(forHTTPHeaderField: "X-Ferry-Install-ID") == FixedSignals().idfv)
            #expect(Kit.query(request)["installID"] == nil)
            #expect(request.url?.absoluteString.contains(FixedSignals().idfv!) == false)
        }
    }
}

/// Holds the requests that wait on it until the test opens it: a server that does not answer, then does.
final class Gate: @unchecked Sendable {
    // @unchecked: `isOpen` and `waiters` are only touched under `lock`.
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock { () -> Bool in
                if isOpen { return true }
                waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }
}

/// A link the server cannot resolve in time is read from its URL, within the deadline.
@Suite("Ferry: links opened while the server cannot answer")
struct UnresolvedLinkTests {
    static let error401 = #"{"error":{"code":"unauthorized","message":"unknown or revoked API key","field":null}}"#

    /// Options whose links wait at most `deadline` seconds.
    static func options(_ transport: ScriptedTransport, deadline: TimeInterval = 0.2, storage: any FerryStorage = InMemoryStorage()) -> FerryOptions {
        var options = Kit.options(storage: storage, transport: transport)
        options.linkResolutionTimeout = deadline
        return options
    }

    /// The events other than install and open.
    static func events(of ferry: Ferry) -> Collector<FerryEvent> {
        let events = Collector<FerryEvent>()
        ferry.onEvent { event in
            if event.name != .install && event.name != .open { events.append(event) }
        }
        return events
    }

    @Test func aServerThatNeverAnswersGivesTheLinkReadFromItsURLAtTheDeadline() async throws {
        let gate = Gate(), answered = Collector<Bool>()
        let transport = ScriptedTransport { _ in
            await gate.wait()
            answered.append(true)
            return .json(503, "{}")
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport))
        let events = Self.events(of: ferry)
        let url = URL(string: "https://go.example.com/Summer?utm_source=push&utm_campaign=spring&coupon=SAVE10&dl_target=Paywall")!
        let link = try #require(try await ferry.handleDeepLink(url))
        #expect(answered.all.isEmpty, "the call came back while the request was still waiting for the server")
        #expect(!link.isResolved)
        #expect(link.url == url && link.slug == "summer" && link.source == .universalLink && !link.isDeferred)
        #expect(link.linkID == nil && link.iosURL == nil && link.destination == nil && link.referrer == nil)
        #expect(link.params == ["coupon": "SAVE10", "dl_target": "Paywall"])
        #expect(link.utm == UTMParameters(source: "push", campaign: "spring") && link.campaign == "spring")
        #expect(link.target == "paywall" && link.routingURL == url)

        // Recorded and published as a resolved open is.
        let touch = try #require(ferry.attribution.lastTouch)
        #expect(touch.url == url.absoluteString && touch.source == "push" && touch.target == "paywall" && touch.linkID == nil)
        #expect(ferry.attribution.firstTouch == touch)
        #expect(events.all.map(\.name) == [.deepLinkOpened, .firstTouchAttributed])
        let parameters = try #require(events.all.first).parameters
        #expect(parameters["slug"] == "summer" && parameters["utm_source"] == "push" && parameters["is_resolved"] == "false")
        #expect(parameters["link_id"] == nil)
        gate.open()
    }

    @Test func aLongLinkReadFromItsURLRoutesOnItsLink() async throws {
        let transport = ScriptedTransport { _ in throw URLError(.notConnectedToInternet) }
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport))
        let link = try #require(try await ferry.handleDeepLink(ResolveRequestTests.longLink))
        #expect(!link.isResolved && link.source == .universalLink && link.slug == nil && link.linkID == nil)
        #expect(link.destination?.absoluteString == "https://example.com/item?id=7")
        #expect(link.routingURL.absoluteString == "https://example.com/item?id=7")
        // As the server reads a long link: its own parameters stay out of params, but gclid.
        #expect(link.params == ["gclid": "g1", "ref": "friend"])
        #expect(link.utm == UTMParameters(source: "mail", campaign: "spring"))
        #expect(link.minimumAppVersion == "2.1")
        #expect(transport.sent(path: FerryRoutes.resolveURL).count == 3, "tried as any request")
    }

    @Test(arguments: ["javascript%3Aalert(1)", "myapp%3A%2F%2Fproduct%2F1", "", "%20"])
    func aLongLinksLinkThatIsNoWebURLIsNoDestination(link: String) async throws {
        let transport = ScriptedTransport { _ in .json(502, "{}") }
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport))
        let url = try #require(URL(string: "https://go.example.com/?link=\(link)&utm_source=x"))
        let opened = try #require(try await ferry.handleDeepLink(url))
        #expect(!opened.isResolved && opened.destination == nil && opened.routingURL == url)
        #expect(opened.params.isEmpty && opened.utm.source == "x")
    }

    @Test(arguments: [(401, FerryError.Code.unauthorized), (403, .forbidden)])
    func aRefusedKeyIsStillThrown(status: Int, code: FerryError.Code) async throws {
        let transport = ScriptedTransport { _ in .json(status, Self.error401) }
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport, deadline: 3))
        let events = Self.events(of: ferry)
        for url in ["https://go.example.com/summer", ResolveRequestTests.longLink.absoluteString] {
            await #expect { try await ferry.handleDeepLink(URL(string: url)!) } throws: {
                ($0 as? FerryError)?.code == code && ($0 as? FerryError)?.httpStatus == status
            }
        }
        #expect(transport.sent.count == 2, "not retried")
        #expect(ferry.attribution.lastTouch == nil && events.all.isEmpty)
    }

    @Test(arguments: [404, 410])
    func aLinkTheServerDoesNotHaveIsStillNil(status: Int) async throws {
        let transport = ScriptedTransport { _ in .json(status, #"{"error":{"code":"not_found","message":"no link","field":null}}"#) }
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport, deadline: 3))
        let events = Self.events(of: ferry)
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!) == nil)
        #expect(try await ferry.handleDeepLink(ResolveRequestTests.longLink) == nil)
        #expect(ferry.attribution.lastTouch == nil && events.all.isEmpty)
    }

    @Test func aRateLimitWhoseWaitFitsTheDeadlineIsWaitedFor() async throws {
        let count = Collector<Int>()
        let transport = ScriptedTransport { _ in
            count.append(1)
            if count.all.count == 1 { return .json(429, #"{"error":{"code":"rate_limited","message":"slow down","field":null}}"#, headers: ["Retry-After": "0"]) }
            return .encoded(ResolveResponse(link: Kit.linkData()))
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport, deadline: 3))
        let link = try #require(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!))
        #expect(link.isResolved && link.linkID == Kit.linkData().id)
        #expect(transport.sent.count == 2)
    }

    @Test(arguments: [0, -1, 60.5, Double.nan, Double.infinity])
    func deadlinesThatCannotWorkAreRefused(deadline: Double) {
        #expect { try Ferry(apiKey: Kit.key, options: Self.options(ScriptedTransport(), deadline: deadline)) } throws: {
            ($0 as? FerryError)?.code == .invalidConfiguration
        }
    }

    @Test func linksStoredBeforeIsResolvedExistedReadAsResolved() throws {
        let stored = #"{"url":"https://go.example.com/summer","params":{},"utm":{},"isDeferred":true,"source":"deferred"}"#
        let link = try FerryJSON.makeDecoder().decode(DeepLink.self, from: Data(stored.utf8))
        #expect(link.isResolved)
        let unresolved = DeepLink(url: link.url, source: .universalLink, isResolved: false)
        let again = try FerryJSON.makeDecoder().decode(DeepLink.self, from: FerryJSON.makeEncoder().encode(unresolved))
        #expect(!again.isResolved && again == unresolved)
        #expect(!String(decoding: try FerryJSON.makeEncoder().encode(link), as: UTF8.self).contains("esolved"), "a resolved link is stored as before")
    }
}
