import Foundation

/// Privacy: how much of the device FerryKit's requests tell.
extension Ferry {
    /// The `User-Agent` of FerryKit's requests: FerryKit's version, then the platform, OS version and hardware model as
    /// far as `policy` lets the match send them (`FerryKit/0.5.0 (ios 18.1; iPhone16,1)`, `FerryKit/0.5.0 (ios 18.1)`,
    /// `FerryKit/0.5.0`).
    static func userAgent(sending policy: DeviceSignalsPolicy) -> String {
        let sdk = "FerryKit/\(sdkVersion)", platform = PortableDeviceSignalsProvider.currentPlatform
        switch policy {
        case .all: return "\(sdk) (\(platform) \(DeviceInfo.osVersion); \(DeviceInfo.hardwareModel ?? "unknown"))"
        case .minimal: return "\(sdk) (\(platform) \(DeviceSignalsPolicy.majorMinor(DeviceInfo.osVersion)))"
        case .none: return sdk
        }
    }
}
