import FerryAPI
import FerryCore
import Foundation

/// The simple rule Ferry's matcher is measured against: the only unconsumed click from the install's address that
/// agrees with it on the OS version, the device kind and the first language (and, when both the click's page and the
/// app reported them, on the screen and the time zone). No scores, no confidence: one agreeing click or none.
///
/// What a click cannot state agrees: a browser on iOS 26 reports a frozen 18.6, Chrome on Android reports 10, and a
/// click without a version, a device kind or languages says nothing against the install.
enum UnambiguousRule {
    /// The click the rule gives the install, from the candidates (unconsumed clicks of the install's platform in its
    /// attribution window); nil when none or several agree.
    static func match(addressHash: String, signals: DeviceSignals, platform: String?, among candidates: [ClickEvidence]) -> ClickEvidence? {
        let agreeing = candidates.filter { $0.addressHash == addressHash && agrees($0, with: signals, platform: platform) }
        return agreeing.count == 1 ? agreeing[0] : nil
    }

    static func agrees(_ click: ClickEvidence, with signals: DeviceSignals, platform: String?) -> Bool {
        sameOS(click.osVersion, signals.osVersion, platform: platform)
            && sameDevice(click.appleDevice, model: signals.model)
            && sameLanguage(click.languages.first, signals.languages?.first)
            && sameScreenAndZone(click, signals)
    }

    static func sameOS(_ click: String?, _ install: String?, platform: String?) -> Bool {
        guard let click = click.flatMap(AttributionMatcher.majorMinor), let install = install.flatMap(AttributionMatcher.majorMinor) else { return true }
        if click == "18.6", let major = Int(install.split(separator: ".")[0]), major >= 26 { return true }
        if click == "10.0", platform?.lowercased() == "android" { return true }
        return click == install
    }

    static func sameDevice(_ click: String?, model: String?) -> Bool {
        guard let click, let family = model.flatMap(AttributionMatcher.deviceFamily) else { return true }
        return click == family
    }

    static func sameLanguage(_ click: String?, _ install: String?) -> Bool {
        guard let click, let install else { return true }
        return click.lowercased() == install.lowercased()
    }

    /// With both sides' page and app signals: the same screen (in either orientation, the same scale) and the same
    /// time zone.
    static func sameScreenAndZone(_ click: ClickEvidence, _ signals: DeviceSignals) -> Bool {
        if let cw = click.screenWidth, let ch = click.screenHeight, let iw = signals.screenWidth, let ih = signals.screenHeight {
            guard (min(cw, ch), max(cw, ch)) == (min(iw, ih), max(iw, ih)) else { return false }
            if let c = click.screenScale, let i = signals.screenScale, abs(c - i) >= 0.05 { return false }
        }
        if let a = click.timeZone, let b = signals.timeZone, a != b { return false }
        return true
    }
}
