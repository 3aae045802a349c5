import Foundation

/// The fixed tables the population is drawn from: phones, OS versions, time zones, languages, networks.
///
/// Weights are round figures chosen to look like a US-centred consumer app in January 2026, with the skews that
/// make attribution hard: one screen size on 30% of iPhones, one time zone on 40% of devices, one language on
/// most of them.
enum PopulationTables {
    /// A screen class and the hardware models that have it.
    struct Hardware: Sendable {
        let models: [String]
        let width: Int
        let height: Int
        let scale: Double
        let weight: Double
        let isPad: Bool
    }

    static let iosHardware: [Hardware] = [
        Hardware(models: ["iPhone15,2", "iPhone15,4", "iPhone16,1", "iPhone17,3"], width: 393, height: 852, scale: 3, weight: 0.30, isPad: false),
        Hardware(models: ["iPhone13,2", "iPhone14,5", "iPhone14,7"], width: 390, height: 844, scale: 3, weight: 0.17, isPad: false),
        Hardware(models: ["iPhone15,3", "iPhone15,5", "iPhone16,2", "iPhone17,4"], width: 430, height: 932, scale: 3, weight: 0.12, isPad: false),
        Hardware(models: ["iPhone17,1", "iPhone18,3"], width: 402, height: 874, scale: 3, weight: 0.08, isPad: false),
        Hardware(models: ["iPhone13,4", "iPhone14,3", "iPhone14,8"], width: 428, height: 926, scale: 3, weight: 0.07, isPad: false),
        Hardware(models: ["iPhone17,2", "iPhone18,2"], width: 440, height: 956, scale: 3, weight: 0.05, isPad: false),
        Hardware(models: ["iPhone11,8", "iPhone12,1"], width: 414, height: 896, scale: 2, weight: 0.05, isPad: false),
        Hardware(models: ["iPhone12,8", "iPhone14,6"], width: 375, height: 667, scale: 2, weight: 0.05, isPad: false),
        Hardware(models: ["iPhone12,3", "iPhone13,1", "iPhone14,4"], width: 375, height: 812, scale: 3, weight: 0.04, isPad: false),
        Hardware(models: ["iPhone18,4"], width: 420, height: 912, scale: 3, weight: 0.01, isPad: false),
        Hardware(models: ["iPad13,18", "iPad13,16"], width: 820, height: 1180, scale: 2, weight: 0.03, isPad: true),
        Hardware(models: ["iPad14,5", "iPad16,6"], width: 1024, height: 1366, scale: 2, weight: 0.015, isPad: true),
        Hardware(models: ["iPad13,4"], width: 834, height: 1194, scale: 2, weight: 0.015, isPad: true),
    ]

    static let androidHardware: [Hardware] = [
        Hardware(models: ["SM-S921U", "SM-S931U"], width: 360, height: 780, scale: 3, weight: 0.25, isPad: false),
        Hardware(models: ["Pixel 8", "Pixel 9"], width: 412, height: 915, scale: 2.625, weight: 0.20, isPad: false),
        Hardware(models: ["SM-A156U", "SM-A166U"], width: 360, height: 800, scale: 3, weight: 0.20, isPad: false),
        Hardware(models: ["SM-S928U"], width: 412, height: 891, scale: 3.5, weight: 0.15, isPad: false),
        Hardware(models: ["moto g 5G - 2024"], width: 412, height: 892, scale: 2.625, weight: 0.10, isPad: false),
        Hardware(models: ["Pixel 9 Pro"], width: 410, height: 914, scale: 3.125, weight: 0.10, isPad: false),
    ]

    static let iosVersions: [(String, Double)] = [
        ("26.2", 0.25), ("26.1", 0.17), ("26.0.1", 0.05), ("18.7.2", 0.15), ("18.6.2", 0.12), ("18.5", 0.05),
        ("17.7.2", 0.08), ("16.7.12", 0.05), ("15.8.5", 0.03),
    ]

    /// Where an automatic update takes a device.
    static func iosUpdate(from version: String) -> String? {
        switch version {
        case "26.1", "26.0.1": "26.2"
        case "18.6.2": "18.7.2"
        case "18.7.2": "26.2"
        case "17.7.2": "18.7.2"
        default: nil
        }
    }

    static let androidVersions: [(String, Double)] = [("16", 0.12), ("15", 0.33), ("14", 0.27), ("13", 0.15), ("12", 0.08), ("11", 0.05)]

    /// A time zone, its January offset, how common it is, and the languages of the people in it.
    struct Zone: Sendable {
        let identifier: String
        let offset: Int
        let weight: Double
        let languages: [(String, Double)]
    }

    static let usLanguages: [(String, Double)] = [
        ("en-US", 0.80), ("es-US", 0.09), ("es-MX", 0.02), ("zh-Hans-US", 0.02), ("en", 0.02), ("vi-US", 0.01),
        ("ko-US", 0.01), ("en-GB", 0.01), ("pt-BR", 0.01), ("ru-US", 0.01),
    ]
    static let canadaLanguages: [(String, Double)] = [("en-CA", 0.75), ("fr-CA", 0.15), ("en-US", 0.05), ("zh-Hans-CA", 0.05)]

    static let zones: [Zone] = [
        Zone(identifier: "America/New_York", offset: -18000, weight: 0.40, languages: usLanguages),
        Zone(identifier: "America/Chicago", offset: -21600, weight: 0.21, languages: usLanguages),
        Zone(identifier: "America/Los_Angeles", offset: -28800, weight: 0.16, languages: usLanguages),
        Zone(identifier: "America/Denver", offset: -25200, weight: 0.05, languages: usLanguages),
        Zone(identifier: "America/Phoenix", offset: -25200, weight: 0.02, languages: usLanguages),
        Zone(identifier: "America/Detroit", offset: -18000, weight: 0.02, languages: usLanguages),
        Zone(identifier: "America/Toronto", offset: -18000, weight: 0.03, languages: canadaLanguages),
        Zone(identifier: "America/Vancouver", offset: -28800, weight: 0.01, languages: canadaLanguages),
        Zone(identifier: "America/Mexico_City", offset: -21600, weight: 0.02, languages: [("es-MX", 0.85), ("en-US", 0.15)]),
        Zone(identifier: "Europe/London", offset: 0, weight: 0.03, languages: [("en-GB", 0.85), ("en-US", 0.05), ("pl-GB", 0.05), ("ur-GB", 0.05)]),
        Zone(identifier: "Europe/Paris", offset: 3600, weight: 0.01, languages: [("fr-FR", 0.9), ("en-US", 0.1)]),
        Zone(identifier: "Asia/Kolkata", offset: 19800, weight: 0.01, languages: [("en-IN", 0.7), ("hi-IN", 0.2), ("en-US", 0.1)]),
        Zone(identifier: "Asia/Manila", offset: 28800, weight: 0.01, languages: [("en-PH", 0.5), ("en-US", 0.4), ("fil-PH", 0.1)]),
        Zone(identifier: "Pacific/Honolulu", offset: -36000, weight: 0.005, languages: usLanguages),
        Zone(identifier: "America/Anchorage", offset: -32400, weight: 0.005, languages: usLanguages),
    ]

    /// Relative click activity per local hour: quiet nights, busy evenings.
    static let hourWeights: [Double] = [
        0.30, 0.15, 0.10, 0.08, 0.08, 0.15, 0.40, 0.80, 1.00, 1.00, 1.00, 1.10,
        1.30, 1.20, 1.10, 1.10, 1.20, 1.40, 1.60, 1.80, 1.90, 1.80, 1.30, 0.70,
    ]

    /// Mobile carriers. A CGNAT carrier puts all its subscribers behind a small pool of public IPv4 addresses
    /// (`pool` of them, `perNetwork` to a /24); an IPv6 carrier gives each device its own /64 for a session.
    struct Carrier: Sendable {
        let name: String
        let share: Double
        let pool: Int
        let perNetwork: Int
        var isIPv6: Bool { pool == 0 }
    }

    static let carriers: [Carrier] = [
        Carrier(name: "big CGNAT carrier", share: 0.30, pool: 4, perNetwork: 4),
        Carrier(name: "CGNAT carrier", share: 0.25, pool: 24, perNetwork: 12),
        Carrier(name: "IPv6 carrier", share: 0.35, pool: 0, perNetwork: 0),
        Carrier(name: "small CGNAT MVNO", share: 0.10, pool: 2, perNetwork: 2),
    ]
}
