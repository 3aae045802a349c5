@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Ferry: deferred deep links, users and events", .takesTurns)
struct DeferredDeepLinkTests {
    static let matched = MatchResponse(matched: true, matchType: .probabilistic, confidence: 0.93, isDeferred: true, link: Kit.linkData())

    static func matching(_ answer: MatchResponse = matched, delay: UInt64 = 0) -> ScriptedTransport {
        ScriptedTransport { request in
            switch request.url?.path {
            case FerryRoutes.attributionMatch?:
                if delay > 0 { try await Task.sleep(nanoseconds: delay) }
                return .encoded(answer)
            case FerryRoutes.events?:
                let body = try Kit.body(request, as: EventsRequest.self)
                return .encoded(EventsResponse(accepted: body.events.count))
            default:
                return .json(404, #"{"error":{"code":"not_found","message":"no route","field":null}}"#)
            }
        }
    }

    @Test func theCompletionHandlerTwinOfTheDeferredCheckAnswersOnTheMainActor() async throws {
        let transport = Self.matching()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let first: Result<DeepLink?, FerryError> = await withCheckedContinuation { continuation in
            ferry.checkDeferredDeepLink { result in
                MainActor.assertIsolated()
                continuation.resume(returning: result)
            }
        }
        #expect(try first.get()?.slug == "summer")
        let again: Result<DeepLink?, FerryError> = await withCheckedContinuation { continuation in
            ferry.checkDeferredDeepLink { continuation.resume(returning: $0) }
        }
        #expect(try again.get()?.slug == "summer")
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1, "the second answer comes from storage")

        let failing = try Ferry(apiKey: Kit.key, options: Kit.options(transport: ScriptedTransport { _ in .json(500, "{}") }))
        let failure: Result<DeepLink?, FerryError> = await withCheckedContinuation { continuation in
            failing.checkDeferredDeepLink { continuation.resume(returning: $0) }
        }
        #expect(throws: FerryError.self) { try failure.get() }
    }

    /// A server that opens `arrived` when the match request comes, and answers it (a match) once `answer` is opened.
    static func answeringLater(arrived: Latch, answer: Latch) -> ScriptedTransport {
        ScriptedTransport { request in
            guard request.url?.path == FerryRoutes.attributionMatch else { return .json(404, "{}") }
            arrived.open()
            await answer.wait()
            return .encoded(Self.matched)
        }
    }

    @Test func aCancelledCallerStopsWaitingWhileTheSharedRequestGoesOnAndIsStored() async throws {
        let arrived = Latch(), answer = Latch()
        let transport = Self.answeringLater(arrived: arrived, answer: answer)
        let storage = InMemoryStorage()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        let cancelled = Task { try await ferry.checkDeferredDeepLink() }
        await arrived.wait()
        let other = Task { try await ferry.checkDeferredDeepLink() }
        cancelled.cancel()
        // The cancelled caller returns while the server has not answered yet.
        switch await cancelled.result {
        case .success: Issue.record("a cancelled caller got an answer the server had not given yet")
        case .failure(let error): #expect((error as? FerryError)?.code == .cancelled)
        }
        #expect(storage.data(forKey: StorageKey.deferred) == nil)
        answer.open()
        #expect(try await other.value?.slug == "summer", "the other caller gets the shared request's answer")
        #expect(storage.value(CachedMatch.self, forKey: StorageKey.deferred)?.link?.slug == "summer")
        #expect(try await ferry.checkDeferredDeepLink()?.slug == "summer")
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1, "one request, shared, and its answer stored")
    }

    @Test func whenEveryCallerIsCancelledTheRequestStillEndsAndItsAnswerIsStored() async throws {
        let arrived = Latch(), answer = Latch()
        let transport = Self.answeringLater(arrived: arrived, answer: answer)
        let storage = InMemoryStorage()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        let matched = Collector<FerryEvent.Name>()
        ferry.onEvent { if $0.name == .deferredDeepLinkMatched { matched.append($0.name) } }
        let caller = Task { try await ferry.checkDeferredDeepLink() }
        await arrived.wait()
        caller.cancel()
        await #expect { try await caller.value } throws: { ($0 as? FerryError)?.code == .cancelled }
        answer.open()
        // No caller waits any more; the answer still lands in storage, and the next call reads it from there.
        for _ in 0..<2000 where storage.data(forKey: StorageKey.deferred) == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(try await ferry.checkDeferredDeepLink()?.slug == "summer")
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1)
        #expect(matched.all == [.deferredDeepLinkMatched])
    }

    @Test func theFirstLaunchAsksOnceWithTheDevicesSignalsAndLaterCallsAnswerFromStorage() async throws {
        let storage = InMemoryStorage()
        let transport = Self.matching()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(ferry.isFirstLaunch)
        let link = try #require(try await ferry.checkDeferredDeepLink())
        #expect(link.isDeferred && link.source == .deferred)
        #expect(link.matchType == .probabilistic && link.confidence == 0.93)
        #expect(link.slug == "summer" && link.params == ["productID": "42"])
        #expect(link.url.absoluteString == "https://go.example.com/summer")

        let sent = transport.sent(path: FerryRoutes.attributionMatch)
        #expect(sent.count == 1)
        let body = try Kit.body(sent[0], as: MatchRequest.self)
        #expect(body.installID == FixedSignals().idfv)
        #expect(body.signals == (await FixedSignals().signals()))
        #expect(body.clickToken == nil)
        // The body spells out clickToken and referrer as null, as the contract shows it.
        let json = try #require(try JSONSerialization.jsonObject(with: sent[0].httpBody ?? Data()) as? [String: Any])
        #expect(json.keys.sorted() == ["clickToken", "installID", "installationID", "referrer", "signals"])

        #expect(try await ferry.checkDeferredDeepLink() == link)
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1)

        // A later launch: a new instance on the same storage is not a first launch and asks nothing.
        let relaunch = ScriptedTransport()
        let later = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: relaunch))
        #expect(!later.isFirstLaunch)
        #expect(try await later.checkDeferredDeepLink() == link)
        #expect(relaunch.sent.isEmpty)
    }

    @Test func noMatchIsAlsoKeptSoTheServerIsAskedOnce() async throws {
        let storage = InMemoryStorage()
        let transport = Self.matching(.notMatched)
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(try await ferry.checkDeferredDeepLink() == nil)
        #expect(try await ferry.checkDeferredDeepLink() == nil)
        let later = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(try await later.checkDeferredDeepLink() == nil)
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1)
    }

    @Test func concurrentCallsShareOneRequest() async throws {
        let transport = Self.matching(delay: 100_000_000)
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let results = try await withThrowingTaskGroup(of: DeepLink?.self) { group in
            for _ in 0..<25 { group.addTask { try await ferry.checkDeferredDeepLink() } }
            return try await group.reduce(into: [DeepLink?]()) { $0.append($1) }
        }
        #expect(results.count == 25)
        #expect(Set(results.map { $0?.slug }) == ["summer"])
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1)
    }

    @Test func aFailedCheckKeepsNothingAndTheNextCallAsksAgain() async throws {
        let storage = InMemoryStorage()
        let transport = ScriptedTransport { _ in throw URLError(.notConnectedToInternet) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        await #expect { try await ferry.checkDeferredDeepLink() } throws: { ($0 as? FerryError)?.code == .network }
        #expect(storage.data(forKey: StorageKey.deferred) == nil)

        transport.setHandler { _ in .encoded(Self.matched) }
        // The next launch (still inside the window) asks again and gets the link.
        let relaunch = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(!relaunch.isFirstLaunch)
        #expect(try await relaunch.checkDeferredDeepLink()?.slug == "summer")
    }

    @Test(arguments: [
        #"{"matched": true, "matchType": "psychic", "confidence": 2}"#, #"<html>"#, #"{"matched": "yes"}"#, "",
    ])
    func badAnswersAreInvalidResponsesAndNotKept(body: String) async throws {
        let storage = InMemoryStorage()
        let transport = ScriptedTransport { _ in .json(200, body) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        await #expect { try await ferry.checkDeferredDeepLink() } throws: { ($0 as? FerryError)?.code == .invalidResponse }
        #expect(storage.data(forKey: StorageKey.deferred) == nil)
    }

    @Test func aMatchedAnswerWithoutALinkIsNoLink() async throws {
        let transport = Self.matching(MatchResponse(matched: true, matchType: .deterministic, confidence: 1, isDeferred: true, link: nil))
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        #expect(try await ferry.checkDeferredDeepLink() == nil)
    }

    @Test func afterTheAttributionWindowTheServerIsNotAskedAnyMore() async throws {
        let storage = InMemoryStorage(), clock = TestClock()
        let transport = ScriptedTransport { _ in throw URLError(.notConnectedToInternet) }
        let first = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport, clock: clock))
        await #expect(throws: FerryError.self) { try await first.checkDeferredDeepLink() }
        clock.advance(8 * 86400)
        transport.setHandler { _ in .encoded(Self.matched) }
        let weekLater = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport, clock: clock))
        let before = transport.sent.count
        #expect(try await weekLater.checkDeferredDeepLink() == nil)
        #expect(transport.sent.count == before)
    }

    @Test func aMatchedLinkIsFirstTouchAndAnnounced() async throws {
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: Self.matching()))
        let events = Collector<FerryEvent>()
        ferry.onEvent { event in
            if event.name != .install && event.name != .open { events.append(event) }
        }
        _ = try await ferry.checkDeferredDeepLink()
        #expect(events.all.map(\.name) == [.deferredDeepLinkMatched, .deepLinkOpened, .firstTouchAttributed])
        #expect(events.all[1].parameters["is_deferred"] == "true")
        #expect(events.all[1].parameters["match_type"] == "probabilistic")
        #expect(ferry.attribution.firstTouch?.source == "newsletter")
        let backend = ferry.attribution.currentAttributionForBackend()
        #expect(backend["first_touch"]?["campaign"] == "spring")
        _ = try await ferry.checkDeferredDeepLink()
        #expect(events.all.count == 3, "a cached answer is not announced again")
    }

    @Test func aClickTokenIsReadOnceAndKeptUntilTheServerAnswers() async throws {
        /// A pasteboard: the token can be read once, then it is gone.
        final class Pasteboard: ClickTokenProvider, @unchecked Sendable {
            private let lock = NSLock()
            private var text: String? = "ferry:clk_0123456789abcdefghijkl"
            private(set) var reads = 0
            func clickToken() async -> String? {
                lock.withLock {
                    reads += 1
                    defer { text = nil }
                    return text
                }
            }
        }
        let pasteboard = Pasteboard()
        let storage = InMemoryStorage()
        let transport = ScriptedTransport { _ in throw URLError(.notConnectedToInternet) }
        var options = Kit.options(storage: storage, transport: transport)
        options.clickTokenProvider = pasteboard
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        await #expect(throws: FerryError.self) { try await ferry.checkDeferredDeepLink() }

        transport.setHandler { _ in .encoded(MatchResponse(matched: true, matchType: .deterministic, confidence: 1, isDeferred: true, link: Kit.linkData())) }
        let link = try await ferry.checkDeferredDeepLink()
        #expect(link?.matchType == .deterministic)
        let bodies = try transport.sent(path: FerryRoutes.attributionMatch).map { try Kit.body($0, as: MatchRequest.self) }
        #expect(bodies.count == 4, "three tries, then the next call")
        #expect(bodies.allSatisfy { $0.clickToken == "ferry:clk_0123456789abcdefghijkl" }, "the retry still carries the token")
        #expect(pasteboard.reads == 1)
        #expect(storage.data(forKey: StorageKey.clickToken) == nil, "the token is forgotten once the server has answered")
    }

    @Test func takingTheDeferredLinkHandsItOverOnceEvenAcrossLaunches() async throws {
        let storage = InMemoryStorage()
        let transport = Self.matching()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        let taken = try await withThrowingTaskGroup(of: DeepLink?.self) { group in
            for _ in 0..<10 { group.addTask { try await ferry.takeDeferredDeepLink() } }
            return try await group.reduce(into: [DeepLink]()) { if let link = $1 { $0.append(link) } }
        }
        #expect(taken.count == 1 && taken.first?.slug == "summer")
        let later = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(try await later.takeDeferredDeepLink() == nil)
        #expect(try await later.checkDeferredDeepLink()?.slug == "summer", "checking still reports what the install came from")
    }

    @Test func withoutAnIDFVARandomInstallIDIsMadeOnceAndKept() async throws {
        let storage = InMemoryStorage()
        let transport = Self.matching(.notMatched)
        var options = Kit.options(storage: storage, transport: transport)
        options.deviceSignalsProvider = FixedSignals(idfv: nil)
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        _ = try await ferry.checkDeferredDeepLink()
        let id = try Kit.body(try #require(transport.sent(path: FerryRoutes.attributionMatch).first), as: MatchRequest.self).installID
        #expect(UUID(uuidString: id) != nil)
        options.deviceSignalsProvider = FixedSignals(idfv: "SOMETHING-ELSE")
        let later = try Ferry(apiKey: Kit.key, options: options)
        #expect(await later.identity.id() == id, "the install keeps the id it first went by")
    }

    // MARK: identify

    @Test func identifyBindsTheUserOnceAndAnswersTheSameFromStorage() async throws {
        let storage = InMemoryStorage()
        let answer = AttributeUserResponse(userID: "user-1", attributed: true, matchType: .probabilistic, confidence: 0.93, link: Kit.linkData())
        let transport = ScriptedTransport { request in
            switch request.url?.path {
            case FerryRoutes.attributionMatch?: return .encoded(Self.matched)
            case FerryRoutes.attributionUser?:
                let body = try Kit.body(request, as: AttributeUserRequest.self)
                return .encoded(AttributeUserResponse(userID: body.userID, attributed: true, matchType: answer.matchType, confidence: answer.confidence, link: answer.link))
            default: return .json(404, "{}")
            }
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        let first = try await ferry.identify(userID: "user-1")
        #expect(first.attributed && first.link?.slug == "summer" && first.link?.isDeferred == true)
        // The install was matched before the user was bound.
        let paths = transport.sent.map { $0.url?.path }
        #expect(paths.firstIndex(of: FerryRoutes.attributionMatch)! < paths.firstIndex(of: FerryRoutes.attributionUser)!)
        let body = try Kit.body(try #require(transport.sent(path: FerryRoutes.attributionUser).first), as: AttributeUserRequest.self)
        #expect(body == AttributeUserRequest(installID: FixedSignals().idfv!, userID: "user-1"))

        #expect(try await ferry.identify(userID: "user-1") == first)
        let later = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(try await later.identify(userID: "user-1") == first)
        #expect(transport.sent(path: FerryRoutes.attributionUser).count == 1)

        _ = try await later.identify(userID: "user-2")
        #expect(transport.sent(path: FerryRoutes.attributionUser).count == 2, "another user is bound anew")
    }

    @Test func identifyFailsRatherThanBindTheUserBeforeTheInstallWasMatched() async throws {
        let transport = ScriptedTransport { request in
            request.url?.path == FerryRoutes.attributionMatch ? .json(503, "{}") : .encoded(AttributeUserResponse(userID: "u", attributed: false))
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        await #expect { try await ferry.identify(userID: "u") } throws: { ($0 as? FerryError)?.code == .server }
        #expect(transport.sent(path: FerryRoutes.attributionUser).isEmpty)
    }

    @Test(arguments: ["", "has space", String(repeating: "u", count: 129), "tab\t", "é"])
    func identifyRefusesUnusableUserIDs(userID: String) async throws {
        let transport = ScriptedTransport()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        await #expect { try await ferry.identify(userID: userID) } throws: { ($0 as? FerryError)?.code == .invalidArgument }
        #expect(transport.sent.isEmpty)
    }

    // MARK: Events

    @Test func installAndOpenGoToTheServerInOneBatch() async throws {
        let transport = Self.matching()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        try await waitForPendingEvents(ferry, count: 2)
        await ferry.flushEvents()
        let sent = transport.sent(path: FerryRoutes.events)
        #expect(sent.count == 1)
        let body = try Kit.body(sent[0], as: EventsRequest.self)
        #expect(body.events.map(\.name) == ["install", "open"])
        #expect(body.events.allSatisfy { $0.installID == FixedSignals().idfv })
        #expect(await ferry.pendingEventCount == 0)
    }

    @Test func eventsTheServerCouldNotTakeWaitForTheNextLaunch() async throws {
        let storage = InMemoryStorage()
        let down = ScriptedTransport { _ in .json(503, "{}") }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: down))
        try await waitForPendingEvents(ferry, count: 2)
        await ferry.flushEvents()
        #expect(await ferry.pendingEventCount == 2)

        let up = Self.matching()
        let later = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: up))
        try await waitForPendingEvents(later, count: 3)
        await later.flushEvents()
        let names = try up.sent(path: FerryRoutes.events).flatMap { try Kit.body($0, as: EventsRequest.self).events.map(\.name) }
        #expect(names == ["install", "open", "open"])
    }

    @Test func eventsTheServerRefusesAreDroppedNotResentForever() async throws {
        let transport = ScriptedTransport { _ in .json(400, #"{"error":{"code":"invalid_field","message":"bad event","field":"events[0].name"}}"#) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        try await waitForPendingEvents(ferry, count: 2)
        await ferry.flushEvents()
        #expect(await ferry.pendingEventCount == 0)
        #expect(transport.sent.count == 1)
    }

    @Test func globalAndInstanceSubscribersHearInstallAndOpen() async throws {
        let heard = Collector<FerryEvent.Name>()
        let subscription = Ferry.onEvent { event in
            if event.name == .install || event.name == .open { heard.append(event.name) }
        }
        defer { subscription.cancel() }
        let storage = InMemoryStorage()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: ScriptedTransport()))
        #expect(heard.all.filter { $0 == .install }.count >= 1)
        #expect(heard.all.contains(.open))

        // A subscriber that comes after the instance was made still hears this launch's events.
        let late = Collector<FerryEvent.Name>()
        ferry.onEvent { late.append($0.name) }
        #expect(late.all == [.install, .open])
        let relaunch = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: ScriptedTransport()))
        let second = Collector<FerryEvent.Name>()
        relaunch.onEvent { second.append($0.name) }
        #expect(second.all == [.open])
    }

    func waitForPendingEvents(_ ferry: Ferry, count: Int) async throws {
        for _ in 0..<200 where await ferry.pendingEventCount < count { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(await ferry.pendingEventCount == count)
    }
}
