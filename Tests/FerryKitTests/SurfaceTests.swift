@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing

/// Every public async call of `Ferry` comes in four forms: async on an instance, with a completion on the main actor,
/// and both again as static members on the shared instance. The table below names each form; it is never run, it
/// only has to compile, so a form that goes missing (or changes its shape) fails the build of this test.
@Suite("The public surface", .takesTurns)
struct SurfaceTests {
    typealias Done<Value> = Ferry.Completion<Value>

    struct Call {
        let name: String
        let forms: [Any]
    }

    static let url = URL(string: "myapp://product/42")!
    static let builder = LinkBuilder(destination: URL(string: "https://example.com/")!)

    /// Each async call with its completion twin, its static form and the static form's completion twin.
    static var calls: [Call] { [
        Call(name: "handleDeepLink(_:)", forms: [
            { (f: Ferry) async throws(FerryError) -> DeepLink? in try await f.handleDeepLink(url) },
            { (f: Ferry, done: @escaping Done<DeepLink?>) in f.handleDeepLink(url, completion: done) },
            { () async throws(FerryError) -> DeepLink? in try await Ferry.handleDeepLink(url) },
            { (done: @escaping Done<DeepLink?>) in Ferry.handleDeepLink(url, completion: done) },
        ]),
        Call(name: "checkDeferredDeepLink()", forms: [
            { (f: Ferry) async throws(FerryError) -> DeepLink? in try await f.checkDeferredDeepLink() },
            { (f: Ferry, done: @escaping Done<DeepLink?>) in f.checkDeferredDeepLink(completion: done) },
            { () async throws(FerryError) -> DeepLink? in try await Ferry.checkDeferredDeepLink() },
            { (done: @escaping Done<DeepLink?>) in Ferry.checkDeferredDeepLink(completion: done) },
        ]),
        Call(name: "checkDeferredDeepLink(pasted:)", forms: [
            { (f: Ferry) async throws(FerryError) -> DeepLink? in try await f.checkDeferredDeepLink(pasted: []) },
            { (f: Ferry, done: @escaping Done<DeepLink?>) in f.checkDeferredDeepLink(pasted: [], completion: done) },
            { () async throws(FerryError) -> DeepLink? in try await Ferry.checkDeferredDeepLink(pasted: []) },
            { (done: @escaping Done<DeepLink?>) in Ferry.checkDeferredDeepLink(pasted: [], completion: done) },
        ]),
        Call(name: "takeDeferredDeepLink()", forms: [
            { (f: Ferry) async throws(FerryError) -> DeepLink? in try await f.takeDeferredDeepLink() },
            { (f: Ferry, done: @escaping Done<DeepLink?>) in f.takeDeferredDeepLink(completion: done) },
            { () async throws(FerryError) -> DeepLink? in try await Ferry.takeDeferredDeepLink() },
            { (done: @escaping Done<DeepLink?>) in Ferry.takeDeferredDeepLink(completion: done) },
        ]),
        Call(name: "shortLink(for:)", forms: [
            { (f: Ferry) async throws(FerryError) -> URL in try await f.shortLink(for: builder) },
            { (f: Ferry, done: @escaping Done<URL>) in f.shortLink(for: builder, completion: done) },
            { () async throws(FerryError) -> URL in try await Ferry.shortLink(for: builder) },
            { (done: @escaping Done<URL>) in Ferry.shortLink(for: builder, completion: done) },
        ]),
        Call(name: "createLink(for:)", forms: [
            { (f: Ferry) async throws(FerryError) -> ShortLink in try await f.createLink(for: builder) },
            { (f: Ferry, done: @escaping Done<ShortLink>) in f.createLink(for: builder, completion: done) },
            { () async throws(FerryError) -> ShortLink in try await Ferry.createLink(for: builder) },
            { (done: @escaping Done<ShortLink>) in Ferry.createLink(for: builder, completion: done) },
        ]),
        Call(name: "identify(userID:)", forms: [
            { (f: Ferry) async throws(FerryError) -> UserAttribution in try await f.identify(userID: "u") },
            { (f: Ferry, done: @escaping Done<UserAttribution>) in f.identify(userID: "u", completion: done) },
            { () async throws(FerryError) -> UserAttribution in try await Ferry.identify(userID: "u") },
            { (done: @escaping Done<UserAttribution>) in Ferry.identify(userID: "u", completion: done) },
        ]),
        Call(name: "installID()", forms: [
            // The instance's cannot fail: its completion gets the id itself.
            { (f: Ferry) async -> String in await f.installID() },
            { (f: Ferry, done: @escaping @MainActor @Sendable (String) -> Void) in f.installID(completion: done) },
            { () async throws(FerryError) -> String in try await Ferry.installID() },
            { (done: @escaping Done<String>) in Ferry.installID(completion: done) },
        ]),
        Call(name: "validateKey()", forms: [
            { (f: Ferry) async throws(FerryError) -> SDKValidateResponse in try await f.validateKey() },
            { (f: Ferry, done: @escaping Done<SDKValidateResponse>) in f.validateKey(completion: done) },
            { () async throws(FerryError) -> SDKValidateResponse in try await Ferry.validateKey() },
            { (done: @escaping Done<SDKValidateResponse>) in Ferry.validateKey(completion: done) },
        ]),
        Call(name: "flushEvents()", forms: [
            // Nothing to return and nothing to fail: the completion only says it is done.
            { (f: Ferry) async in await f.flushEvents() },
            { (f: Ferry, done: @escaping @MainActor @Sendable () -> Void) in f.flushEvents(completion: done) },
            { () async in await Ferry.flushEvents() },
            { (done: @escaping @MainActor @Sendable () -> Void) in Ferry.flushEvents(completion: done) },
        ]),
    ] }

    /// Public async members without the other forms, and why.
    static let exceptions: [String: String] = [
        "pendingEventCount": "an async property for tests and diagnostics: a property takes no completion, and it is read on an instance",
        "handle(userActivity:)": "UIKit delegate convenience over handleDeepLink(_:); Ferry.url(of:) with handleDeepLink(_:completion:) is its twin",
        "handle(connectionOptions:)": "UIKit delegate convenience over handleDeepLink(_:), used on the instance the delegate holds",
        "handle(urlContexts:)": "UIKit delegate convenience over handleDeepLink(_:), used on the instance the delegate holds",
    ]

    @Test func everyPublicAsyncCallHasItsCompletionTwinAndItsStaticForms() {
        #expect(Self.calls.allSatisfy { $0.forms.count == 4 })
        #expect(Set(Self.calls.map(\.name)).count == Self.calls.count)
        #expect(Set(Self.calls.map(\.name)).isDisjoint(with: Self.exceptions.keys))
        #expect(Self.exceptions.values.allSatisfy { !$0.isEmpty })
    }

    @Test func theNewTwinsAnswerOnTheMainActor() async throws {
        let transport = ScriptedTransport { request in
            switch request.url?.path {
            case FerryRoutes.attributionMatch?:
                return .encoded(MatchResponse(matched: true, matchType: .deterministic, confidence: 1, isDeferred: true, link: Kit.linkData()))
            case FerryRoutes.sdkValidate?: return .encoded(Kit.validation())
            case FerryRoutes.attributionUser?: return .encoded(AttributeUserResponse(userID: "user-1", attributed: true))
            case FerryRoutes.links?: return .encoded(ShortLink(id: "lnk_1", url: URL(string: "https://go.example.com/k3v9x2q")!, domain: "go.example.com", slug: "k3v9x2q"))
            default: return .json(404, #"{"error":{"code":"not_found","message":"no route","field":null}}"#)
            }
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        func answer<Value: Sendable>(_ call: (@escaping Done<Value>) -> Void) async -> Result<Value, FerryError> {
            await withCheckedContinuation { continuation in
                call { result in
                    MainActor.assertIsolated()
                    continuation.resume(returning: result)
                }
            }
        }
        #expect(try await answer { ferry.takeDeferredDeepLink(completion: $0) }.get()?.slug == "summer")
        #expect(try await answer { ferry.takeDeferredDeepLink(completion: $0) }.get() == nil, "handed over once")
        #expect(try await answer { ferry.createLink(for: Self.builder, completion: $0) }.get().slug == "k3v9x2q")
        #expect(try await answer { ferry.identify(userID: "user-1", completion: $0) }.get().attributed)
        #expect(try await answer { ferry.validateKey(completion: $0) }.get().appName == "Example")
        let failure = await answer { ferry.identify(userID: "has space", completion: $0) }
        #expect(throws: FerryError.self) { try failure.get() }
        let id: String = await withCheckedContinuation { continuation in
            ferry.installID { id in
                MainActor.assertIsolated()
                continuation.resume(returning: id)
            }
        }
        #expect(id == "6F1D2C3B-0000-4000-8000-000000000001")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            ferry.flushEvents {
                MainActor.assertIsolated()
                continuation.resume()
            }
        }
    }
}
