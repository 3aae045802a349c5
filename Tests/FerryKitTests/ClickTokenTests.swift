@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Copy to open: click tokens, the pasteboard and the paste button", .takesTurns)
struct ClickTokenTests {
    static let id = "clk_PLsXYaao52SOJN9Ibp1hQG"

    @Test(arguments: [
        ("ferry:\(id)", "ferry:\(id)"),
        ("  ferry:\(id)\n", "ferry:\(id)"),
        (id, "ferry:\(id)"),
        ("https://go.example.com/summer?ferry_click_id=\(id)&utm_source=mail", "ferry:\(id)"),
        ("HTTP://go.example.com/?ferry_click_id=\(id)", "ferry:\(id)"),
    ])
    func theInterstitialsTokenABareClickIDAndALinkCarryingOneAreTokens(text: String, token: String) {
        #expect(ClickToken.extract(from: text) == token)
    }

    @Test(arguments: [
        "", "   ", "ferry:", "ferry:clk_", "ferry:clk_short", "ferry:\(id)x", "ferry:\(id) and more", "Ferry:\(id)",
        "FERRY:\(id)", "ferry:clk_PLsXYaao52SOJN9Ibp1hQ!", "ferry:clk_PLsXYaao52SOJN9Ibp1hQ٣", "ferry://\(id)",
        "ferry:\(id)\r\nX-Injected: 1", "123456", "https://go.example.com/summer", "https://go.example.com/?ferry_click_id=clk_1",
        "javascript:alert(1)//?ferry_click_id=\(id)", "myapp://open?ferry_click_id=\(id)", "https:///?ferry_click_id=\(id)",
        "https://go.example.com/?ferry_click_id=\(id)" + String(repeating: "&x=1", count: 600),
        String(repeating: "ferry:\(id)", count: 1000),
    ])
    func anythingElseIsNotAToken(text: String) {
        #expect(ClickToken.extract(from: text) == nil)
    }

    @Test func thePasteIsSearchedForTheFirstToken() {
        #expect(ClickToken.extract(fromAny: ["hello", "https://example.com/", "ferry:\(Self.id)"]) == "ferry:\(Self.id)")
        #expect(ClickToken.extract(fromAny: ["hello"]) == nil)
        #expect(ClickToken.extract(fromAny: []) == nil)
    }

    @Test func thePasteboardIsReadOnlyWhenItMayHoldAToken() {
        typealias Probe = PasteboardProbe
        // Nothing, or something other than text: no read, no prompt.
        #expect(Probe(hasStrings: false, hasURLs: false).read(linksOnly: false) == .nothing)
        // A copied one-time code is a number, which a token never is.
        #expect(Probe(hasStrings: true, hasURLs: false, number: true).read(linksOnly: false) == .nothing)
        // The interstitial's token is plain text: read it, unless only links are wanted.
        #expect(Probe(hasStrings: true, hasURLs: false).read(linksOnly: false) == .strings)
        #expect(Probe(hasStrings: true, hasURLs: false).read(linksOnly: true) == .nothing)
        // A link may carry a click id.
        #expect(Probe(hasStrings: true, hasURLs: false, probableWebURL: true).read(linksOnly: true) == .strings)
        #expect(Probe(hasStrings: true, hasURLs: true).read(linksOnly: true) == .urls)
        #expect(Probe(hasStrings: false, hasURLs: true).read(linksOnly: false) == .urls)
    }

    /// A pasteboard whose content changes when a test says so, and that records being cleared.
    final class FakePasteboard: PasteboardAccess {
        let state = Locked((changeCount: 7, clears: [Int](), cleared: false))
        func changeCount() async -> Int { state.withLock { $0.changeCount } }
        func clear(ifChangeCountIs count: Int) async {
            state.withLock { state in
                state.clears.append(count)
                if state.changeCount == count { state.cleared = true }
            }
        }
        func change() { state.withLock { $0.changeCount += 1 } }
    }

    static func matching(_ arrived: Latch? = nil, answer: Latch? = nil) -> ScriptedTransport {
        ScriptedTransport(answeringTheMatch(arrived, answer: answer))
    }

    /// A server that matches with certainty when the match request carries a click token, and not otherwise; it opens
    /// `arrived` when the request comes and answers once `answer` is open.
    static func answeringTheMatch(_ arrived: Latch? = nil, answer: Latch? = nil) -> ScriptedTransport.Handler {
        { request in
            guard request.url?.path == FerryRoutes.attributionMatch else { return .json(404, "{}") }
            arrived?.open()
            await answer?.wait()
            let body = try Kit.body(request, as: MatchRequest.self)
            return .encoded(body.clickToken == nil ? MatchResponse.notMatched
                : MatchResponse(matched: true, matchType: .deterministic, confidence: 1, isDeferred: true, link: Kit.linkData()))
        }
    }

    func ferry(_ transport: ScriptedTransport, storage: InMemoryStorage = InMemoryStorage(), pasteboard: FakePasteboard) throws -> Ferry {
        var options = Kit.options(storage: storage, transport: transport)
        options.pasteboardAccess = pasteboard
        return try Ferry(apiKey: Kit.key, options: options)
    }

    @Test func aPastedTokenIsSentAndThePasteboardClearedOnceTheServerHasAnswered() async throws {
        let transport = Self.matching(), pasteboard = FakePasteboard(), storage = InMemoryStorage()
        let ferry = try ferry(transport, storage: storage, pasteboard: pasteboard)
        let link = try await ferry.checkDeferredDeepLink(pasted: ["some text", "ferry:\(Self.id)"])
        #expect(link?.matchType == .deterministic)
        let body = try Kit.body(try #require(transport.sent(path: FerryRoutes.attributionMatch).first), as: MatchRequest.self)
        #expect(body.clickToken == "ferry:\(Self.id)")
        #expect(pasteboard.state.withLock { $0.cleared }, "the pasteboard still held the token, so it is cleared")
        #expect(storage.data(forKey: StorageKey.clickToken) == nil)
        // Later calls answer from storage and leave the pasteboard alone.
        #expect(try await ferry.checkDeferredDeepLink(pasted: ["ferry:\(Self.id)"])?.slug == "summer")
        #expect(pasteboard.state.withLock { $0.clears.count } == 1)
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1)
    }

    @Test func aPasteboardThatChangedMeanwhileIsLeftAlone() async throws {
        let arrived = Latch(), answer = Latch(), pasteboard = FakePasteboard()
        let ferry = try ferry(Self.matching(arrived, answer: answer), pasteboard: pasteboard)
        let check = Task { try await ferry.checkDeferredDeepLink(pasted: ["ferry:\(Self.id)"]) }
        await arrived.wait()
        pasteboard.change()  // the user copied something else while the request was under way
        answer.open()
        #expect(try await check.value?.matchType == .deterministic)
        #expect(pasteboard.state.withLock { $0.clears } == [7])
        #expect(pasteboard.state.withLock { $0.cleared } == false)
    }

    @Test func aFailedCheckKeepsThePastedTokenForTheNextOneAndLeavesThePasteboard() async throws {
        let transport = ScriptedTransport { _ in throw URLError(.notConnectedToInternet) }
        let pasteboard = FakePasteboard(), storage = InMemoryStorage()
        let ferry = try ferry(transport, storage: storage, pasteboard: pasteboard)
        await #expect { try await ferry.checkDeferredDeepLink(pasted: ["ferry:\(Self.id)"]) } throws: { ($0 as? FerryError)?.code == .network }
        #expect(pasteboard.state.withLock { $0.clears.isEmpty })
        #expect(storage.value(String.self, forKey: StorageKey.clickToken) == "ferry:\(Self.id)")
        transport.setHandler(Self.answeringTheMatch())
        #expect(try await ferry.checkDeferredDeepLink()?.matchType == .deterministic, "the next check still carries it")
    }

    @Test func aPasteWithoutATokenIsAnOrdinaryCheck() async throws {
        let transport = Self.matching(), pasteboard = FakePasteboard()
        let ferry = try ferry(transport, pasteboard: pasteboard)
        #expect(try await ferry.checkDeferredDeepLink(pasted: ["123456", "https://example.com/"]) == nil)
        let body = try Kit.body(try #require(transport.sent(path: FerryRoutes.attributionMatch).first), as: MatchRequest.self)
        #expect(body.clickToken == nil)
        #expect(pasteboard.state.withLock { $0.clears.isEmpty })
    }

    @Test func aPasteThatComesWhileACheckWithoutItIsUnderWayIsNotUsedNorCleared() async throws {
        let arrived = Latch(), answer = Latch(), pasteboard = FakePasteboard(), storage = InMemoryStorage()
        let transport = Self.matching(arrived, answer: answer)
        let ferry = try ferry(transport, storage: storage, pasteboard: pasteboard)
        let plain = Task { try await ferry.checkDeferredDeepLink() }
        await arrived.wait()
        let pasted = Task { try await ferry.checkDeferredDeepLink(pasted: ["ferry:\(Self.id)"]) }
        for _ in 0..<1000 where storage.data(forKey: StorageKey.clickToken) == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        answer.open()
        #expect(try await plain.value == nil)
        #expect(try await pasted.value == nil, "the request under way answered for both")
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1)
        #expect(storage.data(forKey: StorageKey.clickToken) == nil, "the unused token is not kept")
        #expect(pasteboard.state.withLock { $0.clears.isEmpty }, "the pasteboard keeps what was not used")
    }

    @Test func theProviderHearsWhenItsTokenWasUsed() async throws {
        final class Provider: ClickTokenProvider {
            let used = Collector<String>()
            func clickToken() async -> String? { "ferry:\(ClickTokenTests.id)" }
            func clickTokenUsed(_ token: String) async { used.append(token) }
        }
        let provider = Provider()
        let transport = ScriptedTransport { _ in .json(503, "{}") }
        var options = Kit.options(transport: transport)
        options.clickTokenProvider = provider
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        await #expect(throws: FerryError.self) { try await ferry.checkDeferredDeepLink() }
        #expect(provider.used.all.isEmpty, "not before the server has answered")
        transport.setHandler(Self.answeringTheMatch())
        #expect(try await ferry.checkDeferredDeepLink()?.matchType == .deterministic)
        #expect(provider.used.all == ["ferry:\(Self.id)"])
    }
}
