import Foundation

/// Where one link sends visitors who do not have the app, and what it asks of the app, overriding the app's settings
/// field by field: the per-link parameters Firebase Dynamic Links had (`ifl`, `ipfl`, `ipbi`, `isi`, `imv`, `afl`,
/// `amv`, `ofl`, `efr`, and iTunes Connect's `at`, `ct`, `mt`, `pt`). Every field is optional; an unset one leaves the
/// app's behaviour.
///
/// ```json
/// {"iosFallbackURL": "https://example.com/ios", "appStoreID": "1234567890", "skipPreviewPage": true}
/// ```
package struct LinkRouting: Codable, Sendable, Hashable {
    /// Where iPhones without the app go instead of the App Store (FDL's `ifl`).
    package var iosFallbackURL: String?
    /// Where iPads without the app go (FDL's `ipfl`); iPads use `iosFallbackURL` when unset.
    package var ipadFallbackURL: String?
    /// The bundle id of the app that opens the link on iPads (FDL's `ipbi`), named in the association file.
    package var ipadBundleID: String?
    /// The App Store id of the app to install (FDL's `isi`), instead of the app's.
    package var appStoreID: String?
    /// The lowest version of the iOS app that can open the link (FDL's `imv`), handed to the app.
    package var iosMinimumVersion: String?
    /// Where Android phones without the app go instead of the Play Store (FDL's `afl`).
    package var androidFallbackURL: String?
    /// The lowest Android version code that can open the link (FDL's `amv`), handed to the app.
    package var androidMinimumVersionCode: Int?
    /// Where visitors on other platforms (desktops) go instead of the destination (FDL's `ofl`).
    package var otherPlatformFallbackURL: String?
    /// Send visitors straight on, without the preview page for bots or the page before the App Store (FDL's `efr`).
    package var skipPreviewPage: Bool?
    /// App Store analytics tokens added to App Store URLs (iTunes Connect's `at`, `ct`, `mt`, `pt`).
    package var appStoreAnalytics: AppStoreAnalytics?

    /// Creates routing overrides.
    package init(
        iosFallbackURL: String? = nil, ipadFallbackURL: String? = nil, ipadBundleID: String? = nil, appStoreID: String? = nil,
        iosMinimumVersion: String? = nil, androidFallbackURL: String? = nil, androidMinimumVersionCode: Int? = nil,
        otherPlatformFallbackURL: String? = nil, skipPreviewPage: Bool? = nil, appStoreAnalytics: AppStoreAnalytics? = nil
    ) {
        self.iosFallbackURL = iosFallbackURL
        self.ipadFallbackURL = ipadFallbackURL
        self.ipadBundleID = ipadBundleID
        self.appStoreID = appStoreID
        self.iosMinimumVersion = iosMinimumVersion
        self.androidFallbackURL = androidFallbackURL
        self.androidMinimumVersionCode = androidMinimumVersionCode
        self.otherPlatformFallbackURL = otherPlatformFallbackURL
        self.skipPreviewPage = skipPreviewPage
        self.appStoreAnalytics = appStoreAnalytics
    }

    /// True when no field is set.
    package var isEmpty: Bool { self == LinkRouting() }

    /// The fields that hold URLs, with their names, for validation and allowlists.
    package var urls: [(field: String, value: String)] {
        [("iosFallbackURL", iosFallbackURL), ("ipadFallbackURL", ipadFallbackURL), ("androidFallbackURL", androidFallbackURL),
         ("otherPlatformFallbackURL", otherPlatformFallbackURL)]
            .compactMap { field, value in value.map { (field, $0) } }
    }
}

extension LinkRouting {
    private enum CodingKeys: String, CodingKey {
        case iosFallbackURL, ipadFallbackURL, ipadBundleID, appStoreID, iosMinimumVersion, androidFallbackURL
        case androidMinimumVersionCode, otherPlatformFallbackURL, skipPreviewPage, appStoreAnalytics
    }

    /// Encodes every field, unset ones as `null`, so clients see the whole shape.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(iosFallbackURL, forKey: .iosFallbackURL)
        try c.encode(ipadFallbackURL, forKey: .ipadFallbackURL)
        try c.encode(ipadBundleID, forKey: .ipadBundleID)
        try c.encode(appStoreID, forKey: .appStoreID)
        try c.encode(iosMinimumVersion, forKey: .iosMinimumVersion)
        try c.encode(androidFallbackURL, forKey: .androidFallbackURL)
        try c.encode(androidMinimumVersionCode, forKey: .androidMinimumVersionCode)
        try c.encode(otherPlatformFallbackURL, forKey: .otherPlatformFallbackURL)
        try c.encode(skipPreviewPage, forKey: .skipPreviewPage)
        try c.encode(appStoreAnalytics, forKey: .appStoreAnalytics)
    }
}

/// App Store analytics tokens (iTunes Connect campaign links): added to the App Store URL a visitor is sent to.
package struct AppStoreAnalytics: Codable, Sendable, Hashable {
    /// `at`: the affiliate token.
    package var affiliateToken: String?
    /// `ct`: the campaign token.
    package var campaignToken: String?
    /// `mt`: the media type (8 for apps).
    package var mediaType: String?
    /// `pt`: the provider token.
    package var providerToken: String?

    /// Creates tokens.
    package init(affiliateToken: String? = nil, campaignToken: String? = nil, mediaType: String? = nil, providerToken: String? = nil) {
        self.affiliateToken = affiliateToken
        self.campaignToken = campaignToken
        self.mediaType = mediaType
        self.providerToken = providerToken
    }

    /// True when no token is set.
    package var isEmpty: Bool { self == AppStoreAnalytics() }

    /// The tokens as App Store query items, in a fixed order, skipping unset ones.
    package var queryItems: [(name: String, value: String)] {
        [("at", affiliateToken), ("ct", campaignToken), ("mt", mediaType), ("pt", providerToken)]
            .compactMap { name, value in value.map { (name, $0) } }
    }
}
