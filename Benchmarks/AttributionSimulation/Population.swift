import FerryAPI
import FerryCore
import Foundation

/// The knobs of a simulated population. The defaults are the "mixed population" the figures in
/// docs/attribution.md are measured on.
struct SimulationConfig: Sendable {
    /// Everything random follows from this.
    var seed: UInt64 = 1
    /// Installs to generate (click-caused and organic together).
    var installs = 40_000
    /// Days of traffic measured (after one day of warm-up so the first installs see a full window of clicks).
    var days = 7
    /// The app's attribution window.
    var window: TimeInterval = 86_400
    /// Share of installs with no click behind them.
    var organicShare = 0.40
    /// Share of converting clickers among all clicking devices (most clicks never lead to an install).
    var clickConversion = 0.30
    /// Share of devices on iOS (the rest Android).
    var iosShare = 0.70
    /// Share of iOS click-caused installs that read a click token from the pasteboard ("copy to open").
    var copyToOpenShare = 0.15
    /// Share of Android click-caused installs whose Play Store referrer carries the click id.
    var androidReferrerShare = 0.95
    /// Share of organic Android installs whose Play Store referrer arrives (naming no campaign of the app: Play's
    /// `utm_medium=organic`). Used only by replays with a learnt model, which take such an install as organic; drawn
    /// from its own stream, so the populations are the same whatever it is.
    var androidOrganicReferrerShare = 0.95
    /// Share of click-caused installs answered by the probabilistic tier whose click was made signed in on the app's
    /// website (its URL carrying the person's token) and whose user the app binds afterwards: the server then labels
    /// the install with that click. Used only by replays with a learnt model; drawn from its own stream.
    var userClickLabelShare = 0.10
    /// Share of iOS clicks whose page never reported its signals (scripts off, page left at once).
    var missingPageSignalsShare = 0.10
    /// Share of converting clickers who clicked once more before (the same link or another).
    var repeatClickShare = 0.10
    /// Share of clicks shared with another member of the household, who clicks the same link too.
    var familyCoClickShare = 0.12
    /// Share of organic installs made by a member of a household where someone else just clicked a link.
    var organicNearClickShare = 0.04
    /// Share of iPad clicks from Safari's desktop mode (a Mac user agent: not an iOS click at all).
    var iPadDesktopShare = 0.6
    /// Share of iOS devices updated to a newer OS during the simulated period.
    var osUpdateShare = 0.06
    /// Links of the app (popularity falls off as 1/rank).
    var links = 80
    /// Midnight UTC of the first measured day: Monday 5 January 2026.
    var start = Date(timeIntervalSince1970: 1_767_571_200)
    /// What iOS apps send with their match request (FerryKit's `FerryOptions.deviceSignals`); Android installs and
    /// the clicks' pages are unchanged.
    var installSignals = DeviceSignalsPolicy.all
    /// Click-to-first-launch delays: a mixture of components (log-normal or log-uniform), each with its weight.
    var delayComponents: [DelayComponent] = [
        DelayComponent(weight: 0.65, median: 6 * 60, spread: 0.7),
        DelayComponent(weight: 0.25, median: 2.5 * 3600, spread: 1.0),
        DelayComponent(weight: 0.10, median: 20 * 3600, spread: 0.8),
    ]
    /// The shortest delay, in seconds: nobody installs and opens an app faster.
    var minimumDelay: TimeInterval = 60
    /// Chance that a device is still on the network it was on half an hour before (where it may stay).
    var networkKeep = 0.6
    /// Household sizes and their weights.
    var householdSizes: [(size: Int, weight: Double)] = [(1, 0.27), (2, 0.33), (3, 0.16), (4, 0.15), (5, 0.09)]
    /// Chance that a household member's phone is the same hardware as the previous member's (same platform).
    var samePhoneShare = 0.45
    /// Share of devices whose owner works in an office (its Wi-Fi on weekdays).
    var officeShare = 0.18
    /// Share of one-person households with no home Wi-Fi: they live on cellular and public Wi-Fi.
    var cellularOnlySingleShare = 0.2
    /// Where a device goes when it moves, by the part of its schedule.
    var placeShares = PlaceShares()
    /// The mobile carriers devices subscribe to, with their shares and address pools.
    var carriers = PopulationTables.carriers
}

/// Where a device goes when it moves (at the start of a 90-minute block, when it does not stay where it was): for
/// each part of its schedule, the share of moves to its own Wi-Fi there and to cellular (CGNAT or IPv6, as its
/// carrier has it); public Wi-Fi takes the rest.
struct PlaceShares: Sendable, Hashable {
    /// One part of the schedule.
    struct Split: Sendable, Hashable {
        /// To the schedule's own Wi-Fi: the office's at work, home's otherwise.
        var wifi: Double
        /// To cellular.
        var cellular: Double
    }

    /// Weekday working hours (09:00–17:30 local) of a device whose owner works in an office.
    var atWork = Split(wifi: 0.85, cellular: 0.10)
    /// Evenings and nights (19:00–07:30 local) of a device with a home.
    var homeEvening = Split(wifi: 0.85, cellular: 0.11)
    /// The rest of the day of a device with a home.
    var homeDay = Split(wifi: 0.45, cellular: 0.43)
    /// Share of moves to cellular of a device with no home Wi-Fi, at any hour.
    var noHomeCellular = 0.88
}

/// One component of the delay mixture.
struct DelayComponent: Sendable, Hashable {
    /// How the component's delays are spread.
    enum Shape: Sendable, Hashable {
        /// Log-normal: this median delay, in seconds, and this standard deviation of its logarithm.
        case logNormal(median: TimeInterval, spread: Double)
        /// Log-uniform between two delays, in seconds: as many installs in every doubling of the delay.
        case logUniform(from: TimeInterval, to: TimeInterval)
    }

    /// Its share of installs.
    var weight: Double
    /// Its delays.
    var shape: Shape

    init(weight: Double, shape: Shape) {
        self.weight = weight
        self.shape = shape
    }

    /// A log-normal component: `median` in seconds, `spread` the standard deviation of the delay's logarithm.
    init(weight: Double, median: TimeInterval, spread: Double) {
        self.init(weight: weight, shape: .logNormal(median: median, spread: spread))
    }

    /// One delay drawn from the component.
    func draw(_ random: inout SimulationRandom) -> TimeInterval {
        switch shape {
        case .logNormal(let median, let spread): random.logNormal(median: median, spread: spread)
        case .logUniform(let lower, let upper): Foundation.exp(random.uniform(Foundation.log(lower)...Foundation.log(upper)))
        }
    }
}

/// Where a device is connected at some moment.
enum NetworkKind: String, Sendable, CaseIterable {
    case homeIPv4 = "home Wi-Fi (IPv4)"
    case homeIPv6 = "home Wi-Fi (IPv6)"
    case office = "office"
    case cgnat = "cellular CGNAT"
    case cellularIPv6 = "cellular IPv6"
    case venue = "public Wi-Fi"

    var isHome: Bool { self == .homeIPv4 || self == .homeIPv6 }
}

/// An address and network as the server sees them: opaque hashes.
struct Endpoint: Sendable, Hashable {
    var address: String
    var network: String
    var kind: NetworkKind
}

enum SimPlatform: String, Sendable {
    case iOS = "ios", android, desktop
}

struct SimDevice: Sendable {
    var platform: SimPlatform
    var hardware: PopulationTables.Hardware
    var model: String
    var os: String
    /// Seconds from the start when an automatic update installs `updatedOS`.
    var updateAt: Double?
    var updatedOS: String?
    var zone: PopulationTables.Zone
    var languages: [String]
    /// The first language Safari reports (usually the device's own).
    var browserLanguage: String
    var household: Int?
    var office: Int?
    var carrier: Int
    var phase: Double
    /// An Android device whose browser sends Chrome's reduced user agent (`Android 10; K`).
    var reducedUserAgent: Bool

    func os(at t: Double) -> String {
        if let updateAt, let updatedOS, t >= updateAt { return updatedOS }
        return os
    }
}

struct SimHousehold: Sendable {
    var ipv6: Bool
    var residentialNetwork: Int
    var members: [Int]
}

struct SimOffice: Sendable {
    var zone: String
    var pool: Int
}

/// One click, with the truth the matcher does not see.
struct SimClick: Sendable {
    var index = 0
    var device: Int
    var linkID: String
    /// Seconds from the start.
    var t: Double
    var platform: SimPlatform
    var endpoint: Endpoint
    var evidence: ClickEvidence
    var fingerprint: String?
    var hasPageSignals: Bool
}

/// What kind of install, for the tallies.
enum InstallTruth: Sendable {
    /// Caused by this click (index into the click list), `delay` seconds after it.
    case clicked(click: Int, delay: Double)
    /// No click behind it; `nearClick` when another member of the household had just clicked.
    case organic(nearClick: Bool)
}

/// How an install can be tied deterministically.
enum DeterministicSignal: Sendable {
    case clickToken(String)
    case referrer(String)
}

struct SimInstall: Sendable {
    var device: Int
    var t: Double
    var truth: InstallTruth
    var deterministic: DeterministicSignal?
    var endpoint: Endpoint
    var signals: DeviceSignals
    var scenarios: Set<Scenario> = []
}

/// Labels for the per-scenario breakdown; an install can carry several.
enum Scenario: String, Sendable, CaseIterable, Comparable {
    case householdWiFi = "household Wi-Fi (click and install at home)"
    case householdBusy = "household with another recent clicker"
    case cgnat = "CGNAT (click or install)"
    case cellularIPv6 = "cellular IPv6"
    case office = "office (click or install)"
    case venue = "public Wi-Fi"
    case networkSwitch = "network switch (click and install networks differ)"
    case shortDelay = "delay under 1 h"
    case longDelay = "long delay (6 h – 24 h)"
    case beyondWindow = "delay beyond the 24 h window"
    case noPageSignals = "click page sent no signals"
    case iPadDesktop = "iPad desktop-mode click"
    case osUpdate = "OS updated between click and install"
    case frozenUA = "iOS 26 (frozen Safari version)"
    case dominantFingerprint = "dominant fingerprint (393x852@3, New York)"
    case repeatClicker = "clicked twice"
    case familyCoClick = "link shared in the household"
    case android = "Android without referrer"
    case organicRandom = "organic, unrelated"
    case organicNearClick = "organic, a household member just clicked"

    static func < (a: Scenario, b: Scenario) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A generated population: devices, clicks in time order, installs in time order.
struct Population: Sendable {
    var config: SimulationConfig
    var devices: [SimDevice]
    var households: [SimHousehold]
    var offices: [SimOffice]
    var clicks: [SimClick]
    var installs: [SimInstall]

    func date(_ t: Double) -> Date { config.start.addingTimeInterval(t) }
}

/// Builds a population from a configuration.
struct PopulationGenerator {
    let config: SimulationConfig
    private var random: SimulationRandom
    private var devices: [SimDevice] = []
    private var households: [SimHousehold] = []
    private var offices: [SimOffice] = []
    private var clicks: [SimClick] = []
    private var installs: [SimInstall] = []
    /// 0 free, 1 converting clicker, 2 organic installer, 3 clicks but never installs.
    private var role: [UInt8] = []
    private var installedAt: [Double?] = []
    private var linkWeights: [(String, Double)] = []

    init(config: SimulationConfig) {
        self.config = config
        self.random = SimulationRandom(seed: config.seed, stream: "population")
    }

    static let venues = 1_500
    static let blockLength = 5_400.0
    static let cellularSession = 6 * 3_600.0

    mutating func generate() -> Population {
        let clickedInstalls = Int((Double(config.installs) * (1 - config.organicShare)).rounded())
        let organicInstalls = config.installs - clickedInstalls
        let otherClicks = Int(Double(clickedInstalls) * (1 / config.clickConversion - 1))
        let events = Double(clickedInstalls + otherClicks + organicInstalls)
        makeWorld(deviceCount: Int(events * 2.2))
        linkWeights = (0..<config.links).map { ("lnk_\(String(format: "%05d", $0))", 1 / Double($0 + 1)) }

        let first = -86_400.0, last = Double(config.days) * 86_400
        for _ in 0..<clickedInstalls { addClickedInstall(from: first, to: last) }
        for _ in 0..<otherClicks { addOtherClick(from: first, to: last) }
        for _ in 0..<organicInstalls { addOrganicInstall(from: first, to: last) }

        // Time order, then stable ids in that order.
        clicks.sort { ($0.t, $0.index) < ($1.t, $1.index) }
        var remap = [Int](repeating: 0, count: clicks.count)
        for (position, click) in clicks.enumerated() { remap[click.index] = position }
        for position in clicks.indices {
            clicks[position].index = position
            let id = Self.clickID(position)
            clicks[position].evidence.clickID = id
        }
        for i in installs.indices {
            if case .clicked(let click, let delay) = installs[i].truth {
                let moved = remap[click]
                installs[i].truth = .clicked(click: moved, delay: delay)
                switch installs[i].deterministic {
                case .clickToken?: installs[i].deterministic = .clickToken("ferry:" + Self.clickID(moved))
                case .referrer?: installs[i].deterministic = .referrer("ferry_click_id=\(Self.clickID(moved))&utm_source=share")
                case nil: break
                }
            }
        }
        installs.sort { $0.t < $1.t }
        labelScenarios()
        return Population(config: config, devices: devices, households: households, offices: offices, clicks: clicks, installs: installs)
    }

    /// `clk_` and 22 base-36 digits, as the server's ids look.
    static func clickID(_ index: Int) -> String {
        let digits = String(StableHash.combine(UInt64(index), 0xC11C) % 1_000_000_007, radix: 36) + String(index, radix: 36)
        return "clk_" + String(repeating: "0", count: max(0, 22 - digits.count)) + digits.suffix(22)
    }

    // MARK: The world

    private mutating func makeWorld(deviceCount: Int) {
        // Offices, per time zone, sized from a long tail: most are small, a few hold hundreds of our devices.
        let officeCount = max(4, deviceCount * 18 / 100 / 40)
        for _ in 0..<officeCount {
            let zone = random.pick(PopulationTables.zones.map { ($0.identifier, $0.weight) })
            offices.append(SimOffice(zone: zone, pool: random.pick([(1, 0.7), (2, 0.15), (4, 0.15)])))
        }
        var officesByZone: [String: [(Int, Double)]] = [:]
        for (index, office) in offices.enumerated() {
            officesByZone[office.zone, default: []].append((index, 1 / Double(officesByZone[office.zone, default: []].count + 1)))
        }

        let residentialNetworks = max(1, deviceCount / 8)
        while devices.count < deviceCount {
            let size = random.pick(config.householdSizes.map { ($0.size, $0.weight) })
            let householdIndex = households.count
            let zone = random.pick(PopulationTables.zones.map { ($0, $0.weight) })
            let language = random.pick(zone.languages)
            let applePeople = random.chance(config.iosShare)
            var members: [Int] = []
            for _ in 0..<size {
                var device = makeDevice(zone: zone, language: language, apple: random.chance(0.8) ? applePeople : random.chance(config.iosShare))
                // Families often buy the same phone.
                if let sibling = members.last.map({ devices[$0] }), sibling.platform == device.platform, random.chance(config.samePhoneShare) {
                    device.hardware = sibling.hardware
                    device.model = random.chance(0.6) ? sibling.model : random.element(sibling.hardware.models)
                }
                device.household = householdIndex
                if random.chance(config.officeShare), let choices = officesByZone[device.zone.identifier] { device.office = random.pick(choices) }
                members.append(devices.count)
                devices.append(device)
            }
            // A few single people live on cellular only.
            if size == 1, random.chance(config.cellularOnlySingleShare) {
                devices[members[0]].household = nil
                continue
            }
            households.append(SimHousehold(ipv6: random.chance(0.45), residentialNetwork: random.below(residentialNetworks), members: members))
        }
        role = [UInt8](repeating: 0, count: devices.count)
        installedAt = [Double?](repeating: nil, count: devices.count)
    }

    private mutating func makeDevice(zone householdZone: PopulationTables.Zone, language householdLanguage: String, apple: Bool) -> SimDevice {
        let zone = random.chance(0.98) ? householdZone : random.pick(PopulationTables.zones.map { ($0, $0.weight) })
        var languages = [random.chance(0.85) ? householdLanguage : random.pick(zone.languages)]
        if random.chance(0.25) {
            let second = random.pick(zone.languages)
            if second != languages[0] { languages.append(second) }
        }
        // Safari usually reports the device's first language; an app-specific language setting or an old
        // preference list sometimes makes them differ.
        let browserLanguage = random.chance(0.96) ? languages[0] : random.pick(zone.languages)
        let platform: SimPlatform = apple ? .iOS : .android
        let hardware = random.pick((apple ? PopulationTables.iosHardware : PopulationTables.androidHardware).map { ($0, $0.weight) })
        let os = random.pick(apple ? PopulationTables.iosVersions : PopulationTables.androidVersions)
        var updateAt: Double?, updatedOS: String?
        if apple, random.chance(config.osUpdateShare), let next = PopulationTables.iosUpdate(from: os) {
            // Automatic updates install overnight, local time.
            let day = Double(random.below(config.days + 1) - 1)
            updateAt = day * 86_400 + random.uniform(2 * 3600...4 * 3600) - Double(zone.offset)
            updatedOS = next
        }
        return SimDevice(
            platform: platform, hardware: hardware, model: random.element(hardware.models), os: os, updateAt: updateAt, updatedOS: updatedOS,
            zone: zone, languages: languages, browserLanguage: browserLanguage, household: nil, office: nil,
            carrier: random.pick(config.carriers.indices.map { ($0, config.carriers[$0].share) }),
            phase: random.uniform(0...Self.blockLength), reducedUserAgent: random.chance(0.85))
    }

    // MARK: Where a device is

    /// Where the device is connected at `t` (seconds from the start): a pure function of the device and the time,
    /// so a click and an install close in time usually share a network and ones hours apart often do not. Time runs
    /// in blocks of 90 minutes; at each block the device stays where it was with probability `networkKeep` (0.6 by
    /// default) when its schedule allows, else goes where its schedule sends it (`placeShares`: work hours mostly at
    /// the office, evenings and nights mostly at home, the rest of the day at home, on cellular or on public Wi-Fi).
    func endpoint(device index: Int, at t: Double) -> Endpoint {
        let device = devices[index]
        let block = Int64(((t + device.phase) / Self.blockLength).rounded(.down))
        let (place, since) = place(device: index, block: block, depth: 0)
        return endpoint(device: index, place: place, block: UInt64(bitPattern: since), t: t)
    }

    /// The kind of place and the block the device arrived there.
    private func place(device index: Int, block: Int64, depth: Int) -> (NetworkKind, Int64) {
        let device = devices[index]
        let t = Double(block) * Self.blockLength - device.phase + Self.blockLength / 2
        let local = t + Double(device.zone.offset)
        let hour = (local / 3600).truncatingRemainder(dividingBy: 24).addingReminderIfNegative(24)
        let day = Int((local / 86_400).rounded(.down))
        let weekday = ((day % 7) + 7) % 7 < 5
        let atWork = device.office != nil && weekday && hour >= 9 && hour < 17.5
        let evening = hour < 7.5 || hour >= 19
        let hasHome = device.household != nil

        let keep = StableHash.unit(config.seed, 0x5EE7, UInt64(index), UInt64(bitPattern: block))
        if depth < 8, keep < config.networkKeep {
            let previous = place(device: index, block: block - 1, depth: depth + 1)
            let allowed = switch previous.0 {
            case .office: atWork
            case .homeIPv4, .homeIPv6: hasHome && !atWork
            case .cgnat, .cellularIPv6, .venue: true
            }
            if allowed { return previous }
        }
        let u = StableHash.unit(config.seed, 0x10CA, UInt64(index), UInt64(bitPattern: block))
        let shares = config.placeShares
        func kind(_ split: PlaceShares.Split, wifi: NetworkKind) -> NetworkKind {
            u < split.wifi ? wifi : (u < split.wifi + split.cellular ? .cgnat : .venue)
        }
        // An IPv6 home or carrier is told apart when the endpoint is made.
        if atWork { return (kind(shares.atWork, wifi: .office), block) }
        if hasHome { return (kind(evening ? shares.homeEvening : shares.homeDay, wifi: .homeIPv4), block) }
        return (u < shares.noHomeCellular ? .cgnat : .venue, block)
    }

    /// The address and network of a place; `block` is when the device arrived (which venue, which office exit).
    private func endpoint(device index: Int, place: NetworkKind, block: UInt64, t: Double) -> Endpoint {
        let device = devices[index]
        switch place {
        case .homeIPv4, .homeIPv6:
            let household = device.household!
            if households[household].ipv6 {
                // Each device has its own temporary address in the household's /64, renewed daily.
                let addressDay = UInt64(bitPattern: Int64((t / 86_400).rounded(.down)))
                return Endpoint(address: StableHash.token("h6a", UInt64(index), addressDay), network: StableHash.token("h6n", UInt64(household)), kind: .homeIPv6)
            }
            return Endpoint(address: StableHash.token("h4a", UInt64(household)),
                            network: StableHash.token("h4n", UInt64(households[household].residentialNetwork)), kind: .homeIPv4)
        case .office:
            let office = device.office!
            let slot = UInt64(StableHash.unit(config.seed, 0x0FF1, UInt64(index), block) * Double(offices[office].pool))
            return Endpoint(address: StableHash.token("oa", UInt64(office), slot), network: StableHash.token("on", UInt64(office)), kind: .office)
        case .venue:
            let venue = UInt64(StableHash.unit(config.seed, 0x7E7, UInt64(index), block) * Double(Self.venues))
            return Endpoint(address: StableHash.token("va", venue), network: StableHash.token("vn", venue / 3), kind: .venue)
        case .cgnat, .cellularIPv6:
            let carrier = config.carriers[device.carrier]
            let session = UInt64(bitPattern: Int64(((t + 2 * device.phase) / Self.cellularSession).rounded(.down)))
            if carrier.isIPv6 {
                return Endpoint(address: StableHash.token("c6a", UInt64(index), session), network: StableHash.token("c6n", UInt64(index), session), kind: .cellularIPv6)
            }
            let slot = Int(StableHash.unit(config.seed, 0xCA7, UInt64(index), session) * Double(carrier.pool))
            return Endpoint(address: StableHash.token("ca", UInt64(device.carrier), UInt64(slot)),
                            network: StableHash.token("cn", UInt64(device.carrier), UInt64(slot / carrier.perNetwork)), kind: .cgnat)
        }
    }

    // MARK: Events

    private mutating func freeDevice(_ wanted: UInt8) -> Int {
        while true {
            let index = random.below(devices.count)
            if role[index] == 0 || (wanted == 3 && role[index] == 3) {
                if role[index] == 0 { role[index] = wanted }
                return index
            }
        }
    }

    /// A moment in the device's day: evenings are busier than nights.
    private mutating func clickTime(device: Int, from first: Double, to last: Double) -> Double {
        let days = Int((last - first) / 86_400)
        let day = first + Double(random.below(days)) * 86_400
        let hour = random.pick(PopulationTables.hourWeights.indices.map { ($0, PopulationTables.hourWeights[$0]) })
        let local = Double(hour) * 3600 + random.uniform(0...3599)
        return day + local - Double(devices[device].zone.offset)
    }

    /// Click-to-first-launch delay: most open the app within minutes, some later that day, a tail days later.
    private mutating func delay() -> Double {
        let components = config.delayComponents
        let component = components[random.pick(components.indices.map { ($0, components[$0].weight) })]
        return max(config.minimumDelay, component.draw(&random))
    }

    private mutating func pickLink() -> String { random.pick(linkWeights) }

    @discardableResult
    private mutating func addClick(device index: Int, link: String, at t: Double) -> Int {
        let device = devices[index]
        let endpoint = endpoint(device: index, at: t)
        let platform: SimPlatform = device.platform == .iOS && device.hardware.isPad && random.chance(config.iPadDesktopShare) ? .desktop : device.platform
        var evidence = ClickEvidence(clickID: "", linkID: link, createdAt: config.start.addingTimeInterval(t),
                                     addressHash: endpoint.address, networkHash: endpoint.network)
        var fingerprint: String?
        var hasPage = false
        let os = device.os(at: t)
        switch platform {
        case .iOS:
            // Safari from 26 on reports a frozen iOS 18.6 in its user agent.
            let major = Int(os.split(separator: ".")[0]) ?? 0
            evidence.osVersion = major >= 26 ? "18.6" : os.split(separator: ".").prefix(2).joined(separator: ".")
            evidence.appleDevice = device.hardware.isPad ? "ipad" : "iphone"
            if random.chance(1 - config.missingPageSignalsShare) {
                hasPage = true
                evidence.screenWidth = device.hardware.width
                evidence.screenHeight = device.hardware.height
                evidence.screenScale = device.hardware.scale
                evidence.timeZone = device.zone.identifier
                evidence.timeZoneOffsetSeconds = device.zone.offset
                evidence.languages = [device.browserLanguage]
                fingerprint = DeviceFingerprint.key(width: device.hardware.width, height: device.hardware.height, scale: device.hardware.scale,
                                                    timeZone: device.zone.identifier)
            } else {
                // Only Accept-Language is left.
                evidence.languages = [device.browserLanguage]
            }
        case .android:
            evidence.osVersion = device.reducedUserAgent ? "10" : os
            evidence.languages = [device.languages[0]]
        case .desktop:
            evidence.osVersion = nil
            evidence.languages = [device.browserLanguage]
        }
        let click = SimClick(index: clicks.count, device: index, linkID: link, t: t, platform: platform, endpoint: endpoint,
                             evidence: evidence, fingerprint: fingerprint, hasPageSignals: hasPage)
        clicks.append(click)
        return click.index
    }

    private mutating func addInstall(device index: Int, at t: Double, truth: InstallTruth, deterministic: DeterministicSignal?) {
        let device = devices[index]
        let endpoint = endpoint(device: index, at: t)
        let signals = DeviceSignals(
            platform: device.platform == .android ? "android" : "ios", osVersion: device.os(at: t), model: device.model,
            screenWidth: device.hardware.width, screenHeight: device.hardware.height, screenScale: device.hardware.scale,
            timeZone: device.zone.identifier, timeZoneOffsetSeconds: device.zone.offset, languages: device.languages)
        installs.append(SimInstall(device: index, t: t, truth: truth, deterministic: deterministic, endpoint: endpoint, signals: signals))
        installedAt[index] = t
    }

    private mutating func addClickedInstall(from first: Double, to last: Double) {
        let device = freeDevice(1)
        let link = pickLink()
        let t = clickTime(device: device, from: first, to: last)
        if random.chance(config.repeatClickShare) {
            let other = random.chance(0.6) ? link : pickLink()
            addClick(device: device, link: other, at: t - random.uniform(120...20 * 3600))
        }
        let click = addClick(device: device, link: link, at: t)
        var labels = Set<Scenario>()
        if random.chance(config.familyCoClickShare), let household = devices[device].household {
            let others = households[household].members.filter { $0 != device && role[$0] != 1 && role[$0] != 2 }
            if !others.isEmpty {
                let sibling = random.element(others)
                role[sibling] = 3
                addClick(device: sibling, link: link, at: t + random.uniform(-3 * 3600...3 * 3600))
                labels.insert(.familyCoClick)
            }
        }
        let wait = delay()
        var deterministic: DeterministicSignal?
        switch clicks[click].platform {
        case .iOS: if random.chance(config.copyToOpenShare) { deterministic = .clickToken("") }
        case .android: if random.chance(config.androidReferrerShare) { deterministic = .referrer("") }
        case .desktop: break
        }
        addInstall(device: device, at: t + wait, truth: .clicked(click: click, delay: wait), deterministic: deterministic)
        installs[installs.count - 1].scenarios = labels
    }

    private mutating func addOtherClick(from first: Double, to last: Double) {
        // Some clicks come from devices that already have the app (in-app browsers that keep Universal Links
        // from opening it): after their install, so they cannot have caused it.
        if random.chance(0.08), !installs.isEmpty {
            let install = installs[random.below(installs.count)]
            let t = install.t + random.uniform(600...4 * 86_400)
            if t < last { addClick(device: install.device, link: pickLink(), at: t); return }
        }
        let device = freeDevice(3)
        addClick(device: device, link: pickLink(), at: clickTime(device: device, from: first, to: last))
    }

    private mutating func addOrganicInstall(from first: Double, to last: Double) {
        if random.chance(config.organicNearClickShare) {
            // Someone in the household just clicked a link of the app; another member installs it from the store.
            for _ in 0..<20 {
                let click = clicks[random.below(clicks.count)]
                guard let household = devices[click.device].household else { continue }
                let others = households[household].members.filter { $0 != click.device && role[$0] == 0 }
                guard !others.isEmpty else { continue }
                let device = random.element(others)
                role[device] = 2
                addInstall(device: device, at: click.t + delay(), truth: .organic(nearClick: true), deterministic: nil)
                return
            }
        }
        let device = freeDevice(2)
        addInstall(device: device, at: clickTime(device: device, from: first, to: last), truth: .organic(nearClick: false), deterministic: nil)
    }

    // MARK: Labels

    private mutating func labelScenarios() {
        var householdClicks: [Int: [(t: Double, device: Int)]] = [:]
        var clicksByDevice: [Int: Int] = [:]
        for click in clicks {
            if let h = devices[click.device].household { householdClicks[h, default: []].append((click.t, click.device)) }
            clicksByDevice[click.device, default: 0] += 1
        }
        let dominant = DeviceFingerprint.key(width: 393, height: 852, scale: 3, timeZone: "America/New_York")

        for i in installs.indices {
            let install = installs[i]
            var labels = install.scenarios
            let device = devices[install.device]
            let fingerprint = DeviceFingerprint.key(width: install.signals.screenWidth, height: install.signals.screenHeight,
                                                    scale: install.signals.screenScale, timeZone: install.signals.timeZone)
            if fingerprint == dominant { labels.insert(.dominantFingerprint) }
            if device.platform == .iOS, let major = Int(install.signals.osVersion?.split(separator: ".").first ?? ""), major >= 26 { labels.insert(.frozenUA) }
            if device.platform == .android { labels.insert(.android) }
            switch install.endpoint.kind {
            case .cgnat: labels.insert(.cgnat)
            case .cellularIPv6: labels.insert(.cellularIPv6)
            case .office: labels.insert(.office)
            case .venue: labels.insert(.venue)
            default: break
            }
            if let h = device.household, householdClicks[h, default: []].contains(where: {
                $0.device != install.device && $0.t <= install.t && $0.t >= install.t - config.window
            }) {
                labels.insert(.householdBusy)
            }
            switch install.truth {
            case .clicked(let index, let delay):
                let click = clicks[index]
                if click.endpoint.kind.isHome, install.endpoint.kind.isHome { labels.insert(.householdWiFi) }
                if click.endpoint.kind == .cgnat { labels.insert(.cgnat) }
                if click.endpoint.kind == .cellularIPv6 { labels.insert(.cellularIPv6) }
                if click.endpoint.kind == .office { labels.insert(.office) }
                if click.endpoint.kind == .venue { labels.insert(.venue) }
                if click.endpoint.network != install.endpoint.network { labels.insert(.networkSwitch) }
                if delay < 3600 { labels.insert(.shortDelay) }
                if delay > 6 * 3600, delay <= config.window { labels.insert(.longDelay) }
                if delay > config.window { labels.insert(.beyondWindow) }
                if click.platform == .iOS, !click.hasPageSignals { labels.insert(.noPageSignals) }
                if click.platform == .desktop { labels.insert(.iPadDesktop) }
                if device.os(at: click.t) != device.os(at: install.t) { labels.insert(.osUpdate) }
                if clicksByDevice[install.device, default: 0] > 1 { labels.insert(.repeatClicker) }
            case .organic(let near):
                labels.insert(near ? .organicNearClick : .organicRandom)
            }
            installs[i].scenarios = labels
        }
    }
}

extension InstallTruth {
    var clickIndex: Int? {
        if case .clicked(let click, _) = self { return click }
        return nil
    }
}

extension Double {
    fileprivate func addingReminderIfNegative(_ modulus: Double) -> Double { self < 0 ? self + modulus : self }
}
