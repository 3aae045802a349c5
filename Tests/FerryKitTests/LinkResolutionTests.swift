@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the resolve requests carry.
@Suite("Ferry: resolve requests", .takesTurns)
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
@Suite("Ferry: links opened while the server cannot answer", .takesTurns)
struct UnresolvedLinkTests {
    static let error401 = #"{"error":{"code":"unauthorized","message":"unknown or revoked API key","field":null}}"#

    /// Options whose links wait at most `deadline` seconds.
    static func options(_ transport: ScriptedTransport, deadline: TimeInterval = 60, storage: any FerryStorage = InMemoryStorage()) -> FerryOptions {
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
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport, deadline: 0.2))
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
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport))
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
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport))
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
        let ferry = try Ferry(apiKey: Kit.key, options: Self.options(transport))
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

/// The open of a link that could not be resolved is kept, and sent once the server answers.
@Suite("Ferry: opens sent later", .takesTurns)
struct PendingOpenTests {
    static let resolvePrefix = FerryRoutes.resolve(slug: "")

    /// The server when it answers: every slug is a link, a long link is `long`, events are taken.
    static func online(_ request: URLRequest) -> ScriptedTransport.Reply {
        let path = request.url?.path ?? ""
        if path == FerryRoutes.events { return .encoded(EventsResponse(accepted: 1)) }
        if path == FerryRoutes.resolveURL { return .encoded(ResolveResponse(link: Kit.linkData(slug: "long"))) }
        guard path.hasPrefix(resolvePrefix) else { return .json(404, "{}") }
        return .encoded(ResolveResponse(link: Kit.linkData(slug: String(path.dropFirst(resolvePrefix.count)))))
    }

    /// A transport that cannot reach the server until `setHandler(online)`.
    static func offline() -> ScriptedTransport { ScriptedTransport { _ in throw URLError(.notConnectedToInternet) } }

    static func ferry(_ transport: ScriptedTransport, storage: any FerryStorage, clock: TestClock = TestClock()) throws -> Ferry {
        try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport, clock: clock))
    }

    static func resolves(_ transport: ScriptedTransport, slug: String) -> Int { transport.sent(path: FerryRoutes.resolve(slug: slug)).count }

    /// Waits, a few seconds at most, for what a background task does.
    static func eventually(_ condition: () -> Bool) async {
        for _ in 0..<500 where !condition() { try? await Task.sleep(nanoseconds: 10_000_000) }
    }

    @Test func anOpenWhileOfflineIsSentOnceTheServerAnswersAndItsTouchCompleted() async throws {
        let storage = InMemoryStorage(), clock = TestClock(), transport = Self.offline()
        let ferry = try Self.ferry(transport, storage: storage, clock: clock)
        let url = URL(string: "https://go.example.com/summer?utm_source=push")!
        #expect(try await ferry.handleDeepLink(url)?.isResolved == false)
        let offlineTouch = try #require(ferry.attribution.lastTouch)
        #expect(PendingOpens.all(in: storage).map(\.url) == [url])
        #expect(Self.resolves(transport, slug: "summer") == 3)

        await ferry.flushEvents()
        #expect(Self.resolves(transport, slug: "summer") == 6, "tried again, still offline")
        #expect(PendingOpens.all(in: storage).count == 1, "and kept")

        transport.setHandler { Self.online($0) }
        clock.advance(3600)
        await ferry.flushEvents()
        #expect(Self.resolves(transport, slug: "summer") == 7)
        let request = try #require(transport.sent(path: FerryRoutes.resolve(slug: "summer")).last)
        #expect(request.value(forHTTPHeaderField: "X-Ferry-Install-ID") == FixedSignals().idfv)
        #expect(Kit.query(request)["domain"] == "go.example.com")
        #expect(PendingOpens.all(in: storage).isEmpty)

        // The touch now carries the link's data, and keeps the time of the open.
        let touch = try #require(ferry.attribution.lastTouch)
        #expect(touch.linkID == Kit.linkData().id)
        #expect(touch.source == "push" && touch.campaign == "spring", "the URL's utm_source over the link's campaign")
        #expect(touch.timestamp == offlineTouch.timestamp && touch.url == url.absoluteString)
        #expect(ferry.attribution.firstTouch == touch)

        await ferry.flushEvents()
        #expect(Self.resolves(transport, slug: "summer") == 7, "sent once")
    }

    @Test func aLongLinksOpenIsSentByItsURL() async throws {
        let storage = InMemoryStorage(), transport = Self.offline()
        let ferry = try Self.ferry(transport, storage: storage)
        #expect(try await ferry.handleDeepLink(ResolveRequestTests.longLink)?.isResolved == false)
        transport.setHandler { Self.online($0) }
        await ferry.flushEvents()
        let sent = transport.sent(path: FerryRoutes.resolveURL)
        #expect(sent.count == 4)
        #expect(Kit.query(try #require(sent.last))["url"] == ResolveRequestTests.longLink.absoluteString)
        #expect(ferry.attribution.lastTouch?.linkID == Kit.linkData().id)
        #expect(PendingOpens.all(in: storage).isEmpty)
    }

    @Test func theTouchIsCompletedOnlyWhereItIsStillThisOpen() async throws {
        let storage = InMemoryStorage(), transport = Self.offline()
        let ferry = try Self.ferry(transport, storage: storage)
        _ = try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)
        _ = try await ferry.handleDeepLink(URL(string: "myapp://paywall?utm_source=sms")!)
        transport.setHandler { Self.online($0) }
        await ferry.flushEvents()
        #expect(ferry.attribution.firstTouch?.linkID == Kit.linkData().id, "the first touch was this open")
        #expect(ferry.attribution.lastTouch?.source == "sms" && ferry.attribution.lastTouch?.linkID == nil, "a later open stays the last touch")
    }

    @Test func theQueueKeepsTheLatestTwentyAndOutlivesTheInstance() async throws {
        let storage = InMemoryStorage(), transport = Self.offline()
        let first = try Self.ferry(transport, storage: storage)
        for index in 1...25 { _ = try await first.handleDeepLink(URL(string: "https://go.example.com/s\(index)")!) }
        #expect(PendingOpens.all(in: storage).compactMap(\.slug) == (6...25).map { "s\($0)" }, "the oldest five were dropped")

        // The next launch, with the network back, sends them by itself.
        let online = ScriptedTransport { Self.online($0) }
        let second = try Self.ferry(online, storage: storage)
        await Self.eventually { PendingOpens.all(in: storage).isEmpty }
        await second.flushEvents()
        #expect(PendingOpens.all(in: storage).isEmpty)
        for index in 1...5 { #expect(Self.resolves(online, slug: "s\(index)") == 0) }
        for index in 6...25 { #expect(Self.resolves(online, slug: "s\(index)") == 1, "s\(index)") }

        let third = try Self.ferry(online, storage: storage)
        await third.flushEvents()
        #expect(online.sent.filter { $0.url?.path.hasPrefix(Self.resolvePrefix) == true }.count == 20, "nothing is sent twice")
    }

    @Test func instancesSendingAtOnceSendEachOpenOnce() async throws {
        let storage = InMemoryStorage(), transport = Self.offline()
        let offline = try Self.ferry(transport, storage: storage)
        for slug in ["a", "b", "c", "d"] { _ = try await offline.handleDeepLink(URL(string: "https://go.example.com/\(slug)")!) }
        let online = ScriptedTransport { request in
            try await Task.sleep(nanoseconds: 5_000_000)
            return Self.online(request)
        }
        let one = try Self.ferry(online, storage: storage), two = try Self.ferry(online, storage: storage)
        async let first: Void = one.flushEvents()
        async let second: Void = two.flushEvents()
        async let third: Void = one.flushEvents()
        _ = await (first, second, third)
        #expect(PendingOpens.all(in: storage).isEmpty)
        for slug in ["a", "b", "c", "d"] { #expect(Self.resolves(online, slug: slug) == 1, "\(slug)") }
    }

    @Test func anAnswerAfterTheDeadlineCompletesTheOpenWithoutASecondRequest() async throws {
        let storage = InMemoryStorage(), gate = Gate(), resolves = Collector<Int>()
        let transport = ScriptedTransport { request in
            // Only the first request waits for the gate: a second one would be answered (and counted) at once.
            if request.url?.path.hasPrefix(Self.resolvePrefix) == true {
                resolves.append(1)
                if resolves.all.count == 1 { await gate.wait() }
            }
            return Self.online(request)
        }
        var options = Kit.options(storage: storage, transport: transport)
        options.linkResolutionTimeout = 0.2
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)?.isResolved == false)
        #expect(PendingOpens.all(in: storage).count == 1)

        // Its request is still under way: a flush does not send it again.
        await ferry.flushEvents()
        #expect(Self.resolves(transport, slug: "summer") == 1)

        gate.open()
        await Self.eventually { PendingOpens.all(in: storage).isEmpty }
        #expect(PendingOpens.all(in: storage).isEmpty)
        #expect(ferry.attribution.lastTouch?.linkID == Kit.linkData().id)
        await ferry.flushEvents()
        #expect(Self.resolves(transport, slug: "summer") == 1, "the late answer recorded the open")
    }

    @Test func theNextLinkTheServerResolvesSendsTheWaitingOpens() async throws {
        let storage = InMemoryStorage(), transport = Self.offline()
        let ferry = try Self.ferry(transport, storage: storage)
        _ = try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)
        transport.setHandler { Self.online($0) }
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/winter")!)?.isResolved == true)
        await Self.eventually { PendingOpens.all(in: storage).isEmpty }
        #expect(PendingOpens.all(in: storage).isEmpty)
        #expect(Self.resolves(transport, slug: "summer") == 4)
    }

    @Test func opensTheServerWillNeverTakeAreNotKept() async throws {
        let storage = InMemoryStorage()
        let transport = ScriptedTransport { _ in .json(400, #"{"error":{"code":"invalid_field","message":"domain is malformed","field":"domain"}}"#) }
        let ferry = try Self.ferry(transport, storage: storage)
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)?.isResolved == false)
        #expect(PendingOpens.all(in: storage).isEmpty, "a 400 will not pass")
        #expect(ferry.attribution.lastTouch != nil)

        // A kept open whose link is gone by the time it is sent is dropped, its touch left as it was.
        transport.setHandler { _ in throw URLError(.timedOut) }
        _ = try await ferry.handleDeepLink(URL(string: "https://go.example.com/gone")!)
        let touch = ferry.attribution.lastTouch
        transport.setHandler { _ in .json(404, #"{"error":{"code":"not_found","message":"link not found","field":null}}"#) }
        await ferry.flushEvents()
        #expect(PendingOpens.all(in: storage).isEmpty)
        #expect(ferry.attribution.lastTouch == touch)
    }

    @Test func opensOlderThanAWeekAreDropped() async throws {
        let storage = InMemoryStorage(), clock = TestClock(), transport = Self.offline()
        let ferry = try Self.ferry(transport, storage: storage, clock: clock)
        _ = try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)
        clock.advance(8 * 86400)
        transport.setHandler { Self.online($0) }
        await ferry.flushEvents()
        #expect(PendingOpens.all(in: storage).isEmpty)
        #expect(Self.resolves(transport, slug: "summer") == 3, "only the tries of the open itself")
    }
}

/// A URL on one of the app's link domains that is no short or long link is one of the app's own Universal Links.
@Suite("Ferry: Universal Links on a link domain that are no links", .takesTurns)
struct LinkDomainURLTests {
    enum Route: Hashable, Sendable { case dashboard, paywall, settings, product(String) }

    static func router() -> DeepLinkRouter<Void, Route> {
        var router = DeepLinkRouter<Void, Route>()
        router.on(paths: ["/"], targets: ["dashboard"]) { _, _ in .dashboard }
        router.on(target: "paywall") { _, _ in .paywall }
        router.on(query: "page", value: "Settings") { _, _ in .settings }
        router.on(query: "product") { request, _ in request.query["product"].map(Route.product) }
        return router
    }

    @Test func theDomainsRootWithTheAppsOwnParametersIsAnEventAndRoutes() async throws {
        let transport = ScriptedTransport()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let events = UnresolvedLinkTests.events(of: ferry)
        let url = URL(string: "https://go.example.com/?dl_target=paywall&utm_source=newsletter&utm_campaign=spring&ref=friend")!
        #expect(ferry.canHandle(url))
        let link = try #require(try await ferry.handleDeepLink(url))
        #expect(transport.sent.isEmpty, "read on the device")
        #expect(link.isResolved && link.source == .universalLink && !link.isDeferred)
        #expect(link.url == url && link.routingURL == url)
        #expect(link.slug == nil && link.linkID == nil && link.iosURL == nil && link.destination == nil)
        #expect(link.params == ["dl_target": "paywall", "ref": "friend"])
        #expect(link.utm == UTMParameters(source: "newsletter", campaign: "spring") && link.campaign == "spring")

        let touch = try #require(ferry.attribution.lastTouch)
        #expect(touch.source == "newsletter" && touch.target == "paywall" && touch.landingPath == "/" && touch.linkID == nil)
        #expect(ferry.attribution.firstTouch == touch)
        #expect(events.all.map(\.name) == [.deepLinkOpened, .firstTouchAttributed])
        let parameters = try #require(events.all.first).parameters
        #expect(parameters["url"] == url.absoluteString && parameters["path"] == "/" && parameters["dl_target"] == "paywall")
        #expect(parameters["utm_source"] == "newsletter" && parameters["is_resolved"] == nil && parameters["slug"] == nil)

        #expect(Self.router().route(link) == .paywall, "dl_target before the rule for /")
    }

    @Test func aRouterReachesThemByTheirQueryParameters() async throws {
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: ScriptedTransport()))
        let router = Self.router()
        func route(_ text: String) async throws -> Route? {
            try await ferry.handleDeepLink(URL(string: text)!).flatMap { router.route($0) }
        }
        #expect(try await route("https://go.example.com/?page=settings") == .settings, "a query rule before the rule for /")
        #expect(try await route("https://go.example.com/?page=%20SETTINGS%20") == .settings, "values compared trimmed, without case")
        #expect(try await route("https://go.example.com/?product=Ab12") == .product("Ab12"))
        #expect(try await route("https://go.example.com/?page=help") == .dashboard, "another value: the path rule")
        #expect(try await route("https://go.example.com/?product=") == .dashboard, "an empty value is no value")
        #expect(try await route("https://go.example.com/?Page=settings") == .dashboard, "names are case-sensitive")
        #expect(try await route("https://go.example.com/") == .dashboard)
        #expect(router.route(URL(string: "https://app.example.com/?page=settings")!) == .settings, "a plain URL routes the same")
    }

    @Test(arguments: [
        "https://go.example.com/", "https://go.example.com", "https://GO.example.com./?utm_source=x", "https://go.example.com/a/b/c/d/e/f/g/h/i",
        "https://go.example.com/sum%20mer", "https://go.example.com/" + String(repeating: "a", count: 65),
        "https://go.example.com/pricing.html?plan=pro", "https://go.example.com/%E2%9C%93",
    ])
    func urlsOnALinkDomainThatAreNoLinksAreReadWithoutANetworkCall(text: String) async throws {
        let transport = ScriptedTransport()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let url = try #require(URL(string: text))
        #expect(ferry.canHandle(url))
        let link = try #require(try await ferry.handleDeepLink(url))
        #expect(link.url == url && link.isResolved && link.slug == nil && link.source == .universalLink)
        #expect(transport.sent.isEmpty)
    }

    @Test func aDomainTheServerReportedCountsWithoutWaitingForAnything() async throws {
        let storage = InMemoryStorage()
        storage.setValue(CachedValidation(keyFingerprint: CachedValidation.fingerprint(of: Kit.key), validatedAt: TestClock().now,
                                          settings: Kit.validation(domains: ["links.example.org"])), forKey: StorageKey.validation)
        let transport = ScriptedTransport()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport, domains: [], validate: true))
        #expect(try await ferry.handleDeepLink(URL(string: "https://links.example.org/?dl_target=paywall")!)?.target == "paywall")
        #expect(try await ferry.handleDeepLink(URL(string: "https://www.links.example.org/?dl_target=paywall")!) == nil, "a subdomain only has links")
        #expect(transport.sent.isEmpty)
    }
}
