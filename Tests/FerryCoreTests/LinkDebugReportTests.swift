import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

@Suite("LinkDebugReport", .takesTurns)
struct LinkDebugReportTests {
    static func report(
        _ link: Link = Fixtures.link(), app: App = Fixtures.app(), linkBundleIDs: [String] = [], now: Date = Fixtures.now
    ) -> LinkDebugReport {
        LinkDebugReport(link: link, app: app, linkBundleIDs: linkBundleIDs, now: now)
    }

    static func link(_ routing: LinkRouting, destination: String = "https://acme.com/sale?ref=home", androidURL: String? = nil) -> Link {
        var link = Fixtures.link(destination: destination, androidURL: androidURL)
        link.routing = routing
        return link
    }

    static func app(ios: IOSSettings? = nil, android: AndroidSettings? = nil, fallbackURL: String? = "https://acme.com/get-the-app") -> App {
        let full = Fixtures.app()
        return Fixtures.app(ios: ios ?? full.ios, android: android ?? full.android, fallbackURL: fallbackURL)
    }

    static let playStore = "https://play.google.com/store/apps/details?id=com.acme.android&referrer=ferry_click_id%3DCLICK_ID%26utm_source%3Dnewsletter%26utm_medium%3Demail"

    func only(_ report: LinkDebugReport, _ visitor: LinkDebugReport.Visitor, sourceLocation: SourceLocation = #_sourceLocation) throws -> LinkDebugCase {
        try #require(report.cases.first { $0.id == visitor.rawValue }, sourceLocation: sourceLocation)
    }

    func codes(_ report: LinkDebugReport) -> [String] { report.warnings.map(\.code) }

    @Test func aWellSetUpLinkOpensTheAppWhereItCanAndSendsEveryoneElseOn() throws {
        let report = Self.report()
        #expect(report.cases.map(\.id) == LinkDebugReport.Visitor.allCases.map(\.rawValue))
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        #expect(report.status == .active)
        #expect(report.url == "https://go.acme.com/summer")

        let iPhone = try only(report, .iPhoneWithApp)
        #expect(iPhone.answer == .app && iPhone.httpStatus == nil)
        #expect(iPhone.url == "acme://sale")
        #expect(iPhone.app == LinkDebugAppOpen(appIDs: ["ABCDE12345.com.acme.app"], deepLink: "acme://sale", params: ["screen": "sale"]))
        #expect((iPhone.platform, iPhone.device, iPhone.appInstalled) == ("ios", "iphone", true))
        #expect(iPhone.reason.contains("ABCDE12345.com.acme.app"))

        let safari = try only(report, .iPhoneWithoutApp)
        #expect(safari.answer == .interstitial && safari.httpStatus == 200)
        #expect(safari.url == "https://apps.apple.com/app/id1234567890")
        #expect(safari.reason.contains("the App Store page of the app's App Store id"))
        #expect(safari.appInstalled == false)

        let instagram = try only(report, .iPhoneInAppBrowser)
        #expect(instagram.answer == .interstitial)
        #expect(instagram.reason.contains("“Open in Acme” button (acme://sale)"))
        #expect(instagram.appInstalled == nil)

        let iPadApp = try only(report, .iPadWithApp)
        #expect(iPadApp.answer == .app && iPadApp.device == "ipad")
        let iPad = try only(report, .iPadWithoutApp)
        #expect(iPad.answer == .interstitial && iPad.url == "https://apps.apple.com/app/id1234567890" && iPad.device == "ipad")

        let android = try only(report, .androidWithApp)
        #expect(android.answer == .app && android.platform == "android")
        #expect(android.app == LinkDebugAppOpen(appIDs: ["com.acme.android"], deepLink: "https://acme.com/sale?ref=home", params: ["screen": "sale"]))
        let chrome = try only(report, .androidWithoutApp)
        #expect(chrome.answer == .redirect && chrome.httpStatus == 302)
        #expect(chrome.url == Self.playStore)
        #expect(chrome.reason.contains("Play Store page of com.acme.android"))
        let facebook = try only(report, .androidInAppBrowser)
        #expect(facebook.url == "intent://go.acme.com/summer#Intent;scheme=https;package=com.acme.android;S.browser_fallback_url=\(QueryString.encode(Self.playStore));end")
        #expect(facebook.reason.contains("In-app browsers do not hand App Links"))

        let desktop = try only(report, .desktop)
        #expect(desktop.answer == .redirect && desktop.platform == "desktop")
        #expect(desktop.url == "https://acme.com/sale?ref=home&utm_source=newsletter&utm_medium=email")
        let bot = try only(report, .bot)
        #expect(bot.answer == .preview && bot.httpStatus == 200 && bot.platform == "bot")
        #expect(bot.url == "https://acme.com/sale?ref=home")
    }

    @Test func everyEdgeAnswerIsTheRoutersForTheCasesUserAgent() throws {
        // The report's user agents are classified as the visitors they stand for, and its URLs are the router's.
        let link = Self.link(LinkRouting(iosFallbackURL: "https://acme.com/ios", androidFallbackURL: "https://acme.com/android"))
        let report = Self.report(link, app: Self.app(ios: IOSSettings(bundleIDs: ["com.acme.app"], appStoreID: "1")))
        let expected: [LinkDebugReport.Visitor: (ClientPlatform, String?, String?)] = [
            .iPhoneWithoutApp: (.iOS, "iphone", nil), .iPhoneInAppBrowser: (.iOS, "iphone", "instagram"), .iPadWithoutApp: (.iOS, "ipad", nil),
            .androidWithoutApp: (.android, nil, nil), .androidInAppBrowser: (.android, nil, "facebook"), .desktop: (.desktop, nil, nil),
            .bot: (.bot, nil, nil),
        ]
        for (visitor, (platform, device, inApp)) in expected {
            let client = UserAgentClassifier().classify(visitor.userAgent)
            #expect((client.platform, client.appleDevice, client.inAppBrowser) == (platform, device, inApp), "\(visitor)")
            let decision = ClickRouter().decide(link: link, app: Self.app(ios: IOSSettings(bundleIDs: ["com.acme.app"], appStoreID: "1")),
                                                client: client, query: nil, clickID: LinkDebugReport.clickIDPlaceholder, now: Fixtures.now)
            let url: String? = switch decision {
            case .redirect(let url): url
            case .interstitial(let page): page.storeURL
            case .preview(let page): page.destination
            case .status: nil
            }
            #expect(try only(report, visitor).url == url, "\(visitor)")
        }
    }

    @Test func theIOSFallbacksReplaceTheStoreForTheirDevices() throws {
        let iPhoneOnly = Self.report(Self.link(LinkRouting(iosFallbackURL: "https://acme.com/ios")))
        #expect(try only(iPhoneOnly, .iPhoneWithoutApp).url == "https://acme.com/ios")
        #expect(try only(iPhoneOnly, .iPhoneWithoutApp).reason.contains("the link's iOS fallback (routing.iosFallbackURL)"))
        #expect(try only(iPhoneOnly, .iPadWithoutApp).url == "https://acme.com/ios")
        #expect(try only(iPhoneOnly, .iPadWithoutApp).reason.contains("as the link has no iPad fallback"))
        #expect(!codes(iPhoneOnly).contains("ipad_desktop_user_agent"))

        let both = Self.report(Self.link(LinkRouting(iosFallbackURL: "https://acme.com/ios", ipadFallbackURL: "https://acme.com/ipad")))
        #expect(try only(both, .iPhoneWithoutApp).url == "https://acme.com/ios")
        #expect(try only(both, .iPadWithoutApp).url == "https://acme.com/ipad")
        #expect(try only(both, .iPadWithoutApp).reason.contains("routing.ipadFallbackURL"))
        // Informational only: iPads in Safari look like Macs.
        let note = try #require(both.warnings.first { $0.code == "ipad_desktop_user_agent" })
        #expect(note.severity == "info" && note.field == "routing.ipadFallbackURL")
        #expect(codes(both) == ["ipad_desktop_user_agent"])
        // The app still opens where it is installed.
        #expect(try only(both, .iPhoneWithApp).answer == .app)
    }

    @Test func theLinksAppStoreIDLeadsToItsOwnStorePage() throws {
        let report = Self.report(Self.link(LinkRouting(appStoreID: "555000111")), app: Self.app(ios: IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.acme.app"])))
        #expect(try only(report, .iPhoneWithoutApp).url == "https://apps.apple.com/app/id555000111")
        #expect(try only(report, .iPhoneWithoutApp).reason.contains("the link's App Store id (routing.appStoreID)"))
        #expect(!codes(report).contains("no_app_store_id"), "the link's own id is enough")
    }

    @Test func noAppStoreIDAndNoIOSFallbackLeaveIPhonesOnTheWeb() throws {
        let noStore = IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.acme.app"])
        let withFallback = Self.report(app: Self.app(ios: noStore))
        #expect(codes(withFallback) == ["no_app_store_id"])
        #expect(withFallback.warnings[0].message.contains("the app's fallback URL"))
        #expect(try only(withFallback, .iPhoneWithoutApp).url == "https://acme.com/get-the-app")
        #expect(try only(withFallback, .iPhoneWithoutApp).reason.contains("the app's fallback URL"))

        let web = Self.report(app: Self.app(ios: noStore, fallbackURL: nil))
        #expect(web.warnings[0].message.contains("the web destination"))
        #expect(try only(web, .iPhoneWithoutApp).url == "https://acme.com/sale?ref=home&utm_source=newsletter&utm_medium=email")
        #expect(try only(web, .iPhoneWithoutApp).reason.contains("the web destination"))

        // An iOS fallback is somewhere to go; an iPad fallback alone does not help iPhones.
        #expect(codes(Self.report(Self.link(LinkRouting(iosFallbackURL: "https://acme.com/ios")), app: Self.app(ios: noStore))).isEmpty)
        #expect(codes(Self.report(Self.link(LinkRouting(ipadFallbackURL: "https://acme.com/ipad")), app: Self.app(ios: noStore)))
            == ["no_app_store_id", "ipad_desktop_user_agent"])
    }

    @Test func withoutATeamIDOrBundleIDUniversalLinksOpenNothing() throws {
        let noTeam = Self.report(app: Self.app(ios: IOSSettings(bundleIDs: ["com.acme.app"], appStoreID: "1234567890")))
        #expect(codes(noTeam) == ["no_team_id"])
        #expect(noTeam.warnings[0].field == "ios.teamID")
        let iPhone = try only(noTeam, .iPhoneWithApp)
        #expect(iPhone.answer == .interstitial && iPhone.app == nil && iPhone.appInstalled == true)
        #expect(iPhone.url == "https://apps.apple.com/app/id1234567890")
        #expect(iPhone.reason.hasPrefix("The Universal Link cannot open the app: the app has no Apple team id"))
        #expect(try only(noTeam, .iPadWithApp).answer == .interstitial)

        let noBundle = Self.report(app: Self.app(ios: IOSSettings(teamID: "ABCDE12345", appStoreID: "1234567890")))
        #expect(codes(noBundle) == ["no_bundle_id"])
        #expect(try only(noBundle, .iPhoneWithApp).reason.contains("the app has no bundle id"))
        #expect(try only(noBundle, .iPhoneWithApp).answer == .interstitial)
    }

    @Test func anIPadAppOpensWhereTheAssociationFileNamesIt() throws {
        let link = Self.link(LinkRouting(ipadBundleID: "com.acme.ipad"))
        let named = Self.report(link, linkBundleIDs: ["com.acme.ipad"])
        #expect(named.warnings.isEmpty)
        #expect(try only(named, .iPadWithApp).app?.appIDs == ["ABCDE12345.com.acme.ipad"])
        #expect(try only(named, .iPhoneWithApp).app?.appIDs == ["ABCDE12345.com.acme.app"])

        let unnamed = Self.report(link, linkBundleIDs: [])
        #expect(codes(unnamed) == ["ipad_bundle_id_not_in_association_file"])
        #expect(try only(unnamed, .iPadWithApp).answer == .interstitial)
        #expect(try only(unnamed, .iPadWithApp).reason.contains("does not name ABCDE12345.com.acme.ipad"))

        let noTeam = Self.report(link, app: Self.app(ios: IOSSettings(bundleIDs: ["com.acme.app"], appStoreID: "1")), linkBundleIDs: ["com.acme.ipad"])
        #expect(codes(noTeam) == ["no_team_id", "ipad_bundle_id_without_team_id"])
        #expect(noTeam.warnings[1].field == "routing.ipadBundleID")
        #expect(try only(noTeam, .iPadWithApp).reason.contains("names the iPad app com.acme.ipad, but the app has no Apple team id"))
    }

    @Test func withoutAPackageOrFingerprintsAppLinksOpenNothing() throws {
        let noPackage = Self.report(app: Self.app(android: AndroidSettings()))
        #expect(codes(noPackage) == ["no_android_package"])
        for visitor in [LinkDebugReport.Visitor.androidWithApp, .androidWithoutApp, .androidInAppBrowser] {
            let android = try only(noPackage, visitor)
            #expect(android.answer == .redirect, "\(visitor)")
            #expect(android.url == "https://acme.com/sale?ref=home&utm_source=newsletter&utm_medium=email", "\(visitor)")
            #expect(android.reason.contains("The app has no Android package"), "\(visitor)")
        }
        #expect(try only(noPackage, .androidWithApp).reason.hasPrefix("App Links cannot open the app: the app has no Android package"))

        let noPrints = Self.report(app: Self.app(android: AndroidSettings(packageName: "com.acme.android")))
        #expect(codes(noPrints) == ["no_android_fingerprints"])
        let withApp = try only(noPrints, .androidWithApp)
        #expect(withApp.answer == .redirect && withApp.url == Self.playStore)
        #expect(withApp.reason.hasPrefix("App Links cannot open the app: the app has no signing certificate fingerprint"))
    }

    @Test func theAndroidFallbackReplacesThePlayStore() throws {
        let report = Self.report(Self.link(LinkRouting(androidFallbackURL: "https://acme.com/android")))
        #expect(try only(report, .androidWithoutApp).url == "https://acme.com/android")
        #expect(try only(report, .androidWithoutApp).reason.contains("routing.androidFallbackURL"))
        let inApp = try only(report, .androidInAppBrowser)
        #expect(inApp.url == "intent://go.acme.com/summer#Intent;scheme=https;package=com.acme.android;S.browser_fallback_url=https%3A%2F%2Facme.com%2Fandroid;end")
        #expect(inApp.reason.contains("otherwise goes to the link's Android fallback"))
        #expect(try only(report, .androidWithApp).answer == .app)
    }

    @Test func aCustomSchemeAndroidLinkIsAnIntentEvenInChrome() throws {
        let report = Self.report(Self.link(LinkRouting(), androidURL: "acme://sale"))
        let chrome = try only(report, .androidWithoutApp)
        #expect(chrome.url?.hasPrefix("intent://sale#Intent;scheme=acme;package=com.acme.android;") == true)
        #expect(chrome.reason.contains("custom scheme"))
        #expect(try only(report, .androidWithApp).app?.deepLink == "acme://sale")
    }

    @Test func theOtherPlatformFallbackTakesDesktops() throws {
        let report = Self.report(Self.link(LinkRouting(otherPlatformFallbackURL: "https://acme.com/desktop")))
        #expect(try only(report, .desktop).url == "https://acme.com/desktop")
        #expect(try only(report, .desktop).reason.contains("routing.otherPlatformFallbackURL"))
        #expect(try only(report, .bot).answer == .preview, "bots keep their preview")
    }

    @Test func skippingThePreviewPageSendsBotsAndIPhonesStraightOn() throws {
        let report = Self.report(Self.link(LinkRouting(otherPlatformFallbackURL: "https://acme.com/desktop", skipPreviewPage: true)))
        let bot = try only(report, .bot)
        #expect(bot.answer == .redirect && bot.url == "https://acme.com/desktop")
        #expect(bot.reason.contains("routing.skipPreviewPage is set"))
        let safari = try only(report, .iPhoneWithoutApp)
        #expect(safari.answer == .redirect && safari.url == "https://apps.apple.com/app/id1234567890")
        #expect(safari.reason.contains("routing.skipPreviewPage is set"))
        // Where Universal Links are blocked the page stays.
        #expect(try only(report, .iPhoneInAppBrowser).answer == .interstitial)
        #expect(try only(report, .iPhoneWithApp).answer == .app)
    }

    @Test func theMinimumVersionsReachTheApp() throws {
        let report = Self.report(Self.link(LinkRouting(iosMinimumVersion: "4.2", androidMinimumVersionCode: 120)))
        let iPhone = try only(report, .iPhoneWithApp)
        #expect(iPhone.app?.iosMinimumVersion == "4.2" && iPhone.app?.androidMinimumVersionCode == nil)
        #expect(iPhone.reason.contains("older than version 4.2"))
        let android = try only(report, .androidWithApp)
        #expect(android.app?.androidMinimumVersionCode == 120 && android.app?.iosMinimumVersion == nil)
        #expect(android.reason.contains("version code 120"))
    }

    @Test func aDisabledOrExpiredLinkAnswers404ToEveryone() throws {
        let disabled = Self.report(Fixtures.link(disabled: true))
        #expect(disabled.status == .disabled && disabled.response.status == "disabled")
        #expect(codes(disabled) == ["link_disabled"])
        for debugCase in disabled.cases {
            #expect(debugCase.answer == .status && debugCase.httpStatus == 404 && debugCase.url == nil, "\(debugCase.id)")
            #expect(debugCase.reason.hasPrefix("The link is disabled"), "\(debugCase.id)")
        }
        #expect(try only(disabled, .iPhoneWithApp).reason.contains("resolving the link answers 404"))
        #expect(try only(disabled, .androidWithApp).reason.contains("resolving the link answers 404"))

        let expired = Self.report(Fixtures.link(expiresAt: Fixtures.now))
        #expect(codes(expired) == ["link_expired"])
        #expect(expired.warnings[0].message.contains("2026-01-01T00:00:00.000Z"))
        #expect(expired.cases.allSatisfy { $0.answer == .status && $0.reason.hasPrefix("The link has expired") })
        #expect(Self.report(Fixtures.link(expiresAt: Fixtures.now.addingTimeInterval(1))).warnings.isEmpty)
    }

    @Test func plainHTTPDestinationsAndFallbacksAreNamed() throws {
        let link = Self.link(LinkRouting(iosFallbackURL: "http://acme.com/ios", ipadFallbackURL: "https://acme.com/ipad",
                                         androidFallbackURL: "HTTP://acme.com/android", otherPlatformFallbackURL: "http://acme.com/desktop"),
                             destination: "http://acme.com/sale")
        let report = Self.report(link, app: Self.app(fallbackURL: "http://acme.com/app"))
        let insecure = report.warnings.filter { $0.code == "insecure_url" }
        #expect(insecure.map(\.field) == ["destination", "routing.iosFallbackURL", "routing.androidFallbackURL", "routing.otherPlatformFallbackURL", "app.fallbackURL"])
        #expect(insecure[0].message.contains("http://acme.com/sale"))
        #expect(insecure.allSatisfy { $0.severity == "warning" })
        #expect(!Self.report().warnings.contains { $0.code == "insecure_url" })
    }

    @Test func onlyAPairThatIsExactlyDEquals1AsksForTheView() {
        for query in ["d=1", "d=1&x=%3Cscript%3E", "x=1&d=1", "a=b&d=1&c=d", "d=1&", "&d=1", "d=0&d=1"] {
            #expect(LinkDebugReport.isRequested(byQuery: query), "\(query)")
        }
        for query in ["", "d", "d=", "d=0", "d=10", "d=1x", "dd=1", "xd=1", "D=1", "d=%31", "d%3D1", "x=d=1", "d=2&e=1", "q=d=1&", "d=1;x"] {
            #expect(!LinkDebugReport.isRequested(byQuery: query), "\(query)")
        }
    }

    @Test func thePageShowsEveryCaseAndWarningEscaped() throws {
        var link = Self.link(LinkRouting(ipadFallbackURL: "https://acme.com/ipad?a=1&b=\"><script>alert(1)</script>"),
                             destination: "https://acme.com/<script>alert(1)</script>")
        link.params = ["<img src=x onerror=alert(1)>": "'\"`"]
        link.iosURL = "javascript:alert(1)"
        let html = Self.report(link, app: Self.app(android: AndroidSettings())).render()
        #expect(!html.contains("<script"), "no markup of the link's data reaches the page")
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;=&#39;&quot;&#96;"))
        #expect(!html.contains("href=\"javascript:"), "a script URL is never a link")
        #expect(html.contains("<meta name=\"robots\" content=\"noindex, nofollow\">"))
        for visitor in LinkDebugReport.Visitor.allCases {
            #expect(html.contains("<tr id=\"case-\(visitor.rawValue)\"><td>\(HTML.escape(visitor.label))</td>"), "\(visitor)")
        }
        #expect(html.contains("<li class=\"warning\" data-code=\"no_android_package\">"))
        #expect(html.contains("<li class=\"info\" data-code=\"ipad_desktop_user_agent\">"))
        #expect(html.contains("Opens the app") && html.contains("302 redirect") && html.contains("200 page, then on") && html.contains("200 preview page"))
        #expect(html.contains("GET /v1/links/lnk_1/debug"))

        let clean = Self.report().render()
        #expect(clean.contains("<p id=\"ferry-warnings\">None"))
        #expect(clean.contains("The app is handed: deep link <code>acme://sale</code>, params <code>screen=sale</code>"))
        #expect(Self.report(Fixtures.link(disabled: true)).render().contains("<td>404 page</td>"))
    }

    @Test func theAPIFormEncodesEveryKey() throws {
        let data = try FerryJSON.makeEncoder().encode(Self.report(app: Self.app(android: AndroidSettings())).response)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(json.keys) == ["linkID", "url", "status", "cases", "warnings"])
        let cases = try #require(json["cases"] as? [[String: Any]])
        #expect(cases.count == 10)
        for debugCase in cases {
            #expect(Set(debugCase.keys) == ["case", "label", "platform", "device", "appInstalled", "answer", "httpStatus", "url", "reason", "userAgent", "app"])
        }
        #expect(cases[0]["answer"] as? String == "app")
        let opened = try #require(cases[0]["app"] as? [String: Any])
        #expect(Set(opened.keys) == ["appIDs", "deepLink", "params", "iosMinimumVersion", "androidMinimumVersionCode"])
        #expect(cases[5]["app"] is NSNull && cases[5]["httpStatus"] as? Int == 302, "Android with the app but no package: the edge answers")
        let warnings = try #require(json["warnings"] as? [[String: Any]])
        #expect(warnings.map { Set($0.keys) } == [["code", "severity", "message", "field"]])
        let decoded = try FerryJSON.makeDecoder().decode(LinkDebugResponse.self, from: data)
        #expect(decoded == Self.report(app: Self.app(android: AndroidSettings())).response)
    }
}
