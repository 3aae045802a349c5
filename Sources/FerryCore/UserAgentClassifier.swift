public enum ClientPlatform: String, Sendable, Codable, Hashable, CaseIterable { case iOS = "ios", android, desktop, bot, other }
public struct ClientInfo: Sendable, Hashable {
    public var platform: ClientPlatform
    public var botName: String?
    public var inAppBrowser: String?
    public var blocksUniversalLinks: Bool
    public var osVersion: String?
    public var appleDevice: String?
}
public struct UserAgentClassifier: Sendable {
    public init() {}
    public func classify(_ userAgent: String?) -> ClientInfo {
        let ua = (userAgent ?? "").lowercased()
        let p: ClientPlatform = ua.contains("bot") || ua.contains("facebookexternalhit") || ua.hasPrefix("curl") ? .bot : ua.contains("iphone") || ua.contains("ipad") ? .iOS : ua.contains("android") ? .android : ua.isEmpty ? .other : .desktop
        return ClientInfo(platform: p, botName: nil, inAppBrowser: ua.contains("fban") ? "facebook" : nil, blocksUniversalLinks: ua.contains("fban") || ua.contains("instagram"), osVersion: nil, appleDevice: nil)
    }
}
