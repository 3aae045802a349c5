import Foundation

/// The numbers behind the probabilistic matcher. Each `p…` is how often a signal agrees between a click and the
/// install it caused; each `q…` how often it agrees between unrelated devices. The defaults come from the
/// attribution simulator (`Benchmarks/AttributionSimulator`), which also measures how well they are calibrated
/// (docs/attribution.md). A model learnt for an app is stored as JSON (every field, the optional ones when set).
package struct MatchModel: Sendable, Hashable, Codable {
    /// Prior probability that an install reaching the probabilistic tier came from some click at all (the rest are
    /// organic).
    package var clickedShare = 0.52
    /// The same prior for Android installs: clicks there carry the Play Store referrer, so the Android installs
    /// left for this tier are mostly organic.
    package var androidClickedShare = 0.06
    /// Share of click-caused installs that come from another network than their click's once a long time has
    /// passed (Wi-Fi at home, cellular on the way, the office by day)…
    package var networkChangeShare = 0.59
    /// …approached as `1 - exp(-delay / networkChangeTime)`: minutes after a click, almost everyone is still
    /// where they clicked.
    package var networkChangeTime: TimeInterval = 3.25 * 3600
    /// Of the installs still on their click's network, the share that comes from another address of it (IPv6
    /// privacy addresses renewed daily, a DHCP lease, a carrier's NAT pool) once a long time has passed…
    package var addressChangeShare = 0.50
    /// …approached the same way.
    package var addressChangeTime: TimeInterval = 14.25 * 3600
    /// The install shares neither address, network nor device fingerprint with its click, so its click is not
    /// even a candidate: the weight left to the clicks the store did not hand over.
    package var pNoSharedKey = 0.015
    /// OS versions (major.minor) agree between a click and its install.
    package var pSameOS = 0.98
    /// How often unrelated devices share an OS version (before the candidates say how common the install's is).
    package var qSameOS = 0.17
    /// How many iOS clicks report Safari's frozen `18.6`.
    package var qFrozenOS = 0.62
    /// Screens agree.
    package var pSameScreen = 0.99
    /// How often unrelated devices share a screen, when the candidates cannot tell how common the install's is.
    package var qSameScreen = 0.16
    /// Time zones agree.
    package var pSameTimeZone = 0.99
    /// How often unrelated devices share a time zone, when the candidates cannot tell.
    package var qSameTimeZone = 0.24
    /// First languages agree.
    package var pSameLanguage = 0.98
    /// How often unrelated devices share a first language (before the candidates say how common the install's is).
    package var qSameLanguage = 0.53
    /// How many candidates' worth of weight the `q` numbers above carry against what the candidate set shows
    /// (how common the install's OS version and language are among the clicks around it).
    package var priorWeight = 20.0
    /// Share of clicks whose first launch comes soon (minutes); the rest come hours later.
    package var quickDelayShare = 0.67
    /// Median delay between a click and the first launch, for quick launches.
    package var medianDelay: TimeInterval = 6 * 60
    /// Spread of that delay (standard deviation of its natural logarithm).
    package var delaySpread = 0.7
    /// Median delay of the later launches.
    package var slowMedianDelay: TimeInterval = 3.37 * 3600
    /// Spread of the later launches' delay.
    package var slowDelaySpread = 1.08
    /// A match is made only at or above this posterior.
    package var acceptThreshold = 0.85
    /// Declines when a click of another link comes within this factor of the best.
    package var ambiguityRatio = 0.25
    /// The share of installs that came from a click, learnt for an app by how many clicks the install's address had
    /// in the window (`addressBucket`): an install from a home address with one recent click is far likelier to come
    /// from it than the app-wide share says. Index 0 of each pair is iOS, 1 Android; nil: the shares above.
    package var clickedShareByAddress: [[Double]]?
    /// The delay model learnt for an app, in place of the two log-normals above; nil: those.
    package var delayMixture: DelayMixture?
    /// How the delays of clicks that did not cause an install spread, learnt for an app; nil: evenly over the window.
    package var unrelatedDelays: UnrelatedDelays?
    /// How common each signal value is among the app's clicks, in place of the `q…` shares above; nil: those.
    package var frequencies: ValueFrequencies?
    /// The posterior a match needs, learnt for an app (`AttributionLearner.targetPrecision`): index 0 for installs
    /// whose likeliest click came with the interstitial's page signals (screen and time zone), 1 for the others (the
    /// click was an HTTP request only); nil: `acceptThreshold` for all.
    package var learntThresholds: [Double]?

    /// The defaults.
    package init() {}

    /// The bucket of `clickedShareByAddress` for an install whose address had `clicks` clicks in the window:
    /// none, 1, 2, 3–5, 6–20, more.
    package static func addressBucket(_ clicks: Int) -> Int {
        switch clicks {
        case ...0: 0
        case 1: 1
        case 2: 2
        case 3...5: 3
        case 6...20: 4
        default: 5
        }
    }

    /// How many buckets `addressBucket` has.
    package static let addressBuckets = 6

    /// The posterior a match needs by default, for an install whose likeliest click came with page signals (`rich`)
    /// or not.
    package func acceptThreshold(rich: Bool) -> Double {
        guard let thresholds = learntThresholds, thresholds.count == 2 else { return acceptThreshold }
        let threshold = thresholds[rich ? 0 : 1]
        return threshold.isFinite ? threshold : acceptThreshold
    }

    /// The prior share of click-caused installs for this platform and address.
    package func clickedShare(android: Bool, sameAddressClicks: Int) -> Double {
        if let table = clickedShareByAddress, table.count == 2, table[android ? 1 : 0].count == Self.addressBuckets {
            return table[android ? 1 : 0][Self.addressBucket(sameAddressClicks)]
        }
        return android ? androidClickedShare : clickedShare
    }
}
