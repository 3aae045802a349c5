import FerryAPI
import Foundation

/// Where a link sends each kind of visitor and why, and what is wrong in its setup: what `?d=1` on a link shows and
/// `GET /v1/links/{id}/debug` answers (the debug view Firebase Dynamic Links had).
///
/// Every answer from the edge is `ClickRouter.decide` for the classification `UserAgentClassifier` gives a real user
/// agent of the case, so the report says what the edge does; the "with the app" cases read the association files
/// `AssociationFiles` makes, with the same link-level bundle ids the served file names.
///
/// ```swift
/// let report = LinkDebugReport(link: link, app: app, linkBundleIDs: ["com.example.ipad"], now: .now)
/// report.cases.first { $0.id == "iphone-without-app" }?.url   // "https://apps.apple.com/app/id1234567890"
/// report.render()                                              // the page `?d=1` answers with
/// ```
package struct LinkDebugReport: Sendable, Hashable {
    /// The link.
    package var linkID: String
    /// Its short URL.
    package var url: String
    /// Its web destination.
    package var destination: String
    /// Whether it sends visitors on.
    package var status: Link.Status
    /// One per kind of visitor, in `Visitor.allCases` order.
    package var cases: [LinkDebugCase]
    /// What is wrong or worth knowing, most serious first.
    package var warnings: [LinkDebugWarning]

    /// The report of a link of an app at an instant. `linkBundleIDs` are the bundle ids the app's links name that its
    /// `apple-app-site-association` lists (see `AssociationFiles.appleAppSiteAssociation(for:linkBundleIDs:)`).
    package init(link: Link, app: App, linkBundleIDs: [String], now: Date) {
        let builder = Builder(link: link, app: app, linkBundleIDs: linkBundleIDs, now: now)
        linkID = link.id
        url = link.shortURL
        destination = link.destination
        status = builder.status
        cases = Visitor.allCases.map(builder.debugCase)
        warnings = builder.warnings()
    }

    /// The API's form of the report.
    package var response: LinkDebugResponse {
        LinkDebugResponse(linkID: linkID, url: url, status: Self.name(of: status), cases: cases, warnings: warnings)
    }

    /// Whether a click's raw query (without `?`) asks for the debug view: one of its pairs is exactly `d=1`. A byte
    /// scan, cheap enough for the edge's fast path; `d=0`, `d=true`, `D=1` or `d=%31` are ordinary queries.
    package static func isRequested(byQuery query: some StringProtocol) -> Bool {
        // Bytes of "d=1" matched at the start of the current pair; -1 once the pair is something else.
        var matched = 0
        for byte in query.utf8 {
            if byte == UInt8(ascii: "&") {
                if matched == 3 { return true }
                matched = 0
            } else if matched >= 0 && matched < 3 && byte == Self.requestPair[matched] {
                matched += 1
            } else {
                matched = -1
            }
        }
        return matched == 3
    }

    private static let requestPair: [UInt8] = Array("d=1".utf8)

    static func name(of status: Link.Status) -> String {
        switch status {
        case .active: "active"
        case .expired: "expired"
        case .disabled: "disabled"
        }
    }

    /// The kinds of visitor a report covers, each with a real user agent of it.
    package enum Visitor: String, Sendable, CaseIterable {
        case iPhoneWithApp = "iphone-with-app"
        case iPhoneWithoutApp = "iphone-without-app"
        case iPhoneInAppBrowser = "iphone-in-app-browser"
        case iPadWithApp = "ipad-with-app"
        case iPadWithoutApp = "ipad-without-app"
        case androidWithApp = "android-with-app"
        case androidWithoutApp = "android-without-app"
        case androidInAppBrowser = "android-in-app-browser"
        case desktop
        case bot

        /// The case for people.
        package var label: String {
            switch self {
            case .iPhoneWithApp: "iPhone with the app"
            case .iPhoneWithoutApp: "iPhone without the app (Safari)"
            case .iPhoneInAppBrowser: "iPhone in an in-app browser (Instagram, Facebook)"
            case .iPadWithApp: "iPad with the app"
            case .iPadWithoutApp: "iPad without the app (mobile user agent)"
            case .androidWithApp: "Android with the app"
            case .androidWithoutApp: "Android without the app (Chrome)"
            case .androidInAppBrowser: "Android in an in-app browser (Facebook, Instagram)"
            case .desktop: "Desktop browser"
            case .bot: "Link-unfurling bot (Facebook, Slack, iMessage…)"
            }
        }

        /// Whether the visitor has the app; nil where the answer does not depend on it.
        package var appInstalled: Bool? {
            switch self {
            case .iPhoneWithApp, .iPadWithApp, .androidWithApp: true
            case .iPhoneWithoutApp, .iPadWithoutApp, .androidWithoutApp: false
            case .iPhoneInAppBrowser, .androidInAppBrowser, .desktop, .bot: nil
            }
        }

        /// A real user agent of such a visitor (the one a visitor with the app sends when the app does not open).
        package var userAgent: String {
            switch self {
            case .iPhoneWithApp, .iPhoneWithoutApp:
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
            case .iPhoneInAppBrowser:
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 334.0.4.32.98 (iPhone15,2; iOS 17_5; en_US; en; scale=3.00; 1179x2556; 607436522)"
            case .iPadWithApp, .iPadWithoutApp:
                "Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
            case .androidWithApp, .androidWithoutApp:
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36"
            case .androidInAppBrowser:
                "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.135 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/489.0.0.48.108;]"
            case .desktop:
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
            case .bot:
                "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
            }
        }
    }
}

extension LinkDebugReport {
    /// Works the report out: one link, its app, the app ids its association file names.
    private struct Builder {
        let link: Link
        let app: App
        let status: Link.Status
        let now: Date
        /// `TEAMID.bundle` of every app the served `apple-app-site-association` names for links.
        let associatedAppIDs: Set<String>
        /// Whether the served `assetlinks.json` names the app's package.
        let assetLinksNameTheApp: Bool

        init(link: Link, app: App, linkBundleIDs: [String], now: Date) {
            self.link = link
            self.app = app
            self.now = now
            status = link.status(at: now)
            associatedAppIDs = Self.appIDs(in: AssociationFiles.appleAppSiteAssociation(for: app, linkBundleIDs: linkBundleIDs))
            assetLinksNameTheApp = Self.packages(in: AssociationFiles.assetLinks(for: app)).contains { $0 == app.android.packageName }
        }

        var routing: LinkRouting { link.routing }

        /// The `appIDs` of the `applinks` details of an association file.
        static func appIDs(in file: Data) -> Set<String> {
            let document = (try? JSONSerialization.jsonObject(with: file)) as? [String: Any]
            let details = (document?["applinks"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
            return Set(details.flatMap { $0["appIDs"] as? [String] ?? [] })
        }

        /// The packages an `assetlinks.json` lets handle all URLs.
        static func packages(in file: Data) -> [String] {
            let statements = (try? JSONSerialization.jsonObject(with: file)) as? [[String: Any]] ?? []
            return statements.compactMap { ($0["target"] as? [String: Any])?["package_name"] as? String }
        }

        // MARK: Cases

        func debugCase(_ visitor: Visitor) -> LinkDebugCase {
            switch visitor {
            case .iPhoneWithApp:
                return iosAppCase(visitor, appIDs: app.ios.appIDs, missing: iPhoneAppMissing)
            case .iPadWithApp:
                let ids = routing.ipadBundleID.map { bundle in app.ios.teamID.map { ["\($0).\(bundle)"] } ?? [] } ?? app.ios.appIDs
                return iosAppCase(visitor, appIDs: ids, missing: iPadAppMissing)
            case .androidWithApp:
                guard status == .active else { return withAppResolveNote(edgeCase(visitor)) }
                guard assetLinksNameTheApp, let package = app.android.packageName else {
                    return edgeCase(visitor, before: "App Links cannot open the app: \(androidAppMissing) So Chrome loads the link from Ferry. ")
                }
                let deepLink = link.androidURL ?? link.destination
                var reason = "The App Link opens the app: assetlinks.json names \(package) with its signing certificates, so Android "
                    + "does not ask Ferry. The app resolves the link (GET /v1/links/resolve/{slug}) and goes to \(deepLink)."
                if let code = routing.androidMinimumVersionCode {
                    reason += " An app older than version code \(code) should ask for an update (routing.androidMinimumVersionCode)."
                }
                return appCase(visitor, platform: .android, device: nil, reason: reason, open: LinkDebugAppOpen(
                    appIDs: [package], deepLink: deepLink, params: link.params, androidMinimumVersionCode: routing.androidMinimumVersionCode))
            default:
                return edgeCase(visitor)
            }
        }

        /// An iPhone or iPad with the app: it opens when the association file names one of `appIDs`; else the visitor
        /// reaches the edge as one without the app.
        func iosAppCase(_ visitor: Visitor, appIDs: [String], missing: String?) -> LinkDebugCase {
            guard status == .active else { return withAppResolveNote(edgeCase(visitor)) }
            let named = appIDs.filter(associatedAppIDs.contains)
            guard !named.isEmpty else {
                return edgeCase(visitor, before: "The Universal Link cannot open the app: \(missing ?? "the association file does not name it.") "
                    + "So Safari loads the link from Ferry. ")
            }
            let deepLink = link.iosURL ?? link.destination
            var reason = "The Universal Link opens the app: apple-app-site-association names \(named.joined(separator: ", ")), so iOS "
                + "does not ask Ferry. The app resolves the link (GET /v1/links/resolve/{slug}) and goes to \(deepLink)."
            if let version = routing.iosMinimumVersion {
                reason += " An app older than version \(version) should ask for an update (routing.iosMinimumVersion)."
            }
            let client = UserAgentClassifier().classify(visitor.userAgent)
            return appCase(visitor, platform: client.platform, device: client.appleDevice, reason: reason, open: LinkDebugAppOpen(
                appIDs: named, deepLink: deepLink, params: link.params, iosMinimumVersion: routing.iosMinimumVersion))
        }

        func appCase(_ visitor: Visitor, platform: ClientPlatform, device: String?, reason: String, open: LinkDebugAppOpen) -> LinkDebugCase {
            LinkDebugCase(
                id: visitor.rawValue, label: visitor.label, platform: platform.rawValue, device: device, appInstalled: visitor.appInstalled,
                answer: .app, httpStatus: nil, url: open.deepLink, reason: reason, userAgent: visitor.userAgent, app: open)
        }

        /// For a link that answers 404: the app may still open through its Universal Link or App Link, and then finds
        /// nothing either.
        func withAppResolveNote(_ debugCase: LinkDebugCase) -> LinkDebugCase {
            var debugCase = debugCase
            debugCase.reason += " Should the app open through its link, resolving the link answers 404 (gone) too."
            return debugCase
        }

        /// Why the association file names no iPhone app, or nil when it names one.
        var iPhoneAppMissing: String? {
            if app.ios.teamID == nil { return "the app has no Apple team id, so apple-app-site-association names no app." }
            if app.ios.bundleIDs.isEmpty { return "the app has no bundle id, so apple-app-site-association names no app of its own." }
            return nil
        }

        /// Why the association file names no app for iPads, or nil when it names one.
        var iPadAppMissing: String? {
            guard let bundle = routing.ipadBundleID else { return iPhoneAppMissing }
            guard let team = app.ios.teamID else {
                return "the link names the iPad app \(bundle), but the app has no Apple team id to name it with in apple-app-site-association."
            }
            return "apple-app-site-association does not name \(team).\(bundle) \(Self.linkBundleIDsMissing)."
        }

        /// Why the served association file may lack a link's iPad app its team id could name.
        static let linkBundleIDsMissing = "(it reads the iPad apps of links at most once a minute, and names a limited number of them)"

        /// Why `assetlinks.json` does not name the app.
        var androidAppMissing: String {
            guard app.android.packageName != nil else { return "the app has no Android package, so assetlinks.json names no app." }
            return "the app has no signing certificate fingerprint, so assetlinks.json names no app."
        }

        /// The case as the edge answers it: `ClickRouter.decide` for the visitor's user agent, explained.
        func edgeCase(_ visitor: Visitor, before prefix: String = "") -> LinkDebugCase {
            let client = UserAgentClassifier().classify(visitor.userAgent)
            let decision = ClickRouter().decide(link: link, app: app, client: client, query: nil, clickID: LinkDebugReport.clickIDPlaceholder, now: now)
            let answer: LinkDebugAnswer, httpStatus: Int, url: String?, reason: String
            switch decision {
            case .status(let page):
                (answer, httpStatus, url) = (.status, page.status, nil)
                reason = status == .expired
                    ? "The link has expired: every visitor gets the 404 page “\(page.title)”."
                    : "The link is disabled: every visitor gets the 404 page “\(page.title)”."
            case .preview(let page):
                (answer, httpStatus, url) = (.preview, 200, page.destination)
                reason = "Bots get a preview page with Open Graph and Twitter Card tags (title “\(page.title)”"
                    + (page.imageURL == nil ? ", no image" : "") + "); a person who lands on it continues to the destination."
            case .interstitial(let page):
                (answer, httpStatus, url) = (.interstitial, 200, page.storeURL)
                reason = interstitialReason(page, client: client)
            case .redirect(let location):
                (answer, httpStatus, url) = (.redirect, 302, location)
                reason = redirectReason(location, client: client)
            }
            return LinkDebugCase(
                id: visitor.rawValue, label: visitor.label, platform: client.platform.rawValue, device: client.appleDevice,
                appInstalled: visitor.appInstalled, answer: answer, httpStatus: httpStatus, url: url, reason: prefix + reason,
                userAgent: visitor.userAgent)
        }

        func interstitialReason(_ page: InterstitialPage, client: ClientInfo) -> String {
            let target = iosTarget(page.storeURL, client: client)
            if page.inBlockingBrowser {
                let open = page.openInAppURL.map { "an “Open in \(app.name)” button (\($0))" }
                    ?? "no “Open in app” button (the link has no iosURL and the app no URL scheme)"
                return "This in-app browser keeps Universal Links from the app, so the page does not lead on by itself: it offers "
                    + "\(open) and a button to \(target)."
            }
            if page.copyToken != nil {
                return "A page whose button copies the click for the app to read after the install (copy to open), then goes to \(target)."
            }
            return "A page that reports the device (to match a later install to the click) and then leads on by itself to \(target)."
        }

        func redirectReason(_ location: String, client: ClientInfo) -> String {
            switch client.platform {
            case .iOS:
                return "routing.skipPreviewPage is set: straight to \(iosTarget(location, client: client)), without the page "
                    + "(so a later install is matched from the click alone)."
            case .android:
                return androidTarget(location, client: client)
            case .bot:
                return "routing.skipPreviewPage is set: bots are sent on like desktops, to \(otherTarget(location)); previews show that page's own tags."
            case .desktop, .other:
                return "Desktops and other platforms go to \(otherTarget(location))."
            }
        }

        /// What an iPhone or iPad page or redirect leads to, named by the setting it comes from (in `ClickRouter`'s order).
        func iosTarget(_ url: String, client: ClientInfo) -> String {
            if client.appleDevice == "ipad", url == routing.ipadFallbackURL { return "the link's iPad fallback (routing.ipadFallbackURL)" }
            if url == routing.iosFallbackURL {
                return "the link's iOS fallback (routing.iosFallbackURL)" + (client.appleDevice == "ipad" ? ", as the link has no iPad fallback" : "")
            }
            if url.hasPrefix("https://apps.apple.com/") {
                return routing.appStoreID != nil
                    ? "the App Store page of the link's App Store id (routing.appStoreID)"
                    : "the App Store page of the app's App Store id"
            }
            if url == app.fallbackURL { return "the app's fallback URL, as neither the link nor the app has an App Store id" }
            return "the web destination, as neither the link nor the app has an App Store id or fallback"
        }

        /// Where an Android visitor is sent, and why (in `ClickRouter`'s order).
        func androidTarget(_ url: String, client: ClientInfo) -> String {
            guard let package = app.android.packageName else {
                if url == routing.androidFallbackURL { return "The app has no Android package: sent to the link's Android fallback (routing.androidFallbackURL)." }
                return "The app has no Android package: sent to the web destination."
            }
            let withoutApp = routing.androidFallbackURL != nil ? "the link's Android fallback (routing.androidFallbackURL)" : "the Play Store"
            if url.hasPrefix("intent://") {
                let why = client.inAppBrowser != nil
                    ? "In-app browsers do not hand App Links to apps, so"
                    : "The link's androidURL uses a custom scheme, so"
                return "\(why) an intent:// URL opens \(package) when it is installed, and otherwise goes to \(withoutApp)."
            }
            if url == routing.androidFallbackURL { return "Sent to the link's Android fallback (routing.androidFallbackURL) instead of the Play Store." }
            return "Sent to the Play Store page of \(package), with the click's id in referrer so the install can be matched to the click."
        }

        /// Where desktops (and bots that skip the preview) go.
        func otherTarget(_ url: String) -> String {
            url == routing.otherPlatformFallbackURL
                ? "the link's other-platform fallback (routing.otherPlatformFallbackURL)"
                : "the web destination (with the link's UTM parameters)"
        }

        // MARK: Warnings

        func warnings() -> [LinkDebugWarning] {
            var warnings: [LinkDebugWarning] = []
            switch status {
            case .disabled:
                warnings.append(.init(code: .linkDisabled, message: "The link is disabled: every visitor gets a 404 page. Set disabled to false to send visitors on again.", field: "disabled"))
            case .expired:
                let when = link.expiresAt.map(FerryJSON.formatDate) ?? "?"
                warnings.append(.init(code: .linkExpired, message: "The link expired at \(when): every visitor gets a 404 page. Move or clear expiresAt to bring it back.", field: "expiresAt"))
            case .active:
                break
            }
            if routing.appStoreID == nil && app.ios.appStoreID == nil && routing.iosFallbackURL == nil {
                let lands = app.fallbackURL != nil ? "the app's fallback URL" : "the web destination"
                warnings.append(.init(code: .noAppStoreID, message: "Neither the link nor the app has an App Store id, and the link has no iOS fallback: iPhones without the app land on \(lands) instead of the App Store.", field: "routing.appStoreID"))
            }
            if app.ios.teamID == nil {
                warnings.append(.init(code: .noTeamID, message: "The app has no Apple team id: apple-app-site-association names no app, so Universal Links never open the app. Set the team id (ferry app update --team-id).", field: "ios.teamID"))
            }
            if app.ios.bundleIDs.isEmpty {
                warnings.append(.init(code: .noBundleID, message: "The app has no iOS bundle id: apple-app-site-association names no app of its own, so Universal Links do not open it. Add one (ferry app update --bundle-id).", field: "ios.bundleIDs"))
            }
            if let bundle = routing.ipadBundleID {
                if let team = app.ios.teamID {
                    if !associatedAppIDs.contains("\(team).\(bundle)") {
                        warnings.append(.init(code: .ipadBundleIDNotInAssociationFile, message: "apple-app-site-association does not name the link's iPad app \(team).\(bundle) \(Self.linkBundleIDsMissing), so iPads with that app get the answers for iPads without it.", field: "routing.ipadBundleID"))
                    }
                } else {
                    warnings.append(.init(code: .ipadBundleIDWithoutTeamID, message: "The link names the iPad app \(bundle), but the app has no Apple team id to name it with in apple-app-site-association: that app cannot open the link.", field: "routing.ipadBundleID"))
                }
            }
            if app.android.packageName == nil {
                warnings.append(.init(code: .noAndroidPackage, message: "The app has no Android package: Android visitors go to the web instead of the Play Store, and App Links cannot open the app. Set it (ferry app update --android-package).", field: "android.packageName"))
            } else if app.android.sha256Fingerprints.isEmpty {
                warnings.append(.init(code: .noAndroidFingerprints, message: "The app has no signing certificate fingerprint: assetlinks.json names no app, so App Links cannot open it. Add the SHA-256 of each signing certificate (ferry app update --android-sha256).", field: "android.sha256Fingerprints"))
            }
            var urls = [("destination", link.destination)] + routing.urls.map { ("routing.\($0.field)", $0.value) }
            if let fallback = app.fallbackURL { urls.append(("app.fallbackURL", fallback)) }
            for (field, url) in urls where (try? URLRules.scheme(of: url, field: field)) == "http" {
                warnings.append(.init(code: .insecureURL, message: "\(field) is on plain http (\(url)): browsers warn, in-app browsers may refuse it, and the visit can be read and changed on the way. Use https.", field: field))
            }
            if routing.ipadFallbackURL != nil {
                warnings.append(.init(code: .ipadDesktopUserAgent, message: "Safari on iPadOS asks for desktop websites by default and then sends a Mac user agent: Ferry cannot tell such an iPad from a Mac and routes it as a desktop. The iPad fallback reaches iPads in in-app browsers and iPads set to request mobile websites.", field: "routing.ipadFallbackURL"))
            }
            return warnings
        }
    }

    /// The click id in URLs the report shows (a real click gets its own).
    package static let clickIDPlaceholder = "CLICK_ID"
}
