import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

@Suite("ClickRouter", .takesTurns)
struct ClickRouterTests {
    let router = ClickRouter()
    static let clickID = "clk_Ab12Cd34"

    func decide(
        _ link: Link = Fixtures.link(), app: App = Fixtures.app(), client: ClientInfo, query: String? = nil,
        now: Date = Fixtures.now
    ) -> ClickDecision {
        router.decide(link: link, app: app, client: client, query: query, clickID: Self.clickID, now: now)
    }

    func preview(_ decision: ClickDecision, sourceLocation: SourceLocation = #_sourceLocation) throws -> PreviewPage {
        guard case .preview(let page) = decision else {
            Issue.record("expected a preview, got \(decision)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return page
    }

    func interstitial(_ decision: ClickDecision, sourceLocation: SourceLocation = #_sourceLocation) throws -> InterstitialPage {
        guard case .interstitial(let page) = decision else {
            Issue.record("expected an interstitial, got \(decision)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return page
    }

    func redirect(_ decision: ClickDecision, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard case .redirect(let url) = decision else {
            Issue.record("expected a redirect, got \(decision)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return url
    }

    /// The query items of a URL, decoded once (as the receiving server reads them).
    func queryItems(_ url: String) throws -> [String: String] {
        let components = try #require(URLComponents(string: url))
        var items: [String: String] = [:]
        for item in components.queryItems ?? [] { items[item.name] = item.value }
        return items
    }

    // MARK: bots

    @Test func botGetsPreviewWithTheLinksOwnSocialFields() throws {
        let link = Fixtures.link(social: SocialMetadata(title: "Summer sale", description: "50% off", imageURL: "https://acme.com/sale.png"))
        let page = try preview(decide(link, client: Fixtures.client(.bot)))
        #expect(page.title == "Summer sale")
        #expect(page.description == "50% off")
        #expect(page.imageURL == "https://acme.com/sale.png")
        #expect(page.shortURL == "https://go.acme.com/summer")
        #expect(page.destination == "https://acme.com/sale?ref=home")
        #expect(page.siteName == "Acme")
    }

    @Test func botPreviewFallsBackToTheAppsDefaults() throws {
        let page = try preview(decide(Fixtures.link(social: SocialMetadata(title: "Only a title")), client: Fixtures.client(.bot)))
        #expect(page.title == "Only a title")
        #expect(page.description == "Acme default description")
        #expect(page.imageURL == "https://acme.com/default.png")
    }

    @Test func botPreviewFallsBackToTheAppName() throws {
        let app = Fixtures.app(social: SocialMetadata())
        let page = try preview(decide(Fixtures.link(), app: app, client: Fixtures.client(.bot)))
        #expect(page.title == "Acme")
        #expect(page.description == nil)
        #expect(page.imageURL == nil)
        #expect(page.siteName == "Acme")
    }

    @Test func botPreviewIgnoresTheClickQuery() throws {
        let page = try preview(decide(client: Fixtures.client(.bot), query: "utm_source=x"))
        #expect(page.destination == "https://acme.com/sale?ref=home")
    }

    // MARK: iOS

    @Test func iOSGetsAnInterstitialToTheAppStore() throws {
        let page = try interstitial(decide(client: Fixtures.client(.iOS)))
        #expect(page.storeURL == "https://apps.apple.com/app/id1234567890")
        #expect(page.isAppStore)
        #expect(page.autoRedirect)
        #expect(page.openInAppURL == "acme://sale")
        #expect(page.webURL == "https://acme.com/sale?ref=home&utm_source=newsletter&utm_medium=email")
        #expect(page.clickID == Self.clickID)
        #expect(page.appName == "Acme")
        #expect(page.title == "Acme default")
        #expect(page.description == "Acme default description")
        #expect(page.imageURL == "https://acme.com/default.png")
        #expect(page.inAppBrowser == nil)
    }

    @Test func iOSInterstitialUsesTheLinksSocialFields() throws {
        let link = Fixtures.link(social: SocialMetadata(title: "T", description: "D", imageURL: "https://acme.com/t.png"))
        let page = try interstitial(decide(link, client: Fixtures.client(.iOS)))
        #expect(page.title == "T")
        #expect(page.description == "D")
        #expect(page.imageURL == "https://acme.com/t.png")
    }

    @Test func iOSWithoutAppStoreIDGoesToTheFallback() throws {
        let app = Fixtures.app(ios: IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.acme.app"], urlScheme: "acme"))
        let page = try interstitial(decide(app: app, client: Fixtures.client(.iOS)))
        #expect(page.storeURL == "https://acme.com/get-the-app")
        #expect(!page.isAppStore)
    }

    @Test func iOSWithoutAppStoreIDOrFallbackGoesToTheDestination() throws {
        let app = Fixtures.app(ios: IOSSettings(), fallbackURL: nil)
        let page = try interstitial(decide(app: app, client: Fixtures.client(.iOS), query: "x=1"))
        #expect(page.storeURL == "https://acme.com/sale?ref=home&utm_source=newsletter&utm_medium=email&x=1")
        #expect(page.storeURL == page.webURL)
        #expect(!page.isAppStore)
    }

    @Test func inAppBrowserThatBlocksUniversalLinksDoesNotAutoRedirect() throws {
        let client = Fixtures.client(.iOS, blocksUniversalLinks: true, inAppBrowser: "instagram")
        let page = try interstitial(decide(client: client))
        #expect(!page.autoRedirect)
        #expect(page.inAppBrowser == "instagram")
        #expect(page.openInAppURL == "acme://sale")
        #expect(page.storeURL == "https://apps.apple.com/app/id1234567890")
    }

    @Test func inAppBrowserThatAllowsUniversalLinksStillAutoRedirects() throws {
        let page = try interstitial(decide(client: Fixtures.client(.iOS, blocksUniversalLinks: false, inAppBrowser: "slack")))
        #expect(page.autoRedirect)
        #expect(page.inAppBrowser == "slack")
    }

    @Test func openInAppFallsBackToTheAppsURLScheme() throws {
        let page = try interstitial(decide(Fixtures.link(iosURL: nil), client: Fixtures.client(.iOS)))
        #expect(page.openInAppURL == "acme://")
    }

    @Test func openInAppIsNilWithoutADeepLinkOrScheme() throws {
        let app = Fixtures.app(ios: IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.acme.app"], appStoreID: "1"))
        let page = try interstitial(decide(Fixtures.link(iosURL: nil), app: app, client: Fixtures.client(.iOS)))
        #expect(page.openInAppURL == nil)
    }

    @Test func openInAppCanBeAnHTTPSLink() throws {
        let page = try interstitial(decide(Fixtures.link(iosURL: "https://acme.com/app/sale"), client: Fixtures.client(.iOS)))
        #expect(page.openInAppURL == "https://acme.com/app/sale")
    }

    // MARK: Android

    @Test func androidGoesToThePlayStoreWithTheClickIDInReferrer() throws {
        let url = try redirect(decide(client: Fixtures.client(.android), query: "ignored=1"))
        #expect(url == "https://play.google.com/store/apps/details?id=com.acme.android&referrer=ferry_click_id%3Dclk_Ab12Cd34%26utm_source%3Dnewsletter%26utm_medium%3Demail")
        let components = try #require(URLComponents(string: url))
        #expect(components.host == "play.google.com")
        #expect(components.path == "/store/apps/details")
        let items = try queryItems(url)
        #expect(items["id"] == "com.acme.android")
        let referrer = QueryString(try #require(items["referrer"]))
        #expect(referrer.value(of: ClickRouter.referrerClickParameter) == Self.clickID)
        #expect(referrer.value(of: "utm_source") == "newsletter")
        #expect(referrer.value(of: "utm_medium") == "email")
        #expect(!referrer.contains("utm_campaign"))
    }

    @Test func playStoreReferrerIsEncodedTwiceSoSpecialCharactersSurvive() throws {
        let link = Fixtures.link(utm: UTMParameters(source: "news letter&x=1", campaign: "été"))
        let url = try redirect(decide(link, client: Fixtures.client(.android)))
        let referrer = QueryString(try #require(try queryItems(url)["referrer"]))
        #expect(referrer.value(of: "utm_source") == "news letter&x=1")
        #expect(referrer.value(of: "utm_campaign") == "été")
        #expect(!referrer.contains("x"), "a value cannot inject a referrer parameter")
        #expect(referrer.value(of: "ferry_click_id") == Self.clickID)
    }

    @Test func playStoreReferrerWithoutUTMCarriesOnlyTheClickID() throws {
        let url = try redirect(decide(Fixtures.link(utm: UTMParameters()), client: Fixtures.client(.android)))
        #expect(try queryItems(url)["referrer"] == "ferry_click_id=clk_Ab12Cd34")
    }

    @Test func androidCustomSchemeLinkBecomesAnIntentURL() throws {
        let link = Fixtures.link(androidURL: "acme://sale/42?x=1")
        let url = try redirect(decide(link, client: Fixtures.client(.android)))
        let play = try redirect(decide(client: Fixtures.client(.android)))
        #expect(url.hasPrefix("intent://sale/42?x=1#Intent;"))
        #expect(url.contains(";scheme=acme;"))
        #expect(url.contains(";package=com.acme.android;"))
        #expect(url.hasSuffix(";end"))
        let fallbackPrefix = "S.browser_fallback_url="
        let fallback = try #require(url.split(separator: ";").first { $0.hasPrefix(fallbackPrefix) })
        #expect(QueryString.decode(fallback.dropFirst(fallbackPrefix.count)) == play)
    }

    @Test func theClicksOwnCampaignParametersReachThePlayStoreReferrer() throws {
        let url = try redirect(decide(client: Fixtures.client(.android), query: "utm_source=sms&utm_term=a%20b&other=1"))
        let referrer = QueryString(try #require(try queryItems(url)["referrer"]))
        #expect(referrer.value(of: "utm_source") == "sms")
        #expect(referrer.value(of: "utm_medium") == "email")
        #expect(referrer.value(of: "utm_term") == "a b")
        #expect(!referrer.contains("other"))
    }

    @Test func anIntentURLDropsTheDeepLinksFragment() throws {
        let url = try redirect(decide(Fixtures.link(androidURL: "acme://sale/42#top"), client: Fixtures.client(.android)))
        #expect(url.hasPrefix("intent://sale/42#Intent;scheme=acme;"))
        #expect(url.components(separatedBy: "#").count == 2)
    }

    @Test func androidSchemeWithoutSlashesBecomesAnIntentURL() throws {
        let url = try redirect(decide(Fixtures.link(androidURL: "acme:open"), client: Fixtures.client(.android)))
        #expect(url.hasPrefix("intent://open#Intent;scheme=acme;package=com.acme.android;"))
    }

    @Test(arguments: ["https://acme.com/app/sale", "HTTPS://acme.com/x", "intent://x#Intent;end"])
    func androidHTTPSOrIntentLinkGoesToThePlayStore(androidURL: String) throws {
        let url = try redirect(decide(Fixtures.link(androidURL: androidURL), client: Fixtures.client(.android)))
        #expect(url.hasPrefix("https://play.google.com/store/apps/details?id=com.acme.android&referrer="))
    }

    @Test func androidWithoutAPackageGoesToTheDestination() throws {
        let app = Fixtures.app(android: AndroidSettings())
        let url = try redirect(decide(Fixtures.link(androidURL: "acme://x"), app: app, client: Fixtures.client(.android), query: "src=qr"))
        #expect(url == "https://acme.com/sale?ref=home&utm_source=newsletter&utm_medium=email&src=qr")
    }

    // MARK: desktop and others

    @Test(arguments: [ClientPlatform.desktop, .other])
    func desktopGoesToTheDestinationWithUTM(platform: ClientPlatform) throws {
        let url = try redirect(decide(client: Fixtures.client(platform)))
        #expect(url == "https://acme.com/sale?ref=home&utm_source=newsletter&utm_medium=email")
    }

    @Test func linkUTMIsAddedOnlyWhereTheDestinationHasNone() throws {
        let link = Fixtures.link(destination: "https://acme.com/p?utm_source=site&a=1")
        let url = try redirect(decide(link, client: Fixtures.client(.desktop)))
        #expect(url == "https://acme.com/p?utm_source=site&a=1&utm_medium=email")
    }

    @Test func clickQueryOverridesTheDestinationAndUTM() throws {
        let url = try redirect(decide(client: Fixtures.client(.desktop), query: "utm_source=twitter&ref=tweet&new=1"))
        #expect(url == "https://acme.com/sale?utm_medium=email&utm_source=twitter&ref=tweet&new=1")
        let items = try queryItems(url)
        #expect(items["utm_source"] == "twitter")
        #expect(items["ref"] == "tweet")
        #expect(items["utm_medium"] == "email")
    }

    /// A "copy to open" link pasted in a browser carries another click's id, and a signed-in person's link their
    /// token: where this click goes never gets either.
    @Test(arguments: ClientPlatform.allCases)
    func aClickIDOrUserTokenInTheClicksOwnQueryIsNotPassedOn(platform: ClientPlatform) throws {
        var app = Fixtures.app()
        app.attribution.copyToOpen = true
        let token = "fu_0123456789abcdef0123456789abcdef"
        let decision = decide(app: app, client: Fixtures.client(platform),
                              query: "ferry_click_id=clk_EEEEEEEEEEEEEEEEEEEEEE&ferry_user=\(token)&utm_source=sms")
        let urls: [String]
        switch decision {
        case .redirect(let url): urls = [url]
        case .interstitial(let page): urls = [page.storeURL, page.webURL, page.copyLink ?? ""]
        case .preview(let page): urls = [page.shortURL, page.destination]
        case .status: urls = []
        }
        #expect(!urls.isEmpty)
        #expect(urls.allSatisfy { !$0.contains("clk_EEEEEEEEEEEEEEEEEEEEEE") && !$0.contains(token) && !$0.contains("ferry_user") }, "\(urls)")
        if case .interstitial(let page) = decision {
            #expect(page.webURL.contains("utm_source=sms"))
            #expect(page.copyLink == "https://go.acme.com/summer?ferry_click_id=\(Self.clickID)")
        }
    }

    @Test func clickQueryIsForwardedByteForByte() throws {
        let url = try redirect(decide(Fixtures.link(utm: UTMParameters()), client: Fixtures.client(.desktop), query: "q=a%20b+c&e=%E2%9C%93&flag"))
        #expect(url == "https://acme.com/sale?ref=home&q=a%20b+c&e=%E2%9C%93&flag")
    }

    @Test func fragmentStaysAtTheEnd() throws {
        let link = Fixtures.link(destination: "https://acme.com/p#top")
        let url = try redirect(decide(link, client: Fixtures.client(.desktop), query: "x=1"))
        #expect(url == "https://acme.com/p?utm_source=newsletter&utm_medium=email&x=1#top")
    }

    @Test func destinationWithoutQueryOrUTMIsUnchanged() throws {
        let link = Fixtures.link(destination: "https://acme.com/", utm: UTMParameters())
        #expect(try redirect(decide(link, client: Fixtures.client(.desktop))) == "https://acme.com/")
        #expect(try redirect(decide(link, client: Fixtures.client(.desktop), query: "")) == "https://acme.com/")
    }

    @Test func longDestinationQueriesSurviveTheRedirect() throws {
        let query = (0..<100).map { "p\($0)=\($0)" }.joined(separator: "&")
        let link = Fixtures.link(destination: "https://acme.com/s?" + query, utm: UTMParameters())
        #expect(try redirect(decide(link, client: Fixtures.client(.desktop))) == "https://acme.com/s?" + query)
    }

    @Test func hostileClickQueriesAreBounded() throws {
        let link = Fixtures.link(destination: "https://acme.com/", utm: UTMParameters())
        let many = (0..<200).map { "k\($0)=v" }.joined(separator: "&")
        let url = try redirect(decide(link, client: Fixtures.client(.desktop), query: many))
        #expect(try queryItems(url).count == QueryString.maxItems)
        let huge = "a=" + String(repeating: "x", count: 10_000)
        #expect(try redirect(decide(link, client: Fixtures.client(.desktop), query: huge)) == "https://acme.com/")
    }

    // MARK: dead links

    @Test(arguments: ClientPlatform.allCases)
    func expiredLinksGet404AndAreNotRecorded(platform: ClientPlatform) {
        let link = Fixtures.link(expiresAt: Fixtures.now.addingTimeInterval(-1))
        let decision = decide(link, client: Fixtures.client(platform))
        #expect(decision == .status(.expired))
        #expect(!decision.records)
        if case .status(let page) = decision { #expect(page.status == 404) }
    }

    @Test(arguments: ClientPlatform.allCases)
    func disabledLinksGet404AndAreNotRecorded(platform: ClientPlatform) {
        let decision = decide(Fixtures.link(disabled: true), client: Fixtures.client(platform))
        #expect(decision == .status(.disabled))
        #expect(!decision.records)
        #expect(StatusPage.disabled.status == 404)
    }

    @Test func expiryIsInclusive() throws {
        let expiry = Fixtures.now
        #expect(decide(Fixtures.link(expiresAt: expiry), client: Fixtures.client(.desktop), now: expiry) == .status(.expired))
        _ = try redirect(decide(Fixtures.link(expiresAt: expiry), client: Fixtures.client(.desktop), now: expiry.addingTimeInterval(-0.001)))
    }

    @Test func disabledWinsOverExpired() {
        let link = Fixtures.link(expiresAt: Fixtures.now.addingTimeInterval(-60), disabled: true)
        #expect(decide(link, client: Fixtures.client(.iOS)) == .status(.disabled))
    }

    @Test(arguments: ClientPlatform.allCases)
    func liveLinksAreRecorded(platform: ClientPlatform) {
        let decision = decide(client: Fixtures.client(platform))
        #expect(decision.records)
        if case .status = decision { Issue.record("a live link must not get a status page") }
    }

    @Test func recordsOnlyNonStatusDecisions() {
        #expect(ClickDecision.redirect("https://acme.com/").records)
        #expect(!ClickDecision.status(.notFound).records)
        #expect(ClickRouter.referrerClickParameter == "ferry_click_id")
    }

    // MARK: Android in-app browsers

    @Test func anAndroidInAppBrowserGetsAnIntentForTheLinksOwnURLWithItsScheme() throws {
        var link = Fixtures.link()
        let facebook = Fixtures.client(.android, inAppBrowser: "facebook")
        let https = try redirect(decide(link, client: facebook))
        #expect(https.hasPrefix("intent://go.acme.com/summer#Intent;scheme=https;package=com.acme.android;S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2F"))
        // A development domain is served on http: the intent says so.
        link.domain = "localhost:8080"
        let local = try redirect(decide(link, client: facebook))
        #expect(local.hasPrefix("intent://localhost:8080/summer#Intent;scheme=http;package=com.acme.android;"))
        // The link's Android fallback stands in for the Play Store.
        link.routing.androidFallbackURL = "https://acme.com/android"
        #expect(try redirect(decide(link, client: facebook)).hasSuffix(";S.browser_fallback_url=https%3A%2F%2Facme.com%2Fandroid;end"))
        // Chrome (no in-app browser) goes to the fallback itself.
        #expect(try redirect(decide(link, client: Fixtures.client(.android))) == "https://acme.com/android")
    }
}
