/// Where a link sends each kind of visitor, and why, with what is wrong in its setup: the answer of
/// `GET /v1/links/{id}/debug` (secret key), and what `?d=1` on the link shows as a page.
///
/// ```json
/// {"linkID": "lnk_…", "url": "https://go.example.com/summer", "status": "active",
///  "cases": [{"case": "iphone-without-app", "platform": "ios", "device": "iphone", "appInstalled": false,
///             "answer": "interstitial", "httpStatus": 200, "url": "https://apps.apple.com/app/id1234567890", …}],
///  "warnings": [{"code": "no_android_package", "severity": "warning", "message": "…", "field": null}]}
/// ```
package struct LinkDebugResponse: Codable, Sendable, Hashable {
    /// The link.
    package var linkID: String
    /// Its short URL.
    package var url: String
    /// `active`, `expired` or `disabled`.
    package var status: String
    /// One entry per kind of visitor, in a fixed order.
    package var cases: [LinkDebugCase]
    /// What is wrong or worth knowing, most serious first.
    package var warnings: [LinkDebugWarning]

    /// Creates a report.
    package init(linkID: String, url: String, status: String, cases: [LinkDebugCase], warnings: [LinkDebugWarning]) {
        self.linkID = linkID
        self.url = url
        self.status = status
        self.cases = cases
        self.warnings = warnings
    }
}

/// What one kind of visitor gets when they open a link.
package struct LinkDebugCase: Codable, Sendable, Hashable {
    /// A stable name of the case: `iphone-with-app`, `iphone-without-app`, `iphone-in-app-browser`, `ipad-with-app`,
    /// `ipad-without-app`, `android-with-app`, `android-without-app`, `android-in-app-browser`, `desktop`, `bot`.
    package var id: String
    /// The case for people: "iPhone with the app".
    package var label: String
    /// The platform the edge classifies the visitor as: `ios`, `android`, `desktop`, `bot`.
    package var platform: String
    /// `iphone` or `ipad` on iOS; nil elsewhere.
    package var device: String?
    /// Whether the visitor has the app; nil when the answer does not depend on it.
    package var appInstalled: Bool?
    /// The kind of answer.
    package var answer: LinkDebugAnswer
    /// The edge's HTTP status (302, 200, 404); nil when the app opens and the edge is not asked.
    package var httpStatus: Int?
    /// Where the visitor ends up: the redirect's target, where the page leads, or what the app is handed.
    package var url: String?
    /// Why, in a sentence or two.
    package var reason: String
    /// A real user agent of such a visitor, classified as the edge classifies it.
    package var userAgent: String
    /// What the app is opened with, when it opens.
    package var app: LinkDebugAppOpen?

    /// Creates a case.
    package init(
        id: String, label: String, platform: String, device: String?, appInstalled: Bool?, answer: LinkDebugAnswer, httpStatus: Int?,
        url: String?, reason: String, userAgent: String, app: LinkDebugAppOpen? = nil
    ) {
        self.id = id
        self.label = label
        self.platform = platform
        self.device = device
        self.appInstalled = appInstalled
        self.answer = answer
        self.httpStatus = httpStatus
        self.url = url
        self.reason = reason
        self.userAgent = userAgent
        self.app = app
    }

    private enum CodingKeys: String, CodingKey {
        case id = "case", label, platform, device, appInstalled, answer, httpStatus, url, reason, userAgent, app
    }

    /// Encodes every key, unset ones as `null`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(label, forKey: .label)
        try c.encode(platform, forKey: .platform)
        try c.encode(device, forKey: .device)
        try c.encode(appInstalled, forKey: .appInstalled)
        try c.encode(answer, forKey: .answer)
        try c.encode(httpStatus, forKey: .httpStatus)
        try c.encode(url, forKey: .url)
        try c.encode(reason, forKey: .reason)
        try c.encode(userAgent, forKey: .userAgent)
        try c.encode(app, forKey: .app)
    }
}

/// The kind of answer a visitor gets.
package enum LinkDebugAnswer: String, Codable, Sendable, Hashable, CaseIterable {
    /// The app opens through its Universal Link or App Link; the edge is not asked.
    case app
    /// 302 to `url`.
    case redirect
    /// 200 with the page before the App Store (or the iOS fallback) that `url` names.
    case interstitial
    /// 200 with the preview page for link-unfurling bots.
    case preview
    /// A status page (404 for an expired or disabled link).
    case status
}

/// What an app opened by a link is handed (through `GET /v1/links/resolve/{slug}` or the SDK).
package struct LinkDebugAppOpen: Codable, Sendable, Hashable {
    /// The apps that open it: `TEAMID.bundle.id` on iOS, the package name on Android.
    package var appIDs: [String]
    /// Where the app should go: the link's `iosURL` (or `androidURL`), else its destination.
    package var deepLink: String
    /// The link's `params`.
    package var params: [String: String]
    /// The lowest iOS app version that can open the link (iOS only).
    package var iosMinimumVersion: String?
    /// The lowest Android version code that can open the link (Android only).
    package var androidMinimumVersionCode: Int?

    /// Creates what an app is handed.
    package init(appIDs: [String], deepLink: String, params: [String: String], iosMinimumVersion: String? = nil, androidMinimumVersionCode: Int? = nil) {
        self.appIDs = appIDs
        self.deepLink = deepLink
        self.params = params
        self.iosMinimumVersion = iosMinimumVersion
        self.androidMinimumVersionCode = androidMinimumVersionCode
    }

    private enum CodingKeys: String, CodingKey {
        case appIDs, deepLink, params, iosMinimumVersion, androidMinimumVersionCode
    }

    /// Encodes every key, unset ones as `null`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(appIDs, forKey: .appIDs)
        try c.encode(deepLink, forKey: .deepLink)
        try c.encode(params, forKey: .params)
        try c.encode(iosMinimumVersion, forKey: .iosMinimumVersion)
        try c.encode(androidMinimumVersionCode, forKey: .androidMinimumVersionCode)
    }
}

/// Something wrong with a link or its app's setup, or worth knowing.
package struct LinkDebugWarning: Codable, Sendable, Hashable {
    /// A stable code (see `LinkDebugWarning.Code`).
    package var code: String
    /// `warning` (visitors do not get what the link intends) or `info`.
    package var severity: String
    /// What is wrong and what to do, for people.
    package var message: String
    /// The setting concerned, when there is one (`routing.iosFallbackURL`, `destination`, `ios.teamID`…).
    package var field: String?

    /// Creates a warning.
    package init(code: Code, message: String, field: String? = nil) {
        self.code = code.rawValue
        self.severity = code.isInformational ? "info" : "warning"
        self.message = message
        self.field = field
    }

    private enum CodingKeys: String, CodingKey {
        case code, severity, message, field
    }

    /// Encodes every key, unset ones as `null`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(severity, forKey: .severity)
        try c.encode(message, forKey: .message)
        try c.encode(field, forKey: .field)
    }

    /// The codes a warning can have.
    package enum Code: String, Sendable, CaseIterable {
        /// The link is disabled: everyone gets 404.
        case linkDisabled = "link_disabled"
        /// The link's `expiresAt` has passed: everyone gets 404.
        case linkExpired = "link_expired"
        /// Neither the link nor the app has an App Store id, and the link has no iOS fallback: iPhones without the
        /// app land on the web.
        case noAppStoreID = "no_app_store_id"
        /// The app has no Apple team id: the association file names no app, and Universal Links open nothing.
        case noTeamID = "no_team_id"
        /// The app has no bundle id: the association file names no app of its own.
        case noBundleID = "no_bundle_id"
        /// The link names an iPad app (`routing.ipadBundleID`) but the app has no team id to name it with.
        case ipadBundleIDWithoutTeamID = "ipad_bundle_id_without_team_id"
        /// The link's iPad app is missing from the association file (more iPad apps than the file names).
        case ipadBundleIDNotInAssociationFile = "ipad_bundle_id_not_in_association_file"
        /// The app has no Android package: Android visitors get the web destination and App Links open nothing.
        case noAndroidPackage = "no_android_package"
        /// The app has no signing certificate fingerprints: `assetlinks.json` is empty and App Links open nothing.
        case noAndroidFingerprints = "no_android_fingerprints"
        /// A destination or fallback on plain `http`.
        case insecureURL = "insecure_url"
        /// iPadOS Safari sends a Mac user agent by default: iPads in Safari are routed as desktops.
        case ipadDesktopUserAgent = "ipad_desktop_user_agent"

        /// Whether the code is for information only.
        package var isInformational: Bool { self == .ipadDesktopUserAgent }
    }
}
