// watchOS has UIKit's drawing types but neither its screen, its device nor its scenes: FerryKit uses Foundation alone there.
#if canImport(UIKit) && !os(watchOS)
import UIKit

/// ``DeviceSignalsProvider`` from UIKit: the main screen's size and scale, time zone, preferred languages,
/// OS version, hardware model and the IDFV. The default on iOS, iPadOS, Mac Catalyst, tvOS and visionOS; visionOS
/// has no screen to measure, so no screen is sent from there.
public struct UIKitDeviceSignalsProvider: DeviceSignalsProvider {
    /// Creates the provider.
    public init() {}

    /// Reads the screen and device on the main actor.
    public func signals() async -> DeviceSignals {
        let (screen, osVersion) = await MainActor.run { (Self.mainScreen(), UIDevice.current.systemVersion) }
        return DeviceSignals(
            platform: PortableDeviceSignalsProvider.currentPlatform, osVersion: osVersion, model: DeviceInfo.hardwareModel,
            screenWidth: screen?.width, screenHeight: screen?.height, screenScale: screen?.scale,
            timeZone: TimeZone.current.identifier, timeZoneOffsetSeconds: TimeZone.current.secondsFromGMT(),
            languages: DeviceInfo.preferredLanguages)
    }

    /// `UIDevice.identifierForVendor`.
    public func installIdentifier() async -> String? {
        await MainActor.run { UIDevice.current.identifierForVendor?.uuidString }
    }

    /// The main screen in portrait points; nil on visionOS, where windows float in the room.
    @MainActor
    static func mainScreen() -> PortableDeviceSignalsProvider.Screen? {
        #if os(visionOS)
        return nil
        #else
        let screen = UIScreen.main
        let bounds = screen.bounds
        return PortableDeviceSignalsProvider.Screen(
            width: Int(min(bounds.width, bounds.height)), height: Int(max(bounds.width, bounds.height)), scale: Double(screen.scale))
        #endif
    }
}

// tvOS has no pasteboard (nor has watchOS, left out above).
#if !os(tvOS)
/// ``ClickTokenProvider`` that reads the general pasteboard for a `ferry:clk_…` token the link's page copied.
///
/// Reading the pasteboard makes iOS 16 and later ask the user whether the app may paste; opt in only when your
/// links use "copy to open" (`ferry app update --copy-to-open`), and say why in your onboarding. FerryKit asks
/// it only on the first launch, keeps a token it read until the server has answered, and never asks again after that.
public struct PasteboardClickTokenProvider: ClickTokenProvider {
    /// Creates the provider.
    public init() {}

    /// The token on the pasteboard, cleared after reading; nil when the pasteboard holds something else.
    public func clickToken() async -> String? {
        await MainActor.run {
            let pasteboard = UIPasteboard.general
            guard pasteboard.hasStrings, let text = pasteboard.string, text.hasPrefix("ferry:clk_"), text.utf8.count <= 64 else { return nil }
            pasteboard.string = ""
            return text
        }
    }
}
#endif
#endif
