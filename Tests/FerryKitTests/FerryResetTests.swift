@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Ferry.reset: the install starts over", .takesTurns)
struct FerryResetTests {
    /// The answers of a server that keeps one per install id, as the real one does: the first install it sees came
    /// from `summer`, any later one from `autumn` (a click made after the reset).
    final class Answers: @unchecked Sendable {
        // @unchecked: `slugs` is only touched under `lock`.
        private let lock = NSLock()
        private var slugs: [String: String] = [:]
        var installs: Set<String> { lock.withLock { Set(slugs.keys) } }

        func slug(for installID: String) -> String {
            lock.withLock {
                if let known = slugs[installID] { return known }
                let slug = slugs.isEmpty ? "summer" : "autumn"
                slugs[installID] = slug
                return slug
            }
        }
    }

    static func server(_ answers: Answers) -> ScriptedTransport {
        ScriptedTransport { request in
            switch request.url?.path {
            case FerryRoutes.attributionMatch?:
                let body = try Kit.body(request, as: MatchRequest.self)
                return .encoded(MatchResponse(matched: true, matchType: .probabilistic, confidence: 0.93, isDeferred: true,
                                              link: Kit.linkData(slug: answers.slug(for: body.installID))))
            case FerryRoutes.attributionUser?:
                let body = try Kit.body(request, as: AttributeUserRequest.self)
                return .encoded(AttributeUserResponse(userID: body.userID, attributed: true, matchType: .probabilistic, confidence: 0.93,
                                                      link: Kit.linkData(slug: answers.slug(for: body.installID))))
            default:
                return .json(404, #"{"error":{"code":"not_found","message":"no route","field":null}}"#)
            }
        }
    }

    @Test func aResetInstallIsMatchedAgainAsNew() async throws {
        let storage = InMemoryStorage()
        let answers = Answers(), transport = Self.server(answers)
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        let before = await ferry.installID()
        #expect(before == FixedSignals().idfv)
        #expect(try await ferry.takeDeferredDeepLink()?.slug == "summer")
        #expect(try await ferry.identify(userID: "user_81723").link?.slug == "summer")
        _ = try await ferry.handleDeepLink(URL(string: "myapp://product/42?utm_source=mail")!)
        #expect(ferry.attribution.firstTouch != nil)
        try await DeferredDeepLinkTests().waitForPendingEvents(ferry, count: 2)

        ferry.reset()
        let after = await ferry.installID()
        #expect(after != before && after != FixedSignals().idfv, "a new random id, not the IDFV the server knows")
        #expect(ferry.attribution.firstTouch == nil && ferry.attribution.lastTouch == nil)
        #expect(await ferry.pendingEventCount == 0)
        #expect(storage.data(forKey: StorageKey.firstLaunch) == nil)

        // Asked again, under the new id, and handed over again.
        #expect(try await ferry.takeDeferredDeepLink()?.slug == "autumn")
        #expect(answers.installs == [before, after])
        #expect(try await ferry.identify(userID: "user_81723").link?.slug == "autumn", "not the answer kept before the reset")

        // The next launch is a first launch of the new install, whose answer is now kept.
        let relaunch = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(relaunch.isFirstLaunch)
        #expect(await relaunch.installID() == after)
        try await DeferredDeepLinkTests().waitForPendingEvents(relaunch, count: 2)
        let matches = transport.sent(path: FerryRoutes.attributionMatch).count
        #expect(try await relaunch.checkDeferredDeepLink()?.slug == "autumn")
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == matches)
    }

    @Test func theKeyCheckAndTheSwitchOutliveAReset() throws {
        let storage = InMemoryStorage()
        let cached = CachedValidation(keyFingerprint: CachedValidation.fingerprint(of: Kit.key), validatedAt: Date(), settings: Kit.validation())
        storage.setValue(cached, forKey: StorageKey.validation)
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: ScriptedTransport()))
        ferry.setEnabled(false)
        Ferry.reset(on: nil, fallback: storage)
        #expect(storage.data(forKey: StorageKey.validation) != nil)
        #expect(!ferry.isEnabled)
        #expect(storage.value(String.self, forKey: StorageKey.installID) != FixedSignals().idfv)
        #expect(storage.keys.sorted() == [StorageKey.installID, StorageKey.validation, StorageKey.disabled].sorted())
    }
}
