@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("FerryOptions.deviceSignals: what the match request tells of the device", .takesTurns)
struct DeviceSignalsPolicyTests {
    /// A provider with a patch version and two languages, counting how often it is asked.
    final class CountingSignals: DeviceSignalsProvider, @unchecked Sendable {
        // @unchecked: `asked` is only touched under `lock`.
        private let lock = NSLock()
        private var asked = 0
        var count: Int { lock.withLock { asked } }
        func signals() async -> DeviceSignals {
            lock.withLock { asked += 1 }
            return DeviceSignals(platform: "ios", osVersion: "18.1.2", model: "iPhone16,1", screenWidth: 393, screenHeight: 852, screenScale: 3,
                                 timeZone: "Europe/Paris", timeZoneOffsetSeconds: 3600, languages: ["fr-FR", "en-US"])
        }
        func installIdentifier() async -> String? { "6F1D2C3B-0000-4000-8000-000000000001" }
    }

    static func match(_ policy: DeviceSignalsPolicy?, provider: CountingSignals = CountingSignals()) async throws -> (URLRequest, [String: Any]) {
        let transport = DeferredDeepLinkTests.matching()
        var options = Kit.options(transport: transport)
        options.deviceSignalsProvider = provider
        options.clickTokenProvider = PrivacyServer.TokenOnThePasteboard()
        if let policy { options.deviceSignals = policy }
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        _ = try await ferry.checkDeferredDeepLink()
        let request = try #require(transport.sent(path: FerryRoutes.attributionMatch).first)
        return (request, try #require(try JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: Any]))
    }

    @Test func allIsTheDefaultAndSendsEverySignalAsTheProviderTellsIt() async throws {
        #expect(FerryOptions(serverURL: Kit.server).deviceSignals == .all)
        let (request, _) = try await Self.match(nil)
        let body = try Kit.body(request, as: MatchRequest.self)
        #expect(body.signals == (await CountingSignals().signals()))
        let agent = try #require(request.value(forHTTPHeaderField: "User-Agent"))
        #expect(agent.hasPrefix("FerryKit/\(Ferry.sdkVersion) (\(PortableDeviceSignalsProvider.currentPlatform) ") && agent.contains("; "))
    }

    @Test func minimalSendsThePlatformTheOSVersionToMajorMinorAndTheFirstLanguage() async throws {
        let (request, json) = try await Self.match(.minimal)
        let body = try Kit.body(request, as: MatchRequest.self)
        #expect(body.signals == DeviceSignals(platform: "ios", osVersion: "18.1", languages: ["fr-FR"]))
        #expect((json["signals"] as? [String: Any])?.keys.sorted() == ["languages", "osVersion", "platform"])
        #expect(body.installID == "6F1D2C3B-0000-4000-8000-000000000001")
        #expect(body.clickToken == "ferry:clk_0123456789abcdefghijkl")
        // The User-Agent names the platform and OS version, not the model.
        let agent = try #require(request.value(forHTTPHeaderField: "User-Agent"))
        #expect(agent == "FerryKit/\(Ferry.sdkVersion) (\(PortableDeviceSignalsProvider.currentPlatform) \(DeviceSignalsPolicy.majorMinor(DeviceInfo.osVersion)))")
    }

    @Test func noneSendsTheInstallIDAndTheClickTokenOnlyAndNeverAsksForTheSignals() async throws {
        let provider = CountingSignals()
        let (request, json) = try await Self.match(DeviceSignalsPolicy.none, provider: provider)
        #expect(provider.count == 0, "the screen and the rest are not even read")
        #expect((json["signals"] as? [String: Any])?.isEmpty == true)
        let body = try Kit.body(request, as: MatchRequest.self)
        #expect(body.installID == "6F1D2C3B-0000-4000-8000-000000000001")
        #expect(body.clickToken == "ferry:clk_0123456789abcdefghijkl")
        #expect(request.value(forHTTPHeaderField: "User-Agent") == "FerryKit/\(Ferry.sdkVersion)")
    }

    @Test(arguments: [DeviceSignalsPolicy.minimal, .none])
    func theUserAgentOfEveryRequestFollowsTheChoice(policy: DeviceSignalsPolicy) async throws {
        let transport = PrivacyServer.make()
        var options = Kit.options(transport: transport)
        options.deviceSignals = policy
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        try await ferry.validateKey()
        _ = try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)
        _ = try await ferry.identify(userID: "user_81723")
        #expect(transport.sent.count >= 3)
        for request in transport.sent { #expect(request.value(forHTTPHeaderField: "User-Agent") == Ferry.userAgent(sending: policy)) }
        #expect(!Ferry.userAgent(sending: policy).contains(DeviceInfo.hardwareModel ?? "unknown"))
    }

    @Test func theOSVersionIsCutToMajorMinor() {
        #expect(DeviceSignalsPolicy.majorMinor("18.1.2") == "18.1")
        #expect(DeviceSignalsPolicy.majorMinor("18.1") == "18.1")
        #expect(DeviceSignalsPolicy.majorMinor("26") == "26")
        #expect(DeviceSignalsPolicy.minimal.apply(to: DeviceSignals(languages: [])) == DeviceSignals())
        #expect(DeviceSignalsPolicy.none.apply(to: DeviceSignals(platform: "ios")) == DeviceSignals())
    }
}
