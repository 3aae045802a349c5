import FerryAPI
import Foundation

/// What is known about one click when an install asks to be matched.
package struct ClickEvidence: Sendable, Hashable, Codable {
    /// The click.
    package var clickID: String
    /// The link clicked.
    package var linkID: String
    /// When.
    package var createdAt: Date
    /// Keyed hash of the clicking address.
    package var addressHash: String?
    /// Keyed hash of its /24 or /64 network.
    package var networkHash: String?
    /// OS version read from the click's user agent (`18.1`).
    package var osVersion: String?
    /// `iphone`, `ipad`, `ipod` from the user agent.
    package var appleDevice: String?
    /// What the interstitial's script reported (absent when scripts were off).
    package var screenWidth: Int?
    /// Screen height in points.
    package var screenHeight: Int?
    /// Device pixel ratio.
    package var screenScale: Double?
    /// IANA time zone.
    package var timeZone: String?
    /// UTC offset in seconds.
    package var timeZoneOffsetSeconds: Int?
    /// Preferred languages (from the script, else from Accept-Language).
    package var languages: [String]

    /// Creates evidence.
    package init(
        clickID: String, linkID: String, createdAt: Date, addressHash: String? = nil, networkHash: String? = nil,
        osVersion: String? = nil, appleDevice: String? = nil, screenWidth: Int? = nil, screenHeight: Int? = nil,
        screenScale: Double? = nil, timeZone: String? = nil, timeZoneOffsetSeconds: Int? = nil, languages: [String] = []
    ) {
        self.clickID = clickID
        self.linkID = linkID
        self.createdAt = createdAt
        self.addressHash = addressHash
        self.networkHash = networkHash
        self.osVersion = osVersion
        self.appleDevice = appleDevice
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.screenScale = screenScale
        self.timeZone = timeZone
        self.timeZoneOffsetSeconds = timeZoneOffsetSeconds
        self.languages = languages
    }
}

/// What an installed app says about itself on its first launch, plus where the request came from.
package struct InstallEvidence: Sendable, Hashable, Codable {
    /// Keyed hash of the request's address.
    package var addressHash: String?
    /// Keyed hash of its network.
    package var networkHash: String?
    /// The device's signals.
    package var signals: DeviceSignals
    /// When the app asked.
    package var at: Date

    /// Creates evidence.
    package init(addressHash: String?, networkHash: String?, signals: DeviceSignals, at: Date) {
        self.addressHash = addressHash
        self.networkHash = networkHash
        self.signals = signals
        self.at = at
    }
}

/// The clicks worth comparing with one install, and how common its network is among all recent clicks.
package struct CandidateSet: Sendable, Hashable, Codable {
    /// Unconsumed clicks in the window that share the install's address, network or device fingerprint.
    package var clicks: [ClickEvidence]
    /// All clicks of the app (and platform) in the window: the size of the crowd the install hides in.
    package var clicksInWindow: Int
    /// Clicks in the window from the install's address.
    package var sameAddressClicks: Int
    /// Clicks in the window from the install's network.
    package var sameNetworkClicks: Int

    /// Creates a candidate set.
    package init(clicks: [ClickEvidence], clicksInWindow: Int, sameAddressClicks: Int, sameNetworkClicks: Int) {
        self.clicks = clicks
        self.clicksInWindow = clicksInWindow
        self.sameAddressClicks = sameAddressClicks
        self.sameNetworkClicks = sameNetworkClicks
    }
}

/// How the store picks candidate clicks for an install: one definition for the server and the simulator.
package struct CandidateQuery: Sendable, Hashable {
    /// Most clicks taken per key (address, network, fingerprint).
    package static let limitPerKey = 200
    /// The platforms whose clicks can lead to an install: a click from a desktop browser, a bot or a TV is never a
    /// candidate (and stores need not index such clicks by address or network).
    package static let attributablePlatforms: [ClientPlatform] = [.iOS, .android]
    /// The SQL condition on the clicks of `table` (an alias) that can lead to an install: a person's, from one of
    /// `attributablePlatforms` (the condition of SQLite's partial indexes by address and network, which a query must
    /// repeat for them to be used).
    package static func attributableSQL(_ table: String) -> String {
        "\(table).platform IN ('ios', 'android') AND \(table).traffic = '\(ClickTraffic.person.rawValue)'"
    }

    /// Clicks of this app…
    package var appID: String
    /// …and environment…
    package var environment: APIEnvironment
    /// …made at or after this instant…
    package var since: Date
    /// …and at most a minute after the install asked (clock skew).
    package var until: Date
    /// Clicks from this address.
    package var addressHash: String?
    /// Clicks from this network.
    package var networkHash: String?
    /// Clicks whose page reported this device fingerprint.
    package var fingerprint: String?

    /// The query for an install.
    package init(appID: String, environment: APIEnvironment, install: InstallEvidence, window: TimeInterval) {
        self.appID = appID
        self.environment = environment
        self.since = install.at.addingTimeInterval(-window)
        self.until = install.at.addingTimeInterval(60)
        self.addressHash = install.addressHash
        self.networkHash = install.networkHash
        self.fingerprint = DeviceFingerprint.key(
            width: install.signals.screenWidth, height: install.signals.screenHeight, scale: install.signals.screenScale,
            timeZone: install.signals.timeZone)
    }
}

/// A coarse device fingerprint (screen and time zone) that indexes clicks for installs that changed networks.
package enum DeviceFingerprint {
    /// `393x852@3|America/New_York` (portrait size), or nil when a part is unknown.
    package static func key(width: Int?, height: Int?, scale: Double?, timeZone: String?) -> String? {
        Parts(width: width, height: height, scale: scale, timeZone: timeZone)?.key
    }

    /// What a key is made of: two keys are equal exactly when their parts are, and parts compare without the key's
    /// text being built (a match compares hundreds of candidates' fingerprints).
    struct Parts: Hashable {
        var shortSide: Int
        var longSide: Int
        /// The scale in hundredths, rounded.
        var scaleHundredths: Double
        var timeZone: String

        init?(width: Int?, height: Int?, scale: Double?, timeZone: String?) {
            guard let width, let height, let scale, let timeZone, (1...20_000).contains(width), (1...20_000).contains(height),
                  scale.isFinite, scale > 0, scale <= 10, !timeZone.isEmpty, timeZone.utf8.count <= 64 else { return nil }
            shortSide = min(width, height)
            longSide = max(width, height)
            scaleHundredths = (scale * 100).rounded()
            self.timeZone = timeZone
        }

        init?(of click: ClickEvidence) {
            self.init(width: click.screenWidth, height: click.screenHeight, scale: click.screenScale, timeZone: click.timeZone)
        }

        init?(of signals: DeviceSignals) {
            self.init(width: signals.screenWidth, height: signals.screenHeight, scale: signals.screenScale, timeZone: signals.timeZone)
        }

        var key: String {
            let scale = scaleHundredths / 100
            let scaleText = scale == scale.rounded() ? String(Int(scale)) : String(scale)
            return "\(shortSide)x\(longSide)@\(scaleText)|\(timeZone)"
        }
    }
}
