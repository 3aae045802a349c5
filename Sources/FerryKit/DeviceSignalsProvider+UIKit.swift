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
/// ``ClickTokenProvider`` that reads the general pasteboard for the click token the link's page copied ("copy to
/// open"), only when the pasteboard may hold one.
///
/// Reading the pasteboard makes iOS 16 and later ask the user whether the app may paste. The provider first asks
/// what the pasteboard holds without reading it (`hasStrings`, `hasURLs`, and `detectPatterns` for a web URL or a
/// number, none of which shows the prompt), and by default reads it only when it holds a URL, which is how the
/// link's page copies the click (`https://go.example.com/summer?ferry_click_id=clk_…`): an empty pasteboard, an
/// image, copied text or a one-time code never prompts (see ``Reading``). It takes `ferry:clk_…`, `clk_…`, or a
/// link carrying `ferry_click_id=clk_…`, and ignores anything else. FerryKit asks it
/// only on the first launch, keeps a token it read until the server has answered, and then clears the pasteboard
/// if it has not changed since (it still holds the token).
///
/// Opt in only when your links use "copy to open" (`ferry app update --copy-to-open`), and say why in your
/// onboarding; or leave the pasteboard alone and offer a paste button
/// (``Ferry/checkDeferredDeepLink(pasted:)-swift.method``), which shows no prompt.
public struct PasteboardClickTokenProvider: ClickTokenProvider {
    /// When the provider reads the pasteboard (which shows the paste prompt).
    public enum Reading: Sendable, Hashable {
        /// Only when it holds a URL or text iOS takes for a web URL. The link's page copies the click as a link
        /// carrying `ferry_click_id=clk_…` (beside the `ferry:clk_…` text older apps read), so other text never
        /// prompts. The default.
        case linksOnly
        /// When it holds a URL, or text that is not a number: also the token as plain text alone, which a page
        /// copies in a browser that cannot put a URL on the pasteboard (none on iOS today), at the cost of a
        /// prompt whenever the user has copied text.
        case textOrLinks
    }

    /// When the provider reads the pasteboard.
    public var reading: Reading
    /// The token this provider read, and the pasteboard's change count then.
    private let read = Locked<(token: String, changeCount: Int)?>(nil)

    /// Creates the provider.
    public init(reading: Reading = .linksOnly) {
        self.reading = reading
    }

    /// The click token on the pasteboard, or nil, without reading the pasteboard when it cannot hold one.
    public func clickToken() async -> String? {
        let what = await GeneralPasteboard.probe().read(linksOnly: reading == .linksOnly)
        guard what != .nothing else { return nil }
        let (texts, changeCount) = await MainActor.run { () -> ([String], Int) in
            let pasteboard = UIPasteboard.general
            let texts = what == .urls ? (pasteboard.urls ?? []).map(\.absoluteString) : (pasteboard.strings ?? [])
            return (texts, pasteboard.changeCount)
        }
        guard let token = ClickToken.extract(fromAny: texts) else { return nil }
        read.withLock { $0 = (token, changeCount) }
        return token
    }

    /// Clears the pasteboard when `token` is the one this provider read and the pasteboard has not changed since.
    public func clickTokenUsed(_ token: String) async {
        guard let read = read.withLock({ $0 }), read.token == token else { return }
        await GeneralPasteboard().clear(ifChangeCountIs: read.changeCount)
    }

    /// Whether the pasteboard may hold a click token, asked without reading it (no prompt): for a first screen that
    /// shows a paste button only when there may be something to paste.
    public static func pasteboardMayHoldClickToken() async -> Bool {
        await GeneralPasteboard.probe().read(linksOnly: false) != .nothing
    }
}

/// The general pasteboard.
struct GeneralPasteboard: PasteboardAccess {
    func changeCount() async -> Int {
        await MainActor.run { UIPasteboard.general.changeCount }
    }

    func clear(ifChangeCountIs count: Int) async {
        await MainActor.run {
            let pasteboard = UIPasteboard.general
            if pasteboard.changeCount == count { pasteboard.items = [] }
        }
    }

    /// What the pasteboard holds, learnt without reading it: none of these calls shows the paste prompt.
    @MainActor
    static func probe() async -> PasteboardProbe {
        let pasteboard = UIPasteboard.general
        var probe = PasteboardProbe(hasStrings: pasteboard.hasStrings, hasURLs: pasteboard.hasURLs)
        guard probe.hasStrings, !probe.hasURLs else { return probe }
        let detected = await withCheckedContinuation { (continuation: CheckedContinuation<(url: Bool, number: Bool), Never>) in
            // @Sendable: UIKit may call it on any queue, so it must not be isolated to the main actor.
            pasteboard.detectPatterns(for: [.probableWebURL, .number]) { @Sendable result in
                let patterns = (try? result.get()) ?? []
                continuation.resume(returning: (patterns.contains(.probableWebURL), patterns.contains(.number)))
            }
        }
        probe.probableWebURL = detected.url
        probe.number = detected.number
        return probe
    }
}
#endif
#endif
