@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Ferry.setEnabled: turned off, FerryKit sends nothing", .takesTurns)
struct FerryEnabledTests {
    static let shortLink = URL(string: "https://go.example.com/summer?utm_source=mail&coupon=SPRING")!
    static let longLink = URL(string: "https://go.example.com/?link=https%3A%2F%2Fexample.com%2Fsale&ibi=com.example.app")!

    /// An instance on `storage` that would check its key at launch, with "copy to open".
    static func launch(_ storage: any FerryStorage, _ transport: ScriptedTransport) throws -> Ferry {
        var options = Kit.options(storage: storage, transport: transport, validate: true)
        options.clickTokenProvider = PrivacyServer.TokenOnThePasteboard()
        return try Ferry(apiKey: Kit.key, options: options)
    }

    @Test func turnedOffNothingIsSentAndWhatTheDeviceKnowsStillWorks() async throws {
        let storage = InMemoryStorage()
        try Self.launch(storage, ScriptedTransport()).setEnabled(false)

        // The next launch: a first launch still (nothing was matched), turned off from the start.
        let transport = PrivacyServer.make()
        let ferry = try Self.launch(storage, transport)
        #expect(!ferry.isEnabled)
        #expect(ferry.validationTask.withLock { $0 } == nil, "no key check at launch")
        await #expect { try await ferry.validateKey() } throws: { ($0 as? FerryError)?.code == .disabled }
        #expect(try await ferry.checkDeferredDeepLink() == nil)
        #expect(try await ferry.takeDeferredDeepLink() == nil)

        let custom = try #require(try await ferry.handleDeepLink(URL(string: "myapp://product/42?coupon=SPRING")!))
        #expect(custom.source == .customScheme && custom.params == ["coupon": "SPRING"])
        let short = try #require(try await ferry.handleDeepLink(Self.shortLink))
        #expect(short.source == .universalLink && short.slug == "summer" && short.url == Self.shortLink)
        #expect(short.linkID == nil && short.destination == nil && short.iosURL == nil && short.routingURL == Self.shortLink)
        #expect(short.params == ["coupon": "SPRING"] && short.utm.source == "mail")
        let long = try #require(try await ferry.handleDeepLink(Self.longLink))
        // Read from its URL as any link the server could not be asked about: its `link` is what the app routes on.
        #expect(long.source == .universalLink && long.slug == nil && long.url == Self.longLink && !long.isResolved && !short.isResolved)
        #expect(long.destination?.absoluteString == "https://example.com/sale")
        #expect(ferry.attribution.lastTouch?.url == Self.longLink.absoluteString, "touches are kept on the device")

        await #expect { try await ferry.identify(userID: "user_81723") } throws: { ($0 as? FerryError)?.code == .disabled }
        await #expect { try await ferry.shortLink(for: LinkBuilderTests.full) } throws: { ($0 as? FerryError)?.code == .disabled }
        await ferry.flushEvents()
        #expect(await ferry.pendingEventCount == 0, "the install and open events of this launch were dropped")
        #expect(transport.sent.isEmpty)
        #expect(storage.data(forKey: StorageKey.deferred) == nil, "nothing stored in place of a match")
        #expect(storage.data(forKey: StorageKey.clickToken) == nil, "the pasteboard was not read")
    }

    @Test func theSettingOutlastsTheLaunchAndTurningBackOnMatchesTheInstall() async throws {
        let storage = InMemoryStorage()
        let first = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: ScriptedTransport()))
        #expect(first.isEnabled)
        first.setEnabled(false)
        #expect(!first.isEnabled)

        let transport = PrivacyServer.make()
        let second = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(!second.isEnabled)
        #expect(try await second.checkDeferredDeepLink() == nil)
        #expect(transport.sent.isEmpty)

        second.setEnabled(true)
        #expect(second.isEnabled && first.isEnabled, "one setting per storage")
        #expect(try await second.checkDeferredDeepLink()?.slug == "summer", "asked now, within the window")
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1)
        let third = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: ScriptedTransport()))
        #expect(third.isEnabled)
    }

    @Test func turningOffDropsTheEventsWaitingAndNoneAreQueuedUntilItIsBackOn() async throws {
        let storage = InMemoryStorage()
        let transport = PrivacyServer.make()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        try await DeferredDeepLinkTests().waitForPendingEvents(ferry, count: 2)
        ferry.setEnabled(false)
        #expect(await ferry.pendingEventCount == 0)
        #expect(storage.data(forKey: EventUploader.storageKey) == nil)
        await ferry.flushEvents()

        ferry.setEnabled(true)
        let later = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        try await DeferredDeepLinkTests().waitForPendingEvents(later, count: 1)
        await later.flushEvents()
        let names = try transport.sent(path: FerryRoutes.events).flatMap { try Kit.body($0, as: EventsRequest.self).events.map(\.name) }
        #expect(names == ["open"], "the install and open dropped when FerryKit was turned off are never sent")
    }

    @Test func aRequestUnderWayIsNotTriedAgainOnceTurnedOff() async throws {
        let transport = ScriptedTransport()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        transport.setHandler { _ in
            ferry.setEnabled(false)
            return .json(503, "{}")
        }
        await #expect { try await ferry.checkDeferredDeepLink() } throws: { ($0 as? FerryError)?.code == .disabled }
        #expect(transport.sent.count == 1, "the first try went out; its retries did not")
    }

    @Test func theStaticFormUsesTheSharedInstanceElseTheDefaultStorage() throws {
        let storage = InMemoryStorage()
        Ferry.setEnabled(false, on: nil, fallback: storage)
        #expect(!Ferry.isEnabled(in: storage))
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: ScriptedTransport(), validate: true))
        #expect(!ferry.isEnabled && ferry.validationTask.withLock { $0 } == nil, "configured after, it starts turned off")
        Ferry.setEnabled(true, on: ferry, fallback: InMemoryStorage())
        #expect(ferry.isEnabled)
    }
}
