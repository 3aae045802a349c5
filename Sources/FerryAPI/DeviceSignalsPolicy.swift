import Foundation

/// Which of the device's signals an app sends with its deferred deep link match (`POST /v1/attribution/match`).
///
/// The server matches an install to a click by the address it comes from and by the signals both sides report; fewer
/// signals mean fewer installs matched when the phone changed network between the click and the first launch, and
/// less certainty elsewhere. docs/ios-integration.md gives what each choice costs, measured with the project's
/// attribution simulator.
public enum DeviceSignalsPolicy: String, Sendable, Hashable, CaseIterable {
    /// Every signal: platform, OS version, hardware model, screen size and scale, time zone and its offset, and up to
    /// 10 preferred languages.
    case all
    /// The platform, the OS version to major.minor (`18.1`) and the most preferred language (`fr-FR`): what any
    /// web page the user opens learns from the browser's `User-Agent` and `Accept-Language` anyway. No model, screen
    /// or time zone, so nothing that sets one phone apart from others of its kind.
    case minimal
    /// No signal at all: the match request carries the install id and, with "copy to open", the click token only.
    case none

    /// `signals` with only what the policy allows.
    package func apply(to signals: DeviceSignals) -> DeviceSignals {
        switch self {
        case .all:
            return signals
        case .minimal:
            return DeviceSignals(platform: signals.platform, osVersion: signals.osVersion.map(Self.majorMinor),
                                 languages: signals.languages?.first.map { [$0] })
        case .none:
            return DeviceSignals()
        }
    }

    /// `18.1.2` → `18.1`; a version of one part stays as it is.
    package static func majorMinor(_ version: String) -> String {
        version.split(separator: ".", omittingEmptySubsequences: false).prefix(2).joined(separator: ".")
    }
}
