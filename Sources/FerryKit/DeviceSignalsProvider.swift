import Foundation

/// Tells what the device can say about itself for the deferred deep link match: screen, time zone, languages,
/// OS version, model, and a per-vendor install identifier.
///
/// FerryKit collects these once, on the first launch, and sends them to the server's match endpoint; nothing is
/// hashed or stored on the device. ``UIKitDeviceSignalsProvider`` is the default where UIKit has a device and a screen
/// (iOS, iPadOS, Mac Catalyst, tvOS, visionOS), ``PortableDeviceSignalsProvider`` elsewhere (macOS, watchOS).
public protocol DeviceSignalsProvider: Sendable {
    /// The device's signals now.
    func signals() async -> DeviceSignals
    /// An identifier of this install that the app's vendor may see (the IDFV on iOS); nil when there is none,
    /// in which case FerryKit makes a random one and keeps it.
    func installIdentifier() async -> String?
}

/// ``DeviceSignalsProvider`` from Foundation alone: time zone, languages, OS version and hardware model, plus a
/// screen the app states (there is no screen to ask outside UIKit). The default on macOS and watchOS, and used in tests.
public struct PortableDeviceSignalsProvider: DeviceSignalsProvider {
    /// A screen: size in points, portrait, and pixels per point.
    public struct Screen: Sendable, Hashable {
        /// Width in points.
        public var width: Int
        /// Height in points.
        public var height: Int
        /// Pixels per point.
        public var scale: Double

        /// Creates a screen.
        public init(width: Int, height: Int, scale: Double) {
            self.width = width
            self.height = height
            self.scale = scale
        }
    }

    /// The platform name sent (`ios` on iOS devices).
    public var platform: String
    /// The screen, when known.
    public var screen: Screen?

    /// Creates a provider for `platform` with an optional screen.
    public init(platform: String = PortableDeviceSignalsProvider.currentPlatform, screen: Screen? = nil) {
        self.platform = platform
        self.screen = screen
    }

    /// `ios`, `macos`, `tvos`, `watchos`, `visionos` or `linux`: where this code runs.
    public static var currentPlatform: String {
        #if os(iOS)
        "ios"
        #elseif os(macOS)
        "macos"
        #elseif os(tvOS)
        "tvos"
        #elseif os(watchOS)
        "watchos"
        #elseif os(visionOS)
        "visionos"
        #else
        "linux"
        #endif
    }

    /// Time zone, languages, OS version and model from Foundation, and the stated screen.
    public func signals() async -> DeviceSignals {
        DeviceSignals(
            platform: platform, osVersion: DeviceInfo.osVersion, model: DeviceInfo.hardwareModel,
            screenWidth: screen?.width, screenHeight: screen?.height, screenScale: screen?.scale,
            timeZone: TimeZone.current.identifier, timeZoneOffsetSeconds: TimeZone.current.secondsFromGMT(),
            languages: DeviceInfo.preferredLanguages)
    }

    /// None: FerryKit makes a random install id and keeps it.
    public func installIdentifier() async -> String? { nil }
}

/// Facts about the device any platform can tell.
enum DeviceInfo {
    /// `18.1` or `18.1.2`.
    static var osVersion: String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return version.patchVersion == 0 ? "\(version.majorVersion).\(version.minorVersion)"
            : "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }

    /// The hardware model identifier (`iPhone16,1`); on a simulator, the simulated model.
    static var hardwareModel: String? {
        if let simulated = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"], !simulated.isEmpty { return simulated }
        var info = utsname()
        guard uname(&info) == 0 else { return nil }
        let machine = withUnsafeBytes(of: &info.machine) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return machine.isEmpty ? nil : machine
    }

    /// The user's preferred languages, at most 10, each as a BCP 47 tag.
    static var preferredLanguages: [String] {
        let languages = Locale.preferredLanguages.prefix(10).map { String($0.prefix(35)) }
        return languages.isEmpty ? [Locale.current.identifier.replacingOccurrences(of: "_", with: "-")] : Array(languages)
    }
}

/// Reads a click token that the link's page copied ("copy to open"), on the first launch only.
public protocol ClickTokenProvider: Sendable {
    /// The token (`ferry:clk_…`), or nil.
    func clickToken() async -> String?
    /// Called once the server has answered a match request that carried `token`, so that the provider can remove
    /// it from where it read it (if it is still there). The default does nothing.
    func clickTokenUsed(_ token: String) async
}

extension ClickTokenProvider {
    /// Does nothing.
    public func clickTokenUsed(_ token: String) async {}
}
