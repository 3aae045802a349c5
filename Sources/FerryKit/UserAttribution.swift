import Foundation

/// What a user's attribution is, as ``Ferry/identify(userID:)`` reports it.
public struct UserAttribution: Sendable, Hashable, Codable {
    /// The user id.
    public var userID: String
    /// Whether the user's install was attributed to a link.
    public var attributed: Bool
    /// How the install was tied to the link, when attributed.
    public var matchType: MatchType?
    /// How sure the server is, when attributed.
    public var confidence: Double?
    /// The link, when attributed.
    public var link: DeepLink?
    /// Whether the user is bound to this install. False when the user id was bound to another install first (the
    /// user signed up on another device, or the app's backend bound it): the server then tells this install nothing
    /// of that attribution, and `attributed` is false. Bind from your backend with a secret key to settle which
    /// install a user belongs to.
    public var boundToThisInstall: Bool

    /// Creates an attribution.
    public init(userID: String, attributed: Bool, matchType: MatchType? = nil, confidence: Double? = nil, link: DeepLink? = nil,
                boundToThisInstall: Bool = true) {
        self.userID = userID
        self.attributed = attributed
        self.matchType = matchType
        self.confidence = confidence
        self.link = link
        self.boundToThisInstall = boundToThisInstall
    }

    private enum CodingKeys: String, CodingKey { case userID, attributed, matchType, confidence, link, boundToThisInstall }

    /// Decodes a stored attribution; one kept before `boundToThisInstall` existed was bound to this install.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userID = try container.decode(String.self, forKey: .userID)
        attributed = try container.decode(Bool.self, forKey: .attributed)
        matchType = try container.decodeIfPresent(MatchType.self, forKey: .matchType)
        confidence = try container.decodeIfPresent(Double.self, forKey: .confidence)
        link = try container.decodeIfPresent(DeepLink.self, forKey: .link)
        boundToThisInstall = try container.decodeIfPresent(Bool.self, forKey: .boundToThisInstall) ?? true
    }
}
