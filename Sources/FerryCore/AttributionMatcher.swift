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
/// attribution simulator (`Benchmarks/AttributionSimulator`), which also measures how well they are calibrated
/// (docs/attribution.md).
public struct MatchModel: Sendable, Hashable {
    /// Prior probability that an install reaching the probabilistic tier came from some click at all (the rest are
    /// organic).
    public var clickedShare = 0.52
    /// The same prior for Android installs: clicks there carry the Play Store referrer, so the Android installs
    /// left for this tier are mostly organic.
    public var androidClickedShare = 0.06
    /// Share of click-caused installs that come from another network than their click's once a long time has
    /// passed (Wi-Fi at home, cellular on the way, the office by day)…
    public var networkChangeShare = 0.59
    /// …approached as `1 - exp(-delay / networkChangeTime)`: minutes after a click, almost everyone is still
    /// where they clicked.
    public var networkChangeTime: TimeInterval = 3.25 * 3600
    /// Of the installs still on their click's network, the share that comes from another address of it (IPv6
    /// privacy addresses renewed daily, a DHCP lease, a carrier's NAT pool) once a long time has passed…
    public var addressChangeShare = 0.50
    /// …approached the same way.
    public var addressChangeTime: TimeInterval = 14.25 * 3600
    /// The install shares neither address, network nor device fingerprint with its click, so its click is not
    /// even a candidate: the weight left to the clicks the store did not hand over.
    public var pNoSharedKey = 0.015
    /// OS versions (major.minor) agree between a click and its install.
    public var pSameOS = 0.98
    /// How often unrelated devices share an OS version (before the candidates say how common the install's is).
    public var qSameOS = 0.17
    /// How many iOS clicks report Safari's frozen `18.6`.
    public var qFrozenOS = 0.62
    /// Screens agree.
    public var pSameScreen = 0.99
    /// How often unrelated devices share a screen, when the candidates cannot tell how common the install's is.
    public var qSameScreen = 0.16
    /// Time zones agree.
    public var pSameTimeZone = 0.99
    /// How often unrelated devices share a time zone, when the candidates cannot tell.
    public var qSameTimeZone = 0.24
    /// First languages agree.
    public var pSameLanguage = 0.98
    /// How often unrelated devices share a first language (before the candidates say how common the install's is).
    public var qSameLanguage = 0.53
    /// How many candidates' worth of weight the `q` numbers above carry against what the candidate set shows
    /// (how common the install's OS version and language are among the clicks around it).
    public var priorWeight = 20.0
    /// Share of clicks whose first launch comes soon (minutes); the rest come hours later.
    public var quickDelayShare = 0.67
    /// Median delay between a click and the first launch, for quick launches.
    public var medianDelay: TimeInterval = 6 * 60
    /// Spread of that delay (standard deviation of its natural logarithm).
    public var delaySpread = 0.7
    /// Median delay of the later launches.
    public var slowMedianDelay: TimeInterval = 3.37 * 3600
    /// Spread of the later launches' delay.
    public var slowDelaySpread = 1.08
    /// A match is made only at or above this posterior.
    public var acceptThreshold = 0.85
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
        /// No click shares the install's address, network or fingerprint inside the window.
        case noCandidates = "no_candidates"
        /// The likeliest click is not likely enough (organic installs mostly end here).
        case tooWeak = "too_weak"
        /// Clicks of two links are close: the install likely came from one of them, but which cannot be told.
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
        weigh(install: install, candidates: candidates, window: window).map { (candidates.clicks[$0.index], $0.posterior) }
    }

    /// The posterior of each usable candidate, by its place in `candidates.clicks` (the hundreds of candidates of a
    /// busy window are read where they are, not copied).
    func weigh(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval) -> [(index: Int, posterior: Double)] {
        // Only clicks inside the window that share the install's address, network or device fingerprint: the
        // store's own rule (`CandidateQuery`), kept here too so that nothing else can ever be matched.
        let fingerprint = DeviceFingerprint.Parts(of: install.signals)
        let clicks = candidates.clicks
        var usable: [Int] = []
        usable.reserveCapacity(clicks.count)
        for index in clicks.indices {
            let delay = install.at.timeIntervalSince(clicks[index].createdAt)
            guard delay >= -60, delay <= window else { continue }
            if let address = install.addressHash, address == clicks[index].addressHash {
                usable.append(index)
            } else if let network = install.networkHash, network == clicks[index].networkHash {
                usable.append(index)
            } else if let fingerprint, fingerprint == DeviceFingerprint.Parts(of: clicks[index]) {
                usable.append(index)
            }
        }
        guard !usable.isEmpty else { return [] }
        let crowd = Double(max(candidates.clicksInWindow, usable.count, 1))
        // Counts that contradict each other are taken at their most cautious.
        var candidates = candidates
        candidates.clicksInWindow = Int(crowd)
        candidates.sameAddressClicks = min(max(candidates.sameAddressClicks, 0), Int(crowd))
        candidates.sameNetworkClicks = min(max(candidates.sameNetworkClicks, candidates.sameAddressClicks), Int(crowd))
        let clickedShare = min(0.99, max(0.01, install.signals.platform?.lowercased() == "android" ? model.androidClickedShare : model.clickedShare))
        let priorPerClick = clickedShare / crowd
        let context = Context(install: install, clicks: clicks, usable: usable, crowd: crowd, window: window, matcher: self)
        let weights = usable.map { priorPerClick * likelihoodRatio(install: install, click: clicks[$0], candidates: candidates, context: context) }
        // Clicks that are not candidates share no address, network or fingerprint with the install: that is
        // evidence against each of them, by the odds of a click-caused install sharing nothing with its click.
        let others = clickedShare * max(0, crowd - Double(usable.count)) / crowd * min(1, model.pNoSharedKey / max(0.05, 1 - Double(usable.count) / crowd))
        let total = (1 - clickedShare) + others + weights.reduce(0, +)
        guard total.isFinite, total > 0 else { return [] }
        return zip(usable, weights).map { ($0, $1 / total) }
    }

    /// The decision for one install: the best click when its posterior reaches `acceptThreshold` (the model's by
    /// default) and no click of another link comes close.
    public func match(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval, acceptThreshold: Double? = nil) -> MatchOutcome {
        let threshold = acceptThreshold ?? model.acceptThreshold
        let weighed = weigh(install: install, candidates: candidates, window: window)
        // The likeliest click (the first of equals, in the candidates' order).
        guard var best = weighed.first else { return .declined(reason: .noCandidates) }
        for each in weighed.dropFirst() where each.posterior > best.posterior { best = each }
        guard best.posterior.isFinite else { return .declined(reason: .tooWeak) }
        let clicks = candidates.clicks
        let bestLink = clicks[best.index].linkID
        // The strongest click of another link.
        var rival = 0.0
        for each in weighed where each.posterior > rival && clicks[each.index].linkID != bestLink { rival = each.posterior }
        if best.posterior < threshold {
            // Sure enough it is one of two links, not which: say so.
            return .declined(reason: best.posterior + rival >= threshold ? .ambiguous : .tooWeak)
        }
        if rival >= best.posterior * model.ambiguityRatio { return .declined(reason: .ambiguous) }
        return .matched(clickID: clicks[best.index].clickID, linkID: bestLink, confidence: calibration.confidence(forPosterior: best.posterior))
    }

    /// What the whole candidate set says about the install, computed once.
    struct Context {
        /// The install's fingerprint (screen and time zone).
        var fingerprint: DeviceFingerprint.Parts?
        /// How common that fingerprint is among the window's clicks, measured on the candidates the fingerprint
        /// brought (extrapolated over the window when the store's per-key limit cut them short).
        var fingerprintShare: Double?
        /// The attribution window.
        var window: TimeInterval
        /// How many usable candidates report each OS version (major.minor) and first language.
        var osCounts: [String: Int] = [:]
        var osTotal = 0
        var languageCounts: [String: Int] = [:]
        var languageTotal = 0
        /// The candidates' OS versions and the install's, each read to major.minor once (hundreds of candidates
        /// share a few versions).
        var majorMinors: [String: String?] = [:]
        /// The install's first language, lowercased, when it is plausible.
        var installLanguage: String?
        /// The install's device family (`iphone`, `ipad`, `ipod`) from its model.
        var installFamily: String?
        /// `osRatio` for each OS version the candidates report, as they report it (hundreds of candidates share a few).
        var osRatios: [String: Double] = [:]

        /// `version` read to major.minor (remembered when the context was made).
        func majorMinor(_ version: String) -> String? {
            majorMinors[version] ?? AttributionMatcher.majorMinor(version)
        }

        /// `version` read to major.minor, and remembered.
        private mutating func remember(_ version: String) -> String? {
            if let known = majorMinors[version] { return known }
            let read = AttributionMatcher.majorMinor(version)
            majorMinors[version] = .some(read)
            return read
        }

        init(install: InstallEvidence, clicks: [ClickEvidence], usable: [Int], crowd: Double, window: TimeInterval, matcher: AttributionMatcher) {
            let model = matcher.model
            self.window = window
            let signals = install.signals
            if let version = signals.osVersion { _ = remember(version) }
            if let language = signals.languages?.first, AttributionMatcher.plausibleTag(language, max: 35) {
                installLanguage = language.lowercased()
            }
            installFamily = signals.model.flatMap(AttributionMatcher.deviceFamily)
            for index in usable {
                if let version = clicks[index].osVersion, let os = remember(version) {
                    osCounts[os, default: 0] += 1
                    osTotal += 1
                }
                if let language = clicks[index].languages.first, AttributionMatcher.plausibleTag(language, max: 35) {
                    languageCounts[language.lowercased(), default: 0] += 1
                    languageTotal += 1
                }
            }
            for version in majorMinors.keys {
                osRatios[version] = matcher.osRatio(click: version, install: signals.osVersion, platform: signals.platform, context: self)
            }
            fingerprint = DeviceFingerprint.Parts(of: signals)
            guard let fingerprint else { return }
            var count = 0
            var oldest = install.at
            for index in usable where DeviceFingerprint.Parts(of: clicks[index]) == fingerprint {
                count += 1
                oldest = min(oldest, clicks[index].createdAt)
            }
            guard count > 0 else { return }
            var estimate = Double(count)
            if count >= CandidateQuery.limitPerKey {
                // The store gave the newest `limit`; scale them up to the whole window.
                let span = max(install.at.timeIntervalSince(oldest), 60)
                if span.isFinite, window.isFinite { estimate *= max(1, window / span) }
            }
            // Shrunk toward how often unrelated devices share a screen and a time zone, for the same reason.
            let prior = model.qSameScreen * model.qSameTimeZone
            fingerprintShare = min(1, (estimate + model.priorWeight * prior) / (crowd + model.priorWeight))
        }
    }

    /// How much likelier the install's signals are if `click` caused it than if it did not.
    func likelihoodRatio(install: InstallEvidence, click: ClickEvidence, candidates: CandidateSet, context: Context) -> Double {
        let crowd = Double(max(candidates.clicksInWindow, 1))
        let delay = install.at.timeIntervalSince(click.createdAt)
        var ratio = networkRatio(install: install, click: click, candidates: candidates, crowd: max(crowd, Double(candidates.clicks.count)), delay: delay)
        ratio *= delayRatio(delay, window: context.window)
        let signals = install.signals
        if let version = click.osVersion {
            ratio *= context.osRatios[version] ?? osRatio(click: version, install: signals.osVersion, platform: signals.platform, context: context)
        }
        ratio *= deviceRatio(click: click, signals: signals, context: context)
        ratio *= languageRatio(click: click.languages, context: context)
        return ratio.isFinite ? ratio : 0
    }

    /// How likely the install is to come from where it does relative to its click, `delay` after it.
    func networkRatio(install: InstallEvidence, click: ClickEvidence, candidates: CandidateSet, crowd: Double, delay: TimeInterval) -> Double {
        guard let installAddress = install.addressHash, let clickAddress = click.addressHash else { return 1 }
        let elapsed = max(0, delay.isFinite ? delay : 0)
        func approach(_ share: Double, _ time: TimeInterval) -> Double {
            min(1, max(0, share)) * (1 - Foundation.exp(-elapsed / max(time, 1)))
        }
        let stay = 1 - approach(model.networkChangeShare, model.networkChangeTime)
        let moved = approach(model.addressChangeShare, model.addressChangeTime)
        if installAddress == clickAddress {
            // How rare the address is among recent clicks: one household versus a carrier's shared address.
            // Shrunk toward a small prior share, so that a young app with few clicks is not told every address is common.
            let share = (Double(max(candidates.sameAddressClicks, 1)) + model.priorWeight * 0.001) / (crowd + model.priorWeight)
            return stay * (1 - moved) / min(1, share)
        }
        if let network = install.networkHash, network == click.networkHash {
            let share = (Double(max(candidates.sameNetworkClicks, 1)) + model.priorWeight * 0.005) / (crowd + model.priorWeight)
            return max(stay * moved, 0.002) / min(1, share)
        }
        let share = Double(max(candidates.sameNetworkClicks, 0)) / crowd
        return max(1 - stay, 0.005) / max(0.05, 1 - share)
    }

    /// The click-to-launch delay's density (a mixture of a quick and a slow log-normal) against a uniform spread
    /// over the window.
    func delayRatio(_ delay: TimeInterval, window: TimeInterval) -> Double {
        let seconds = max(delay, 1)
        func logNormal(median: Double, spread: Double) -> Double {
            let z = (Foundation.log(seconds) - Foundation.log(max(median, 1))) / max(spread, 0.05)
            return Foundation.exp(-0.5 * z * z) / (seconds * max(spread, 0.05) * (2 * Double.pi).squareRoot())
        }
        let quick = min(1, max(0, model.quickDelayShare))
        let density = quick * logNormal(median: model.medianDelay, spread: model.delaySpread)
            + (1 - quick) * logNormal(median: model.slowMedianDelay, spread: model.slowDelaySpread)
        let ratio = density * window
        return ratio.isFinite ? min(100, max(0.02, ratio)) : 1
    }

    func osRatio(click: String?, install: String?, platform: String?, context: Context) -> Double {
        guard let click = click.flatMap(context.majorMinor), let install = install.flatMap(context.majorMinor) else { return 1 }
        // Browsers from iOS 26 on report a frozen 18.6; that says nothing.
        if click == "18.6", let major = Int(install.split(separator: ".")[0]), major >= 26 { return 1 }
        // Chrome's reduced user agent says Android 10 whatever the version.
        if click == "10.0", platform?.lowercased() == "android" { return 1 }
        if click == install {
            // As common as the version is among the clicks around (18.6 is every iOS 26 Safari's too).
            let prior = click == "18.6" ? model.qFrozenOS : model.qSameOS
            let q = shrunk(count: context.osCounts[click, default: 0], total: context.osTotal, prior: prior)
            return model.pSameOS / q
        }
        // An update between click and launch is rare, and goes forward only.
        if Self.versionLess(click, install) { return (1 - model.pSameOS) * 0.8 / (1 - model.qSameOS) }
        return (1 - model.pSameOS) * 0.2 / (1 - model.qSameOS)
    }

    /// The device family, screen and time zone.
    func deviceRatio(click: ClickEvidence, signals: DeviceSignals, context: Context) -> Double {
        let qScreen = model.qSameScreen, qZone = model.qSameTimeZone
        var ratio = 1.0
        if let device = click.appleDevice, let family = context.installFamily, family != device { ratio *= 0.01 }
        var sameScreen: Bool?
        if let cw = click.screenWidth, let ch = click.screenHeight, let iw = signals.screenWidth, let ih = signals.screenHeight,
           Self.plausibleSize(cw), Self.plausibleSize(ch), Self.plausibleSize(iw), Self.plausibleSize(ih) {
            let sameSize = (min(cw, ch), max(cw, ch)) == (min(iw, ih), max(iw, ih))
            var sameScale = true
            if let c = click.screenScale, let i = signals.screenScale {
                sameScale = Self.plausibleScale(c) && Self.plausibleScale(i) && abs(c - i) < 0.05
            }
            sameScreen = sameSize && sameScale
        }
        let sameZone = zoneAgreement(click: click, signals: signals)
        if sameScreen == true, sameZone == 1, let share = context.fingerprintShare, context.fingerprint == DeviceFingerprint.Parts(of: click) {
            // Screen and time zone together: as rare as the candidates show the install's fingerprint to be.
            let q = max(share, model.qSameScreen * model.qSameTimeZone * 0.02)
            return ratio * min(model.pSameScreen * model.pSameTimeZone / q, 1e6)
        }
        if let sameScreen {
            ratio *= sameScreen ? model.pSameScreen / qScreen : (1 - model.pSameScreen) / max(0.01, 1 - qScreen)
        }
        switch sameZone {
        case 1: ratio *= model.pSameTimeZone / qZone
        case -1: ratio *= (1 - model.pSameTimeZone) / max(0.01, 1 - qZone)
        default: break
        }
        return ratio
    }

    /// 1 when the time zones agree, -1 when they disagree, 0 when it cannot be told (or only the offsets agree).
    func zoneAgreement(click: ClickEvidence, signals: DeviceSignals) -> Int {
        if let a = click.timeZone, let b = signals.timeZone, Self.plausibleTag(a, max: 64), Self.plausibleTag(b, max: 64) {
            if a == b { return 1 }
            if let x = click.timeZoneOffsetSeconds, let y = signals.timeZoneOffsetSeconds, x == y { return 0 }
            return -1
        }
        if let x = click.timeZoneOffsetSeconds, let y = signals.timeZoneOffsetSeconds, x != y { return -1 }
        return 0
    }

    /// The first languages: the click's against the install's (read once, in the context).
    func languageRatio(click: [String], context: Context) -> Double {
        guard let first = click.first, let b = context.installLanguage, Self.plausibleTag(first, max: 35) else { return 1 }
        let a = first.lowercased()
        if a == b {
            // As common as the language is among the clicks around.
            let q = shrunk(count: context.languageCounts[a, default: 0], total: context.languageTotal, prior: model.qSameLanguage)
            return model.pSameLanguage / q
        }
        let q = model.qSameLanguage
        if a.prefix(while: { $0 != "-" && $0 != "_" }) == b.prefix(while: { $0 != "-" && $0 != "_" }) { return 1 }
        return (1 - model.pSameLanguage) / max(0.01, 1 - q)
    }

    /// A share seen on the candidates, pulled towards the model's prior: `(count + w·prior) / (total + w)`.
    func shrunk(count: Int, total: Int, prior: Double) -> Double {
        let weight = max(0, model.priorWeight)
        let value = (Double(count) + weight * prior) / (Double(total) + weight)
        return value.isFinite ? min(1, max(0.005, value)) : prior
    }

    /// Screen sizes as `AttributionRules` accepts them; anything else says nothing.
    static func plausibleSize(_ value: Int) -> Bool { (1...20_000).contains(value) }

    static func plausibleScale(_ value: Double) -> Bool { value.isFinite && value > 0 && value <= 10 }

    /// A time zone name or language tag short enough to be one.
    static func plausibleTag(_ text: String, max: Int) -> Bool { !text.isEmpty && text.utf8.count <= max }

    /// `iphone`, `ipad` or `ipod` for a device model (`iPhone16,2`), as clicks' user agents name the family.
    static func deviceFamily(model: String) -> String? {
        let model = model.lowercased()
        return model.hasPrefix("ipad") ? "ipad" : model.hasPrefix("ipod") ? "ipod" : model.hasPrefix("iphone") ? "iphone" : nil
    }

    static func majorMinor(_ version: String) -> String? {
        guard version.utf8.count <= 32 else { return nil }
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

    /// The calibration measured by the simulator (docs/attribution.md): an isotonic fit of observed precision
    /// against the posterior over the matches of seed 1 (`swift run -c release AttributionSimulator --seed 1 --fit
    /// --raw`), checked on seed 3. Below the fitted range it follows the posterior, which the simulator finds nearly
    /// calibrated; it never states more than 0.998, certainty being for deterministic matches.
    public static let `default` = Calibration(points: [
        (0, 0),
        (0.892445, 0.8975),
        (0.939096, 0.9175),
        (0.965703, 0.9400),
        (0.980582, 0.9800),
        (0.990445, 0.9850),
        (0.996086, 0.9850),
        (0.998121, 0.9950),
        (0.999584, 0.9978),
        (0.999983, 0.9980),
        (0.999998, 0.9980),
    ])

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
    /// The platforms whose clicks can lead to an install: a click from a desktop browser, a bot or a TV is never a
    /// candidate (and stores need not index such clicks by address or network).
    public static let attributablePlatforms: [ClientPlatform] = [.iOS, .android]
    /// `attributablePlatforms` as an SQL condition on the `platform` column of clicks (the condition of SQLite's
    /// partial indexes by address and network, which a query must repeat for them to be used).
    public static let attributablePlatformsSQL = "platform IN ('ios', 'android')"

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
