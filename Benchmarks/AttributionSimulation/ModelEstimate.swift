import FerryAPI
import FerryCore
import Foundation

/// Measures the numbers `MatchModel` is made of on a population: how often each signal agrees between a click and
/// the install it caused (`p`), and between an install and an unrelated click of the same platform (`q`).
///
/// Only what the server could see is compared, the way the matcher compares it (first languages, major.minor OS
/// versions, portrait screen size and scale, time zone names), so the figures can be copied into the model.
struct ModelEstimate {
    struct Rate {
        var hits = 0
        var total = 0
        var value: Double { total == 0 ? .nan : Double(hits) / Double(total) }
        mutating func add(_ hit: Bool) { total += 1; if hit { hits += 1 } }
    }

    var clickedShare = Rate()
    var sameAddress = Rate()
    var sameNetworkOnly = Rate()
    var noSharedKey = Rate()
    var pOS = Rate(), qOS = Rate()
    var pScreen = Rate(), qScreen = Rate()
    var pZone = Rate(), qZone = Rate()
    var pLanguage = Rate(), qLanguage = Rate()
    var pScreenLocal = Rate(), pZoneLocal = Rate(), pLanguageLocal = Rate()
    var logDelays: [Double] = []
    /// (delay, 0 same address / 1 same network only / 2 changed network) of each click-caused install.
    var moves: [(delay: Double, kind: Int)] = []
    var frozenOS = Rate()
    /// Organic installs, and unrelated clicks, by how many clicks their address had in the window: how much more
    /// (or less) often an unrelated install comes from an address than its share of clicks says.
    var addressAffinity: [(label: String, upTo: Int, installs: Int, clicks: Int)] = [
        ("0", 0, 0, 0), ("1", 1, 0, 0), ("2", 2, 0, 0), ("3", 3, 0, 0), ("4–5", 5, 0, 0), ("6–10", 10, 0, 0), ("11–20", 20, 0, 0),
        ("21–100", 100, 0, 0), ("101–500", 500, 0, 0), ("> 500", Int.max, 0, 0),
    ]
    var androidClickedShare = Rate()
    /// Per delay bucket: same address, same network only, changed network.
    var networkByDelay: [(label: String, upTo: Double, address: Int, networkOnly: Int, changed: Int)] = [
        ("< 10 min", 600, 0, 0, 0), ("10–60 min", 3600, 0, 0, 0), ("1–3 h", 3 * 3600, 0, 0, 0), ("3–6 h", 6 * 3600, 0, 0, 0),
        ("6–12 h", 12 * 3600, 0, 0, 0), ("12–24 h", 24 * 3600, 0, 0, 0),
    ]

    init(population: Population) {
        var random = SimulationRandom(seed: population.config.seed, stream: "estimate")
        let clicks = population.clicks
        let window = population.config.window
        let byPlatform = Dictionary(grouping: clicks.indices, by: { clicks[$0].platform.rawValue })
        // Clicks of one household, for how alike household members are.
        var householdClicks: [Int: [Int]] = [:]
        for click in clicks { if let h = population.devices[click.device].household { householdClicks[h, default: []].append(click.index) } }

        for click in clicks where click.platform == .iOS { frozenOS.add(click.evidence.osVersion == "18.6") }
        let index = ClickIndex(clicks: clicks, start: population.config.start)
        func addressCount(_ address: String, platform: String, at: Date) -> Int {
            let probe = InstallEvidence(addressHash: address, networkHash: nil, signals: DeviceSignals(), at: at)
            return index.candidates(CandidateQuery(appID: "", environment: .live, install: probe, window: window), platform: platform, now: at).sameAddressClicks
        }
        var affinityRandom = SimulationRandom(seed: population.config.seed, stream: "affinity")
        for install in population.installs where install.t >= 0 && install.truth.clickIndex == nil {
            let platform = install.signals.platform ?? "ios"
            let at = population.date(install.t)
            let own = addressCount(install.endpoint.address, platform: platform, at: at)
            if let b = addressAffinity.firstIndex(where: { own <= $0.upTo }) { addressAffinity[b].installs += 1 }
            // A click drawn at random from the same window: its address's count, so that buckets weigh by clicks.
            guard let pool = byPlatform[platform] else { continue }
            for _ in 0..<12 {
                let click = clicks[pool[affinityRandom.below(pool.count)]]
                guard click.t <= install.t, click.t >= install.t - window, let address = click.evidence.addressHash else { continue }
                let count = addressCount(address, platform: platform, at: at)
                if let b = addressAffinity.firstIndex(where: { count <= $0.upTo }) { addressAffinity[b].clicks += 1 }
                break
            }
        }
        for install in population.installs where install.deterministic == nil && install.t >= 0 {
            let platform = install.signals.platform ?? "ios"
            let inWindow = install.truth.clickIndex.map { clicks[$0].t >= install.t - window && clicks[$0].platform.rawValue == platform } ?? false
            if platform == "android" { androidClickedShare.add(inWindow) } else { clickedShare.add(inWindow) }
            if case .clicked(let index, let delay) = install.truth {
                let click = clicks[index]
                guard delay <= window, click.platform.rawValue == platform else { continue }
                logDelays.append(Foundation.log(max(delay, 1)))
                let kind = click.evidence.addressHash == install.endpoint.address ? 0 : click.evidence.networkHash == install.endpoint.network ? 1 : 2
                moves.append((delay, kind))
                if let b = networkByDelay.firstIndex(where: { delay <= $0.upTo }) {
                    if click.evidence.addressHash == install.endpoint.address { networkByDelay[b].address += 1 }
                    else if click.evidence.networkHash == install.endpoint.network { networkByDelay[b].networkOnly += 1 }
                    else { networkByDelay[b].changed += 1 }
                }
                compare(click.evidence, install, sameAddress: &sameAddress, networkOnly: &sameNetworkOnly,
                        os: &pOS, screen: &pScreen, zone: &pZone, language: &pLanguage)
                let fingerprint = DeviceFingerprint.key(width: install.signals.screenWidth, height: install.signals.screenHeight,
                                                        scale: install.signals.screenScale, timeZone: install.signals.timeZone)
                noSharedKey.add(click.evidence.addressHash != install.endpoint.address && click.evidence.networkHash != install.endpoint.network
                                && (click.fingerprint == nil || click.fingerprint != fingerprint))
            }
            // An unrelated click of the same platform from around the same time.
            if let pool = byPlatform[platform], !pool.isEmpty {
                for _ in 0..<4 {
                    let other = clicks[pool[random.below(pool.count)]]
                    guard other.device != install.device else { continue }
                    var ignored = Rate(), ignored2 = Rate()
                    compare(other.evidence, install, sameAddress: &ignored, networkOnly: &ignored2, os: &qOS, screen: &qScreen, zone: &qZone, language: &qLanguage)
                }
            }
            // Another device of the same household that clicked: how alike are people who share an address.
            if let h = population.devices[install.device].household, let local = householdClicks[h] {
                for index in local where clicks[index].device != install.device && clicks[index].platform.rawValue == platform {
                    var ignored = Rate(), ignored2 = Rate(), ignored3 = Rate()
                    compare(clicks[index].evidence, install, sameAddress: &ignored, networkOnly: &ignored2, os: &ignored3,
                            screen: &pScreenLocal, zone: &pZoneLocal, language: &pLanguageLocal)
                }
            }
        }
    }

    private func compare(_ click: ClickEvidence, _ install: SimInstall, sameAddress: inout Rate, networkOnly: inout Rate,
                         os: inout Rate, screen: inout Rate, zone: inout Rate, language: inout Rate) {
        let signals = install.signals
        let address = click.addressHash == install.endpoint.address
        sameAddress.add(address)
        networkOnly.add(!address && click.networkHash == install.endpoint.network)
        if let c = click.osVersion.map(Self.majorMinor), let i = signals.osVersion.map(Self.majorMinor),
           !(c == "18.6" && (Int(i.split(separator: ".")[0]) ?? 0) >= 26), !(c == "10.0" && signals.platform == "android") {
            os.add(c == i)
        }
        if let w = click.screenWidth, let h = click.screenHeight, let s = click.screenScale {
            screen.add(w == signals.screenWidth && h == signals.screenHeight && abs(s - (signals.screenScale ?? 0)) < 0.05)
        }
        if let z = click.timeZone, let iz = signals.timeZone { zone.add(z == iz) }
        if let l = click.languages.first?.lowercased(), let il = signals.languages?.first?.lowercased() { language.add(l == il) }
    }

    static func majorMinor(_ version: String) -> String {
        let parts = version.split(separator: ".")
        return "\(parts.first ?? "0").\(parts.count > 1 ? parts[1] : "0")"
    }

    /// Maximum-likelihood fit of `share · (1 − exp(−delay / time))` to a yes/no outcome per install.
    static func fitApproach(_ samples: [(delay: Double, yes: Bool)]) -> (share: Double, time: Double) {
        var best = (share: 0.5, time: 3600.0, logLikelihood: -Double.infinity)
        for shareStep in 1...99 {
            let share = Double(shareStep) / 100
            for timeStep in 1...120 {
                let time = Double(timeStep) * 900
                var ll = 0.0
                for sample in samples {
                    let p = min(1 - 1e-9, max(1e-9, share * (1 - Foundation.exp(-sample.delay / time))))
                    ll += sample.yes ? Foundation.log(p) : Foundation.log(1 - p)
                }
                if ll > best.logLikelihood { best = (share, time, ll) }
            }
        }
        return (best.share, best.time)
    }

    /// A two-component Gaussian mixture on log delays (EM): (weight, median in seconds, spread) per component.
    func delayMixture() -> [(weight: Double, median: Double, spread: Double)] {
        guard logDelays.count > 10 else { return [] }
        var w = [0.7, 0.3], mu = [Foundation.log(600.0), Foundation.log(4 * 3600.0)], sigma = [1.0, 1.0]
        for _ in 0..<200 {
            var sw = [0.0, 0.0], smu = [0.0, 0.0], ssq = [0.0, 0.0]
            for x in logDelays {
                let d = (0..<2).map { k in w[k] * Foundation.exp(-0.5 * pow((x - mu[k]) / sigma[k], 2)) / sigma[k] }
                let total = max(d[0] + d[1], 1e-300)
                for k in 0..<2 {
                    let r = d[k] / total
                    sw[k] += r; smu[k] += r * x; ssq[k] += r * x * x
                }
            }
            for k in 0..<2 {
                w[k] = sw[k] / Double(logDelays.count)
                mu[k] = smu[k] / sw[k]
                sigma[k] = max(0.2, (ssq[k] / sw[k] - mu[k] * mu[k]).squareRoot())
            }
        }
        return (0..<2).map { (w[$0], Foundation.exp(mu[$0]), sigma[$0]) }
    }

    func render() -> String {
        var table = TextTable(header: ["number", "measured", "what it is"])
        func row(_ name: String, _ rate: Rate, _ text: String) { table.rows.append([name, Format.number(rate.value), text]) }
        row("clickedShare", clickedShare, "probabilistic-tier iOS installs caused by a click inside the window")
        row("androidClickedShare", androidClickedShare, "…among Android installs")
        row("(same address)", sameAddress, "install from the address of its click, all delays")
        row("(same network only)", sameNetworkOnly, "install from another address of the click's network, all delays")
        row("pNoSharedKey", noSharedKey, "true click shares no address, network or fingerprint with the install")
        row("pSameOS", pOS, "OS major.minor agrees with its click (informative pairs)")
        row("qSameOS", qOS, "…with an unrelated click")
        row("qFrozenOS", frozenOS, "iOS clicks reporting Safari's frozen 18.6")
        row("pSameScreen", pScreen, "screen agrees with its click")
        row("qSameScreen", qScreen, "…with an unrelated click")
        row("qSameScreen (household)", pScreenLocal, "…with another household member's click")
        row("pSameTimeZone", pZone, "time zone agrees with its click")
        row("qSameTimeZone", qZone, "…with an unrelated click")
        row("qSameTimeZone (household)", pZoneLocal, "…with another household member's click")
        row("pSameLanguage", pLanguage, "first language agrees with its click")
        row("qSameLanguage", qLanguage, "…with an unrelated click")
        row("qSameLanguage (household)", pLanguageLocal, "…with another household member's click")
        var lines = ["Model numbers measured on this population", table.render()]
        let installTotal = Double(max(1, addressAffinity.reduce(0) { $0 + $1.installs }))
        let clickTotal = Double(max(1, addressAffinity.reduce(0) { $0 + $1.clicks }))
        lines.append("  organic installs against clicks, by the clicks their address had in the window:")
        for b in addressAffinity {
            let i = Double(b.installs) / installTotal, c = Double(b.clicks) / clickTotal
            lines.append(String(format: "    %-8@ organic installs %.4f, clicks %.4f, ratio %@", b.label as NSString, i, c, (c > 0 ? String(format: "%.3f", i / c) : "—") as NSString))
        }
        lines.append("  where the install came from, by click-to-launch delay (click-caused, probabilistic tier):")
        for b in networkByDelay {
            let total = Double(max(1, b.address + b.networkOnly + b.changed))
            lines.append(String(format: "    %-10@ n=%5d  same address %.3f, same network only %.3f, changed %.3f",
                                b.label as NSString, b.address + b.networkOnly + b.changed, Double(b.address) / total, Double(b.networkOnly) / total, Double(b.changed) / total))
        }
        let network = Self.fitApproach(moves.map { ($0.delay, $0.kind == 2) })
        let address = Self.fitApproach(moves.filter { $0.kind != 2 }.map { ($0.delay, $0.kind == 1) })
        lines.append(String(format: "  networkChangeShare %.2f, networkChangeTime %.2f h (changed network, fitted on delay)", network.share, network.time / 3600))
        lines.append(String(format: "  addressChangeShare %.2f, addressChangeTime %.2f h (same network, other address)", address.share, address.time / 3600))
        for (k, component) in delayMixture().enumerated() {
            lines.append(String(format: "  delay component %d: weight %.3f, median %.0f s, spread %.3f", k + 1, component.weight, component.median, component.spread))
        }
        return lines.joined(separator: "\n")
    }
}
