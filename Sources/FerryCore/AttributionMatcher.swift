import FerryAPI
import Foundation

/// The matcher's answer.
package enum MatchOutcome: Sendable, Hashable {
    /// The install is attributed to this click.
    case matched(clickID: String, linkID: String, confidence: Double)
    /// No click is likely enough.
    case declined(reason: DeclineReason)

    /// Why no click was chosen.
    package enum DeclineReason: String, Sendable, Hashable {
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
package struct AttributionMatcher: Sendable {
    /// The model.
    package var model: MatchModel
    /// Maps posteriors to the confidence the answer states (from the simulator's calibration).
    package var calibration: Calibration

    /// Creates a matcher.
    package init(model: MatchModel = MatchModel(), calibration: Calibration = .default) {
        self.model = model
        self.calibration = calibration
    }

    /// Posterior probability per candidate that it caused the install.
    package func posteriors(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval) -> [(click: ClickEvidence, posterior: Double)] {
        weigh(install: install, candidates: candidates, window: window).map { (candidates.clicks[$0.index], $0.posterior) }
    }

    /// The posterior of each usable candidate, by its place in `candidates.clicks` (the hundreds of candidates of a
    /// busy window are read where they are, not copied).
    func weigh(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval) -> [(index: Int, posterior: Double)] {
        let weights = self.weights(install: install, candidates: candidates, window: window)
        guard !weights.clicks.isEmpty, weights.total.isFinite, weights.total > 0 else { return [] }
        return weights.clicks.map { ($0.index, $0.weight / weights.total) }
    }

    /// The unnormalised weights of every way the install may have come about: organic, a click that is not a
    /// candidate, or each usable candidate. Their shares are the posteriors.
    package struct Weights: Sendable {
        /// The install came without a click.
        package var organic: Double
        /// It came from a click of the window that shares no address, network or fingerprint with it.
        package var others: Double
        /// It came from this candidate (by its place in `candidates.clicks`).
        package var clicks: [(index: Int, weight: Double)]
        /// The sum of all of them.
        package var total: Double { organic + others + clicks.reduce(0) { $0 + $1.weight } }
    }

    /// The weights for one install (its usable candidates only; none when no candidate is usable).
    package func weights(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval) -> Weights {
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
        let crowd = Double(max(candidates.clicksInWindow, usable.count, 1))
        let android = install.signals.platform?.lowercased() == "android"
        let clickedShare = min(0.99, max(0.01, model.clickedShare(android: android, sameAddressClicks: candidates.sameAddressClicks)))
        // Clicks that are not candidates share no address, network or fingerprint with the install: that is
        // evidence against each of them, by the odds of a click-caused install sharing nothing with its click.
        let others = clickedShare * max(0, crowd - Double(usable.count)) / crowd * min(1, model.pNoSharedKey / max(0.05, 1 - Double(usable.count) / crowd))
        guard !usable.isEmpty else { return Weights(organic: 1 - clickedShare, others: others, clicks: []) }
        // Counts that contradict each other are taken at their most cautious.
        var candidates = candidates
        candidates.clicksInWindow = Int(crowd)
        candidates.sameAddressClicks = min(max(candidates.sameAddressClicks, 0), Int(crowd))
        candidates.sameNetworkClicks = min(max(candidates.sameNetworkClicks, candidates.sameAddressClicks), Int(crowd))
        let priorPerClick = clickedShare / crowd
        let context = Context(install: install, clicks: clicks, usable: usable, crowd: crowd, window: window, matcher: self)
        let weights = usable.map { priorPerClick * likelihoodRatio(install: install, click: clicks[$0], candidates: candidates, context: context) }
        return Weights(organic: 1 - clickedShare, others: others, clicks: Array(zip(usable, weights)))
    }

    /// The decision for one install: the best click when its posterior reaches `acceptThreshold` (the model's by
    /// default, `MatchModel.acceptThreshold(rich:)`) and no click of another link comes close.
    ///
    /// With `minConfidence`, the threshold is instead the smallest posterior the calibration states at least that sure
    /// (`Calibration.posterior(forConfidence:)`), and `acceptThreshold` is not read: a match then always states a
    /// confidence of at least `minConfidence`, and a minimum above the calibration's highest confidence matches nothing.
    package func match(install: InstallEvidence, candidates: CandidateSet, window: TimeInterval, acceptThreshold: Double? = nil,
                       minConfidence: Double? = nil) -> MatchOutcome {
        let weighed = weigh(install: install, candidates: candidates, window: window)
        // The likeliest click (the first of equals, in the candidates' order).
        guard var best = weighed.first else { return .declined(reason: .noCandidates) }
        for each in weighed.dropFirst() where each.posterior > best.posterior { best = each }
        guard best.posterior.isFinite else { return .declined(reason: .tooWeak) }
        let threshold: Double
        if let minConfidence {
            guard let posterior = calibration.posterior(forConfidence: minConfidence) else { return .declined(reason: .tooWeak) }
            threshold = posterior
        } else {
            threshold = acceptThreshold ?? model.acceptThreshold(rich: DeviceFingerprint.Parts(of: candidates.clicks[best.index]) != nil)
        }
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
        let confidence = calibration.confidence(forPosterior: best.posterior)
        // The calibration is monotone up to rounding where its segments meet: the stated confidence is what must reach
        // the minimum.
        if let minConfidence, confidence < minConfidence { return .declined(reason: .tooWeak) }
        return .matched(clickID: clicks[best.index].clickID, linkID: bestLink, confidence: confidence)
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
            if let frequencies = model.frequencies {
                // As common as the app's clicks show it to be, unless the window's other clicks show it commoner.
                let app = frequencies.fingerprintShare(fingerprint.key, screen: ValueFrequencies.screenKey(
                    width: signals.screenWidth, height: signals.screenHeight, scale: signals.screenScale), zone: fingerprint.timeZone)
                fingerprintShare = min(1, max(app, (estimate - 1) / crowd))
                return
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
        ratio *= languageRatio(click: click.languages, zone: zoneAgreement(click: click, signals: signals) == 1 ? signals.timeZone : nil, context: context)
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

    /// The click-to-launch delay's density (a mixture of a quick and a slow log-normal, or the app's learnt
    /// `DelayMixture`) against how the delays of unrelated clicks spread: evenly over the window, or as the app's
    /// `UnrelatedDelays` say.
    func delayRatio(_ delay: TimeInterval, window: TimeInterval) -> Double {
        if let mixture = model.delayMixture {
            // Against how unrelated clicks' delays spread, when the app's are known.
            guard let unrelated = model.unrelatedDelays else { return mixture.ratio(delay, window: window) }
            return min(1000, max(0.001, mixture.ratio(delay, window: window) / unrelated.factor(delay)))
        }
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
            let prior = model.frequencies?.share(of: click, in: \.os, prior: model.qSameOS) ?? (click == "18.6" ? model.qFrozenOS : model.qSameOS)
            let q = shrunk(count: context.osCounts[click, default: 0], total: context.osTotal, prior: prior)
            return model.pSameOS / q
        }
        let same = model.frequencies.map { min(0.99, $0.share(of: install, in: \.os, prior: model.qSameOS)) } ?? model.qSameOS
        // An update between click and launch is rare, and goes forward only.
        if Self.versionLess(click, install) { return (1 - model.pSameOS) * 0.8 / (1 - same) }
        return (1 - model.pSameOS) * 0.2 / (1 - same)
    }

    /// The device family, screen and time zone.
    func deviceRatio(click: ClickEvidence, signals: DeviceSignals, context: Context) -> Double {
        var qScreen = model.qSameScreen, qZone = model.qSameTimeZone
        if let frequencies = model.frequencies {
            if let screen = ValueFrequencies.screenKey(width: signals.screenWidth, height: signals.screenHeight, scale: signals.screenScale) {
                qScreen = min(0.99, frequencies.share(of: screen, in: \.screen, prior: model.qSameScreen))
            }
            if let zone = signals.timeZone { qZone = min(0.99, frequencies.share(of: zone, in: \.zone, prior: model.qSameTimeZone)) }
        }
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
            let q = model.frequencies != nil ? share : max(share, model.qSameScreen * model.qSameTimeZone * 0.02)
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

    /// The first languages: the click's against the install's (read once, in the context). `zone` is the time zone the
    /// click and the install agree on, if they do.
    func languageRatio(click: [String], zone: String? = nil, context: Context) -> Double {
        guard let first = click.first, let b = context.installLanguage, Self.plausibleTag(first, max: 35) else { return 1 }
        let a = first.lowercased()
        let prior = model.frequencies.map { min(0.99, $0.share(of: b, in: \.language, prior: model.qSameLanguage)) } ?? model.qSameLanguage
        if a == b {
            // As common as the language is among the clicks around, and at least as common as it is in the time zone
            // already counted (languages go with places).
            var q = shrunk(count: context.languageCounts[a, default: 0], total: context.languageTotal, prior: prior)
            if let zone, let inZone = model.frequencies?.languageShare(a, inZone: zone, prior: prior) { q = max(q, min(0.99, inZone)) }
            return model.pSameLanguage / q
        }
        let q = prior
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
    package static func deviceFamily(model: String) -> String? {
        let model = model.lowercased()
        return model.hasPrefix("ipad") ? "ipad" : model.hasPrefix("ipod") ? "ipod" : model.hasPrefix("iphone") ? "iphone" : nil
    }

    package static func majorMinor(_ version: String) -> String? {
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
