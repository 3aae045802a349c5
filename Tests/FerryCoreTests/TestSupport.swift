import FerryAPI
import Foundation
import Testing
@testable import FerryCore

/// Shared values for FerryCore tests.
enum Fixtures {
    /// 2026-01-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    /// A valid SHA-256 fingerprint in the stored form.
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")

    /// An app with every setting filled in.
    static func app(
        domains: [String] = ["go.acme.com", "acme.link"],
        ios: IOSSettings = IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.acme.app"], appStoreID: "1234567890", urlScheme: "acme"),
        android: AndroidSettings = AndroidSettings(packageName: "com.acme.android", sha256Fingerprints: [fingerprint]),
        fallbackURL: String? = "https://acme.com/get-the-app",
        social: SocialMetadata = SocialMetadata(title: "Acme default", description: "Acme default description", imageURL: "https://acme.com/default.png")
    ) -> App {
        App(id: "app_1", name: "Acme", domains: domains, ios: ios, android: android, fallbackURL: fallbackURL, social: social, createdAt: now)
    }

    /// An active link of `app()`.
    static func link(
        destination: String = "https://acme.com/sale?ref=home",
        iosURL: String? = "acme://sale",
        androidURL: String? = nil,
        utm: UTMParameters = UTMParameters(source: "newsletter", medium: "email"),
        social: SocialMetadata = SocialMetadata(),
        expiresAt: Date? = nil,
        disabled: Bool = false
    ) -> Link {
        Link(
            id: "lnk_1", appID: "app_1", environment: .live, domain: "go.acme.com", slug: "summer", destination: destination,
            iosURL: iosURL, androidURL: androidURL, params: ["screen": "sale"], utm: utm, campaign: "summer",
            referrer: "user_1", social: social, expiresAt: expiresAt, disabled: disabled,
            createdAt: now.addingTimeInterval(-3600), updatedAt: now.addingTimeInterval(-3600)
        )
    }

    /// A classified client, built directly (the classifier has its own tests).
    static func client(
        _ platform: ClientPlatform, blocksUniversalLinks: Bool = false, inAppBrowser: String? = nil
    ) -> ClientInfo {
        ClientInfo(
            platform: platform, botName: platform == .bot ? "Slackbot" : nil, inAppBrowser: inAppBrowser,
            blocksUniversalLinks: blocksUniversalLinks, osVersion: platform == .iOS ? "18.1" : nil,
            appleDevice: platform == .iOS ? "iphone" : nil
        )
    }
}

/// Runs `body` and returns the validation error it throws, or nil when it succeeds.
/// Any other error is recorded as an issue.
func validationError<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> ValidationError? {
    do {
        _ = try body()
        return nil
    } catch let error as ValidationError {
        return error
    } catch {
        Issue.record("expected a ValidationError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
