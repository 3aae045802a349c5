import Foundation

/// Populations that differ in what matters to matching: how soon people open the app, how households share devices,
/// how often they change networks, how many installs come without a click, how many deterministic signals an app
/// gets. Training families may be looked at while choosing the model's priors and settings; held-out families are
/// only measured, so their figures say how the model does on populations it was not fitted to.
enum PopulationFamily: String, Sendable, CaseIterable {
    /// Today's mixed population (the default `SimulationConfig`).
    case mixed
    /// E-mail campaigns: installs spread over hours and the next day.
    case slowBurn
    /// Half the devices work in offices, on the office's Wi-Fi on weekdays.
    case office
    /// Large households, often with the same phone, clicking the same links.
    case bigFamilies
    /// Many open the app within a minute of the click.
    case fastOpeners
    /// People change networks far more often (commuting, cellular by day).
    case commuters
    /// Three installs in four come without a click.
    case organicHeavy
    /// Almost all iOS, no copy-to-open, few Play referrers: what is learnt must come from the undecided installs.
    case noLabels
    /// Mostly Android, and mostly on carrier-grade NAT: few homes with Wi-Fi, cellular most of the day, carriers
    /// that put all their subscribers behind two to eight addresses.
    case carrierHeavy
    /// A population described independently of the simulator's own defaults: households, carrier NAT, offices,
    /// people switching networks and organic installs as in `mixed`, and installs from 25 seconds to 20 hours after
    /// their click (log-uniform from 25 s to 2 h for 60% of them, from 2 h to 20 h for 40%).
    case independent

    /// The families used to choose priors and settings.
    static let training: [PopulationFamily] = [.mixed, .slowBurn, .office, .bigFamilies]
    /// The families never looked at before the final report.
    static let heldOut: [PopulationFamily] = [.fastOpeners, .commuters, .organicHeavy, .noLabels, .carrierHeavy, .independent]

    /// Whether the family is held out.
    var isHeldOut: Bool { Self.heldOut.contains(self) }

    /// The family's population, from a base configuration (seed, size, signals) whose population knobs it sets.
    func config(from base: SimulationConfig = SimulationConfig()) -> SimulationConfig {
        var config = base
        switch self {
        case .mixed:
            break
        case .slowBurn:
            config.delayComponents = [
                DelayComponent(weight: 0.3, median: 10 * 60, spread: 0.8),
                DelayComponent(weight: 0.3, median: 4 * 3600, spread: 1.0),
                DelayComponent(weight: 0.4, median: 14 * 3600, spread: 0.7),
            ]
        case .office:
            config.officeShare = 0.5
        case .bigFamilies:
            config.householdSizes = [(3, 0.3), (4, 0.3), (5, 0.25), (6, 0.15)]
            config.samePhoneShare = 0.7
            config.familyCoClickShare = 0.3
            config.organicNearClickShare = 0.15
        case .fastOpeners:
            config.delayComponents = [
                DelayComponent(weight: 0.45, median: 35, spread: 0.6),
                DelayComponent(weight: 0.35, median: 6 * 60, spread: 0.7),
                DelayComponent(weight: 0.20, median: 3 * 3600, spread: 1.0),
            ]
            config.minimumDelay = 10
        case .commuters:
            config.networkKeep = 0.3
        case .organicHeavy:
            config.organicShare = 0.75
        case .noLabels:
            config.iosShare = 0.95
            config.copyToOpenShare = 0
            config.androidReferrerShare = 0.5
            config.userClickLabelShare = 0
        case .carrierHeavy:
            config.iosShare = 0.3
            config.householdSizes = [(1, 0.55), (2, 0.25), (3, 0.12), (4, 0.08)]
            config.cellularOnlySingleShare = 0.8
            config.placeShares = PlaceShares(
                atWork: .init(wifi: 0.5, cellular: 0.45), homeEvening: .init(wifi: 0.35, cellular: 0.6),
                homeDay: .init(wifi: 0.15, cellular: 0.8), noHomeCellular: 0.95)
            config.carriers = [
                PopulationTables.Carrier(name: "big CGNAT carrier", share: 0.40, pool: 8, perNetwork: 4),
                PopulationTables.Carrier(name: "CGNAT carrier", share: 0.30, pool: 4, perNetwork: 4),
                PopulationTables.Carrier(name: "IPv6 carrier", share: 0.08, pool: 0, perNetwork: 0),
                PopulationTables.Carrier(name: "small CGNAT MVNO", share: 0.22, pool: 2, perNetwork: 2),
            ]
        case .independent:
            config.delayComponents = [
                DelayComponent(weight: 0.6, shape: .logUniform(from: 25, to: 2 * 3600)),
                DelayComponent(weight: 0.4, shape: .logUniform(from: 2 * 3600, to: 20 * 3600)),
            ]
            config.minimumDelay = 25
        }
        return config
    }
}
