import FerryAPI
import Foundation

/// What is known about one click when an install asks to be matched.
public struct ClickEvidence: Sendable, Hashable {
    /// The click.
    public var clickID: String
    /// The link clicked.
    public var linkID: String
    /// When.
    public var createdAt: Date
    /// Keyed hash of the clicking address.
    public var addressHash: String?
    /// Keyed hash of its /24 or /64 network.
    public var networkHash: String?
    /// OS version read from the click's user agent (`18.1`).
    public var osVersion: String?
    /// `iphone`, `ipad`, `ipod` from the user agent.
    public var appleDevice: String?
    /// What the interstitial's script reported (absent when scripts were off).
    public var screenWidth: Int?
    /// Screen height in points.
    public var screenHeight: Int?
    /// Device pixel ratio.
    public var screenScale: Double?
    /// IANA time zone.
    public var timeZone: String?
    /// UTC offset in seconds.
    public var timeZoneOffsetSeconds: Int?
    /// Preferred languages (from the script, else from Accept-Language).
    public var languages: [String]

    /// Creates evidence.
    public init(
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
public struct InstallEvidence: Sendable, Hashable {
    /// Keyed hash of the request's address.
    public var addressHash: String?
    /// Keyed hash of its network.
    public var networkHash: String?
    /// The device's signals.
    public var signals: DeviceSignals
    /// When the app asked.
    public var at: Date

    /// Creates evidence.
    public init(addressHash: String?, networkHash: String?, signals: DeviceSignals, at: Date) {
        self.addressHash = addressHash
        self.networkHash = networkHash
        self.signals = signals
        self.at = at
    }
}

/// The clicks worth comparing with one install, and how common its network is among all recent clicks.
public struct CandidateSet: Sendable, Hashable {
    /// Unconsumed clicks in the window that share the install's address, network or device fingerprint.
    public var clicks: [ClickEvidence]
    /// All clicks of the app (and platform) in the window: the size of the crowd the install hides in.
    public var clicksInWindow: Int
    /// Clicks in the window from the install's address.
    public var sameAddressClicks: Int
    /// Clicks in the window from the install's network.
    public var sameNetworkClicks: Int

    /// Creates a candidate set.
    public init(clicks: [ClickEvidence], clicksInWindow: Int, sameAddressClicks: Int, sameNetworkClicks: Int) {
        self.clicks = clicks
        self.clicksInWindow = clicksInWindow
        self.sameAddressClicks = sameAddressClicks
        self.sameNetworkClicks = sameNetworkClicks
    }
}

/// The numbers behind the probabilistic matcher. Each `p…` is how often a signal agrees between a click and the
/// install it caused; each `q…` how often it agrees between unrelated devices. The defaults come from the
/// attribution simulator (`Benchmarks/AttributionSimulator`), which also measures how well they are calibrated.
public struct MatchModel: Sendable, Hashable {
    /// Prior probability that an install came from some click at all (the rest are organic).
    public var clickedShare = 0.5
    /// The install comes from the very address of its click (same Wi-Fi, same carrier address).
    public var pSameAddress = 0.72
    /// The install comes from another address of the same /24 or /64.
    public var pSameNetworkOnly = 0.06
    /// OS versions (major.minor) agree between a click and its install.
    public var pSameOS = 0.95
    /// How often unrelated devices share an OS version.
    public var qSameOS = 0.22
    /// Screens agree.
    public var pSameScreen = 0.985
    /// How often unrelated devices share a screen (a popular model).
    public var qSameScreen = 0.18
    /// Time zones agree.
    public var pSameTimeZone = 0.97
    /// How often unrelated devices share a time zone.
    public var qSameTimeZone = 0.35
    /// First languages agree.
    public var pSameLanguage = 0.92
    /// How often unrelated devices share a first language.
    public var qSameLanguage = 0.45
    /// Median delay between a click and the first launch of the app it installed.
    public var medianDelay: TimeInterval = 20 * 60
    /// Spread of that delay (standard deviation of its natural logarithm).
    public var delaySpread = 1.7
    /// A match is made only at or above this posterior.
    public var acceptThreshold = 0.75
    /// Declines when a click of another link comes within this factor of the best.
    public var ambiguityRatio = 0.25

    /// The defaults.
    public init() {}
}

/// The matcher's answer.
public enum MatchOutcome: Sendable, Hashable {
    /// The install is attributed to this click.
    case matched(clickID: String, linkID: String, confidence: Double)
    /// No click is likely enough.
    case declined(reason: DeclineReason)

    /// Why no click was chosen.
    public enum DeclineReason: String, Sendable, Hashable {
        case noCandidates = "no_candidates"
        case tooWeak = "too_weak"
        case ambiguous
    }
}

/// Ties an install to the click that most likely caused it, with a calibrated confidence, or declines.
///
/// A naive-Bayes model: for each candidate click, how much likelier the install's signals are if that click caused
/// it than if it did not, weighed against every other click in the window and against the install being
/// organic. Pure: the store finds the candidates, the server binds the answer.
public struct AttributionMatcher: Sendable {
    /// The model.
    public var model: MatchModel
    /// Maps posteriors to the confidence the answer states (from the simulator's calibration).
    public var calibration: Calibration

    /// Creates a matcher.
    public init(model: MatchModel = MatchModel(), calibration: Calibration = .default) {
        self.model = model
        self.calibration = calibration
    }

    /// Posterior probability per candidate that it caused the install.
    public func posteriors(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval) -> [(click: ClickEvidence, posterior: Double)] {
        let usable = candidates.clicks.filter { click in
            let delay = install.at.timeIntervalSince(click.createdAt)
            return delay >= -60 && delay <= window
        }
        guard !usable.isEmpty else { return [] }
        let crowd = Double(max(candidates.clicksInWindow, usable.count, 1))
        let priorPerClick = model.clickedShare / crowd
        let weights = usable.map { priorPerClick * likelihoodRatio(install: install, click: $0, candidates: candidates, crowd: crowd, window: window) }
        // Clicks that are not candidates share nothing distinctive with the install; on average their likelihood
        // ratio is 1, so together they weigh their share of the prior.
        let others = model.clickedShare * max(0, crowd - Double(usable.count)) / crowd
        let total = (1 - model.clickedShare) + others + weights.reduce(0, +)
        return zip(usable, weights).map { ($0, $1 / total) }
    }

    /// The decision for one install.
    public func match(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval) -> MatchOutcome {
        let ranked = posteriors(install: install, candidates: candidates, window: window).sorted { $0.posterior > $1.posterior }
        guard let best = ranked.first else { return .declined(reason: .noCandidates) }
        if best.posterior < model.acceptThreshold { return .declined(reason: .tooWeak) }
        if ranked.dropFirst().contains(where: { $0.click.linkID != best.click.linkID && $0.posterior >= best.posterior * model.ambiguityRatio }) {
            return .declined(reason: .ambiguous)
        }
        return .matched(clickID: best.click.clickID, linkID: best.click.linkID, confidence: calibration.confidence(forPosterior: best.posterior))
    }

    /// How much likelier the install's signals are if `click` caused it than if it did not.
    func likelihoodRatio(install: InstallEvidence, click: ClickEvidence, candidates: CandidateSet, crowd: Double, window: TimeInterval) -> Double {
        var ratio = networkRatio(install: install, click: click, candidates: candidates, crowd: crowd)
        ratio *= delayRatio(install.at.timeIntervalSince(click.createdAt), window: window)
        let signals = install.signals
        ratio *= osRatio(click: click.osVersion, install: signals.osVersion)
        ratio *= deviceRatio(click: click, signals: signals)
        ratio *= timeZoneRatio(click: click, signals: signals)
        ratio *= languageRatio(click: click.languages, install: signals.languages ?? [])
        return ratio
    }

    func networkRatio(install: InstallEvidence, click: ClickEvidence, candidates: CandidateSet, crowd: Double) -> Double {
        guard let installAddress = install.addressHash, let clickAddress = click.addressHash else { return 1 }
        if installAddress == clickAddress {
            // How rare the address is among recent clicks: one household versus a carrier's shared address.
            let share = Double(max(candidates.sameAddressClicks, 1)) / crowd
            return model.pSameAddress / min(1, share)
        }
        if let network = install.networkHash, network == click.networkHash {
            let share = Double(max(candidates.sameNetworkClicks, 1)) / crowd
            return model.pSameNetworkOnly / min(1, share)
        }
        let share = Double(candidates.sameNetworkClicks) / crowd
        return (1 - model.pSameAddress - model.pSameNetworkOnly) / max(0.05, 1 - share)
    }

    /// Log-normal density of the click-to-launch delay against a uniform spread over the window.
    func delayRatio(_ delay: TimeInterval, window: TimeInterval) -> Double {
        let seconds = max(delay, 1)
        let mu = Foundation.log(model.medianDelay)
        let z = (Foundation.log(seconds) - mu) / model.delaySpread
        let density = Foundation.exp(-0.5 * z * z) / (seconds * model.delaySpread * (2 * Double.pi).squareRoot())
        return min(50, max(0.02, density * window))
    }

    func osRatio(click: String?, install: String?) -> Double {
        guard let click = click.flatMap(Self.majorMinor), let install = install.flatMap(Self.majorMinor) else { return 1 }
        // Browsers from iOS 26 on report a frozen 18.6; that says nothing.
        if click == "18.6", let major = Int(install.split(separator: ".")[0]), major >= 26 { return 1 }
        if click == install { return model.pSameOS / model.qSameOS }
        // An update between click and launch is rare, and goes forward only.
        if Self.versionLess(click, install) { return (1 - model.pSameOS) * 0.8 / (1 - model.qSameOS) }
        return (1 - model.pSameOS) * 0.2 / (1 - model.qSameOS)
    }

    func deviceRatio(click: ClickEvidence, signals: DeviceSignals) -> Double {
        var ratio = 1.0
        if let device = click.appleDevice, let model = signals.model?.lowercased() {
            let family = model.hasPrefix("ipad") ? "ipad" : model.hasPrefix("ipod") ? "ipod" : model.hasPrefix("iphone") ? "iphone" : nil
            if let family, family != device { ratio *= 0.01 }
        }
        if let cw = click.screenWidth, let ch = click.screenHeight, let iw = signals.screenWidth, let ih = signals.screenHeight {
            let sameSize = (min(cw, ch), max(cw, ch)) == (min(iw, ih), max(iw, ih))
            let sameScale = click.screenScale.flatMap { c in signals.screenScale.map { abs(c - $0) < 0.05 } } ?? true
            ratio *= sameSize && sameScale ? model.pSameScreen / model.qSameScreen : (1 - model.pSameScreen) / (1 - model.qSameScreen)
        }
        return ratio
    }

    func timeZoneRatio(click: ClickEvidence, signals: DeviceSignals) -> Double {
        if let a = click.timeZone, let b = signals.timeZone {
            if a == b { return model.pSameTimeZone / model.qSameTimeZone }
            if let x = click.timeZoneOffsetSeconds, let y = signals.timeZoneOffsetSeconds, x == y { return 1 }
            return (1 - model.pSameTimeZone) / (1 - model.qSameTimeZone)
        }
        if let x = click.timeZoneOffsetSeconds, let y = signals.timeZoneOffsetSeconds {
            return x == y ? 1.5 : (1 - model.pSameTimeZone) / (1 - model.qSameTimeZone)
        }
        return 1
    }

    func languageRatio(click: [String], install: [String]) -> Double {
        guard let a = click.first?.lowercased(), let b = install.first?.lowercased() else { return 1 }
        if a == b { return model.pSameLanguage / model.qSameLanguage }
        if a.prefix(while: { $0 != "-" && $0 != "_" }) == b.prefix(while: { $0 != "-" && $0 != "_" }) { return 1 }
        return (1 - model.pSameLanguage) / (1 - model.qSameLanguage)
    }

    static func majorMinor(_ version: String) -> String? {
        let parts = version.split(whereSeparator: { $0 == "." || $0 == "_" }).prefix(2)
        guard let major = parts.first, Int(major) != nil else { return nil }
        let minor = parts.count > 1 && Int(parts[parts.index(after: parts.startIndex)]) != nil ? parts[parts.index(after: parts.startIndex)] : "0"
        return "\(major).\(minor)"
    }

    static func versionLess(_ a: String, _ b: String) -> Bool {
        let x = a.split(separator: ".").compactMap { Int($0) }, y = b.split(separator: ".").compactMap { Int($0) }
        return x.lexicographicallyPrecedes(y)
    }
}

/// A monotone map from the model's posterior to the confidence an answer states: for each band of posteriors, the
/// share of matches the simulator found right.
public struct Calibration: Sendable, Hashable {
    /// `(posterior, observed precision)` points, ascending; values between are interpolated.
    public var points: [(posterior: Double, confidence: Double)]

    /// Creates a calibration from points.
    public init(points: [(posterior: Double, confidence: Double)]) {
        self.points = points.sorted { $0.posterior < $1.posterior }
    }

    /// The identity: the posterior is the confidence.
    public static let identity = Calibration(points: [(0, 0), (1, 1)])

    /// The calibration measured by the simulator (see docs/attribution.md).
    public static let `default` = identity

    /// The stated confidence for a posterior, in 0…1.
    public func confidence(forPosterior posterior: Double) -> Double {
        let p = min(1, max(0, posterior))
        guard let first = points.first, let last = points.last else { return p }
        if p <= first.posterior { return first.confidence }
        if p >= last.posterior { return last.confidence }
        for (a, b) in zip(points, points.dropFirst()) where p <= b.posterior {
            let t = (p - a.posterior) / max(1e-12, b.posterior - a.posterior)
            return a.confidence + t * (b.confidence - a.confidence)
        }
        return last.confidence
    }

    public static func == (lhs: Calibration, rhs: Calibration) -> Bool {
        lhs.points.map(\.posterior) == rhs.points.map(\.posterior) && lhs.points.map(\.confidence) == rhs.points.map(\.confidence)
    }

    public func hash(into hasher: inout Hasher) {
        for point in points { hasher.combine(point.posterior); hasher.combine(point.confidence) }
    }
}

/// How the store picks candidate clicks for an install: one definition for the server and the simulator.
public struct CandidateQuery: Sendable, Hashable {
    /// Most clicks taken per key (address, network, fingerprint).
    public static let limitPerKey = 200

    /// Clicks of this app…
    public var appID: String
    /// …and environment…
    public var environment: APIEnvironment
    /// …made at or after this instant…
    public var since: Date
    /// …and at most a minute after the install asked (clock skew).
    public var until: Date
    /// Clicks from this address.
    public var addressHash: String?
    /// Clicks from this network.
    public var networkHash: String?
    /// Clicks whose page reported this device fingerprint.
    public var fingerprint: String?

    /// The query for an install.
    public init(appID: String, environment: APIEnvironment, install: InstallEvidence, window: TimeInterval) {
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
public enum DeviceFingerprint {
    /// `393x852@3|America/New_York` (portrait size), or nil when a part is unknown.
    public static func key(width: Int?, height: Int?, scale: Double?, timeZone: String?) -> String? {
        guard let width, let height, let scale, let timeZone, width > 0, height > 0, scale > 0, scale <= 10 else { return nil }
        let roundedScale = (scale * 100).rounded() / 100
        let scaleText = roundedScale == roundedScale.rounded() ? String(Int(roundedScale)) : String(roundedScale)
        return "\(min(width, height))x\(max(width, height))@\(scaleText)|\(timeZone)"
    }
}
