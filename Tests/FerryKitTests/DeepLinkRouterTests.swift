import FerryKit
import FerryTestSupport
import Foundation
import Testing

/// The app state the example flows depend on.
private struct AppState: Sendable, CustomTestStringConvertible {
    var isLoggedIn: Bool
    var hasSeenOnboarding: Bool

    static let all = [
        AppState(isLoggedIn: true, hasSeenOnboarding: true), AppState(isLoggedIn: true, hasSeenOnboarding: false),
        AppState(isLoggedIn: false, hasSeenOnboarding: true), AppState(isLoggedIn: false, hasSeenOnboarding: false),
    ]

    var testDescription: String { "loggedIn=\(isLoggedIn) onboardingSeen=\(hasSeenOnboarding)" }
}

private indirect enum Route: Hashable, Sendable {
    case paywall, dashboard, onboarding, settings, notFound
    case product(String)
    case invite(String)
    case login(then: Route)
}

private let marketingPaths = ["/youtube", "/instagram", "/facebook", "/reddit", "/x", "/tiktok", "/email", "/respire-website", "/onboarding"]

/// The app's router, as an app would write it.
private func appRouter() -> DeepLinkRouter<AppState, Route> {
    var router = DeepLinkRouter<AppState, Route>()
    router.on(paths: ["/paywall"], targets: ["paywall"]) { _, state in
        state.isLoggedIn ? .paywall : .login(then: .paywall)
    }
    router.on(paths: ["/"] + marketingPaths, targets: ["dashboard"]) { _, state in
        if state.isLoggedIn { return .dashboard }
        return state.hasSeenOnboarding ? .login(then: .dashboard) : .onboarding
    }
    router.on(target: "onboarding") { _, _ in .onboarding }
    return router
}

private func expectedPaywall(_ state: AppState) -> Route { state.isLoggedIn ? .paywall : .login(then: .paywall) }

private func expectedDashboard(_ state: AppState) -> Route {
    if state.isLoggedIn { return .dashboard }
    return state.hasSeenOnboarding ? .login(then: .dashboard) : .onboarding
}

private func url(_ text: String) -> URL { URL(string: text)! }

@Suite("DeepLinkRequest", .takesTurns)
struct DeepLinkRequestTests {
    @Test func httpPathIsDecodedLowercasedAndTrimmed() {
        let request = DeepLinkRequest(url: url("https://App.Example.com/PayWall/Caf%C3%A9//?utm_source=x&dl_target=%20DashBoard%20"))
        #expect(request.path == "/paywall/café")
        #expect(request.pathSegments == ["paywall", "café"])
        #expect(request.target == "dashboard")
        #expect(request.query["utm_source"] == "x")
        #expect(request.deepLink == nil)
        #expect(request.pathParameters.isEmpty)
    }

    @Test func emptyPathIsSlash() {
        #expect(DeepLinkRequest(url: url("https://app.example.com")).path == "/")
        #expect(DeepLinkRequest(url: url("https://app.example.com/")).pathSegments.isEmpty)
        #expect(DeepLinkRequest(url: url("myapp://")).path == "/")
    }

    @Test func customSchemeHostIsTheFirstSegment() {
        #expect(DeepLinkRequest(url: url("myapp://Product/42/")).path == "/product/42")
        #expect(DeepLinkRequest(url: url("myapp:///product/42")).path == "/product/42")
        // http(s) hosts are not part of the path.
        #expect(DeepLinkRequest(url: url("HTTPS://product.example.com/42")).path == "/42")
    }

    @Test func firstValueOfARepeatedNameWins() {
        let request = DeepLinkRequest(url: url("https://a.example.com/?dl_target=paywall&dl_target=dashboard&flag"))
        #expect(request.target == "paywall")
        #expect(request.query["flag"] == "")
    }

    @Test func emptyTargetAndScreenNameAreNil() {
        let request = DeepLinkRequest(url: url("https://a.example.com/x?dl_target=&screenName="))
        #expect(request.target == nil)
        #expect(request.screenName == nil)
    }

    @Test func encodedSlashStaysInsideItsSegment() {
        let request = DeepLinkRequest(url: url("https://a.example.com/files/a%2Fb"))
        #expect(request.pathSegments == ["files", "a/b"])
    }

    @Test func deepLinkMergesParamsWithTheRoutingURLsQueryOnTop() {
        let link = DeepLink(
            url: url("https://go.example.com/summer?ref=opened"), iosURL: url("myapp://product/42?color=red&dl_target=Paywall"),
            params: ["color": "blue", "size": "m", "screenName": "Settings"], source: .universalLink)
        let request = DeepLinkRequest(deepLink: link)
        #expect(request.url == url("myapp://product/42?color=red&dl_target=Paywall"))
        #expect(request.path == "/product/42")
        #expect(request.query == ["color": "red", "size": "m", "screenName": "Settings", "dl_target": "Paywall"])
        #expect(request.target == "paywall")
        #expect(request.screenName == "Settings")
        #expect(request.deepLink == link)
    }
}

@Suite("DeepLinkRouter", .takesTurns)
struct DeepLinkRouterTests {
    // MARK: The two flows, every state

    @Test(arguments: AppState.all)
    fileprivate func paywallFlowByURL(state: AppState) {
        let router = appRouter()
        for text in ["https://app.example.com/paywall", "https://app.example.com/?dl_target=paywall", "myapp://paywall",
                     "https://app.example.com/PayWall", "https://app.example.com/paywall/"] {
            #expect(router.route(url(text), state: state) == expectedPaywall(state), "\(text)")
        }
    }

    @Test(arguments: AppState.all)
    fileprivate func dashboardFlowByURL(state: AppState) {
        let router = appRouter()
        var texts = ["https://app.example.com/", "https://app.example.com", "https://app.example.com/?dl_target=dashboard",
                     "https://app.example.com/?dl_target=dashboard&utm_source=facebook", "https://app.example.com/YouTube?utm_source=x"]
        texts += marketingPaths.map { "https://app.example.com" + $0 }
        for text in texts {
            #expect(router.route(url(text), state: state) == expectedDashboard(state), "\(text)")
        }
    }

    @Test(arguments: AppState.all)
    fileprivate func onboardingTargetAlwaysOnboards(state: AppState) {
        let router = appRouter()
        #expect(router.route(url("https://app.example.com/?dl_target=onboarding"), state: state) == .onboarding)
        #expect(router.route(url("https://app.example.com/paywall?dl_target=ONBOARDING"), state: state) == .onboarding)
    }

    @Test(arguments: AppState.all)
    fileprivate func flowsByDeepLink(state: AppState) {
        let router = appRouter()
        let paywall = DeepLink(url: url("https://go.example.com/pw"), iosURL: url("myapp://paywall"), source: .universalLink)
        #expect(router.route(paywall, state: state) == expectedPaywall(state))

        let byTarget = DeepLink(url: url("https://go.example.com/fb"), destination: url("https://example.com/landing"),
                                params: ["dl_target": "Dashboard"], source: .deferred)
        #expect(router.route(byTarget, state: state) == expectedDashboard(state))

        let custom = DeepLink(url: url("myapp://TikTok?utm_source=tiktok"), iosURL: url("myapp://TikTok?utm_source=tiktok"), source: .customScheme)
        #expect(router.route(custom, state: state) == expectedDashboard(state))

        let onboarding = DeepLink(url: url("https://go.example.com/ob"), iosURL: url("myapp://paywall"),
                                  params: ["dl_target": "onboarding"], source: .universalLink)
        #expect(router.route(onboarding, state: state) == .onboarding)
    }

    @Test func deepLinkWithoutIOSURLRoutesOnItsDestination() {
        let router = appRouter()
        let link = DeepLink(url: url("https://go.example.com/summer"), destination: url("https://example.com/Paywall"), source: .universalLink)
        #expect(router.route(link, state: AppState(isLoggedIn: true, hasSeenOnboarding: true)) == .paywall)
        // Without destination either, the opened URL's path (the slug) is routed on: no rule for /summer.
        let bare = DeepLink(url: url("https://go.example.com/summer"), source: .universalLink)
        #expect(router.route(bare, state: AppState(isLoggedIn: true, hasSeenOnboarding: true)) == nil)
    }

    @Test func targetWinsOverThePath() {
        let router = appRouter()
        let loggedIn = AppState(isLoggedIn: true, hasSeenOnboarding: true)
        #expect(router.route(url("https://app.example.com/paywall?dl_target=dashboard"), state: loggedIn) == .dashboard)
        #expect(router.route(url("https://app.example.com/youtube?dl_target=paywall"), state: loggedIn) == .paywall)
    }

    @Test func unknownTargetFallsBackToThePath() {
        let router = appRouter()
        let loggedIn = AppState(isLoggedIn: true, hasSeenOnboarding: true)
        #expect(router.route(url("https://app.example.com/paywall?dl_target=nowhere"), state: loggedIn) == .paywall)
    }

    // MARK: Patterns

    @Test func customSchemeCaptureKeepsTheValuesCase() {
        var router = DeepLinkRouter<Void, Route>()
        router.on(path: "/Product/:id") { request, _ in request.pathParameters["id"].map(Route.product) }
        #expect(router.route(url("myapp://product/42")) == .product("42"))
        #expect(router.route(url("myapp://PRODUCT/AbC9")) == .product("AbC9"))
        #expect(router.route(url("https://shop.example.com/product/7/")) == .product("7"))
        #expect(router.route(url("myapp://product")) == nil)
        #expect(router.route(url("myapp://product/42/reviews")) == nil)
    }

    @Test func captureNamesKeepTheirCase() {
        var router = DeepLinkRouter<Void, String>()
        router.on(path: "/u/:userID/post/:postID") { request, _ in
            "\(request.pathParameters["userID"] ?? "-") \(request.pathParameters["postID"] ?? "-")"
        }
        #expect(router.route(url("https://a.example.com/U/ann/Post/9")) == "ann 9")
    }

    @Test func trailingWildcardMatchesTheRestIncludingNothing() {
        var router = DeepLinkRouter<Void, Route>()
        router.on(path: "/invite/*") { request, _ in .invite(request.pathParameters["*"] ?? "?") }
        #expect(router.route(url("https://a.example.com/invite/Code1")) == .invite("Code1"))
        #expect(router.route(url("https://a.example.com/invite/a/B/c/")) == .invite("a/B/c"))
        #expect(router.route(url("https://a.example.com/invite")) == .invite(""))
        #expect(router.route(url("https://a.example.com/invites/x")) == nil)
        #expect(router.route(url("https://a.example.com/")) == nil)
    }

    @Test func innerWildcardMatchesOneSegment() {
        var router = DeepLinkRouter<Void, String>()
        router.on(path: "/*/settings") { _, _ in "settings" }
        #expect(router.route(url("https://a.example.com/en/settings")) == "settings")
        #expect(router.route(url("https://a.example.com/settings")) == nil)
        #expect(router.route(url("https://a.example.com/en/gb/settings")) == nil)
    }

    @Test func patternsAreTriedInRegistrationOrder() {
        var router = DeepLinkRouter<Void, String>()
        router.on(path: "/item/:id") { _, _ in "first" }
        router.on(path: "/item/*") { _, _ in "second" }
        #expect(router.route(url("https://a.example.com/item/1")) == "first")
        #expect(router.route(url("https://a.example.com/item/1/2")) == "second")
    }

    @Test func trailingSlashOnThePatternIsIgnored() {
        var router = DeepLinkRouter<Void, String>()
        router.on(path: "Settings/") { _, _ in "settings" }
        #expect(router.route(url("https://a.example.com/settings")) == "settings")
        #expect(router.route(url("https://a.example.com/SETTINGS/")) == "settings")
    }

    // MARK: screenName

    @Test func screenNameMapsThroughTheRouteTableCaseInsensitively() {
        var router = appRouter()
        router.screens = ["Settings": .settings, "Product": .product("featured")]
        let state = AppState(isLoggedIn: true, hasSeenOnboarding: true)
        #expect(router.route(url("https://app.example.com/?screenName=settings"), state: state) == .settings)
        #expect(router.route(url("https://app.example.com/paywall?screenName=PRODUCT"), state: state) == .product("featured"))
        let link = DeepLink(url: url("https://go.example.com/s"), params: ["screenName": "Settings"], source: .universalLink)
        #expect(router.route(link, state: state) == .settings)
    }

    @Test func exactCaseScreenKeyWins() {
        var router = DeepLinkRouter<Void, String>()
        router.screens = ["home": "lower", "Home": "exact", "HOME": "upper"]
        #expect(router.route(url("myapp://x?screenName=Home")) == "exact")
        #expect(router.route(url("myapp://x?screenName=hOmE")) == "upper")  // sorted keys: "HOME" < "Home" < "home"
    }

    @Test func unknownScreenNameFallsThroughToThePath() {
        var router = appRouter()
        router.screens = ["Settings": .settings]
        let state = AppState(isLoggedIn: true, hasSeenOnboarding: true)
        #expect(router.route(url("https://app.example.com/paywall?screenName=Nope"), state: state) == .paywall)
    }

    // MARK: Precedence and fallback

    @Test func precedenceIsTargetThenScreenThenExactThenPatternThenFallback() {
        var router = DeepLinkRouter<Void, String>()
        router.otherwise { _, _ in "fallback" }
        router.on(path: "/a/*") { _, _ in "pattern" }
        router.on(path: "/a/b") { _, _ in "exact" }
        router.screens = ["s": "screen"]
        router.on(target: "t") { _, _ in "target" }

        #expect(router.route(url("https://x.example.com/a/b?dl_target=t&screenName=s")) == "target")
        #expect(router.route(url("https://x.example.com/a/b?screenName=s")) == "screen")
        #expect(router.route(url("https://x.example.com/a/b")) == "exact")
        #expect(router.route(url("https://x.example.com/a/c")) == "pattern")
        #expect(router.route(url("https://x.example.com/z")) == "fallback")
    }

    @Test func ruleReturningNilPassesToTheNextCandidate() {
        var router = DeepLinkRouter<Bool, String>()
        router.on(target: "promo") { _, enabled in enabled ? "promo" : nil }
        router.on(path: "/product/:id") { request, _ in request.pathParameters["id"] == "known" ? "product" : nil }
        router.on(path: "/product/*") { _, _ in "catalogue" }
        router.on(path: "/home") { _, _ in nil }
        router.on(path: "/home") { _, _ in "home" }
        router.otherwise { _, _ in "fallback" }

        #expect(router.route(url("https://x.example.com/home?dl_target=promo"), state: true) == "promo")
        #expect(router.route(url("https://x.example.com/home?dl_target=promo"), state: false) == "home")
        #expect(router.route(url("https://x.example.com/product/known"), state: true) == "product")
        #expect(router.route(url("https://x.example.com/product/other"), state: true) == "catalogue")
        #expect(router.route(url("https://x.example.com/?dl_target=promo"), state: false) == "fallback")
    }

    @Test func fallbackSeesTheRequestAndEmptyRouterGivesNil() {
        var router = DeepLinkRouter<Void, String>()
        #expect(router.route(url("https://x.example.com/anything")) == nil)
        router.otherwise { request, _ in "unknown \(request.path)" }
        #expect(router.route(url("https://x.example.com/Any/Thing")) == "unknown /any/thing")
        router.otherwise { _, _ in "replaced" }
        #expect(router.route(url("https://x.example.com/")) == "replaced")
    }

    @Test func exactRulesDoNotSeeCapturesOfAnEarlierRequest() {
        var router = DeepLinkRouter<Void, [String: String]>()
        router.on(path: "/p") { request, _ in request.pathParameters }
        var request = DeepLinkRequest(url: url("https://x.example.com/p"))
        request.pathParameters = ["stale": "1"]
        #expect(router.route(request, state: ()) == [:])
    }

    @Test func routerIsSendable() async {
        let router = appRouter()
        let route = await Task.detached { router.route(url("https://a.example.com/paywall"), state: AppState(isLoggedIn: true, hasSeenOnboarding: true)) }.value
        #expect(route == .paywall)
    }

    // MARK: Hostile input

    @Test func hostileInputNeverCrashes() {
        var router = appRouter()
        router.on(path: "/product/:id") { request, _ in request.pathParameters["id"].map(Route.product) }
        router.on(path: "/invite/*") { request, _ in .invite(request.pathParameters["*"] ?? "") }
        router.screens = ["Settings": .settings]
        router.otherwise { _, _ in .notFound }
        let state = AppState(isLoggedIn: false, hasSeenOnboarding: false)

        let long = String(repeating: "a/", count: 50_000)
        let texts = [
            "%", "%%", "https://a.example.com/%", "https://a.example.com/%zz/%E2%82", "https://a.example.com/product/%E2%82",
            "myapp:", "myapp://", "myapp:product", "mailto:someone@example.com", "about:blank", "/", "?dl_target=",
            "https://a.example.com/?dl_target=%00&screenName=%FF", "https://a.example.com//////", "https://a.example.com/%2F%2F",
            "https://a.example.com/" + long, "myapp://invite/" + long, "https://a.example.com/👩‍👩‍👧/İstanbul/ΣΊΣΥΦΟΣ",
            "https://a.example.com/?dl_target=" + String(repeating: "x", count: 100_000), "https://a.example.com/product/%00",
        ]
        for text in texts {
            guard let u = URL(string: text) else { continue }
            _ = DeepLinkRequest(url: u)
            #expect(router.route(u, state: state) != nil, "\(text)")
        }
        #expect(router.route(url("https://a.example.com/%"), state: state) == .notFound)
        #expect(router.route(url("https://a.example.com/product/%E2%82"), state: state) == .product("%E2%82"))
        #expect(router.route(url("myapp://invite/" + long), state: state) == .invite(String(long.dropLast())))
        #expect(router.route(url("https://a.example.com/%F0%9F%91%8B"), state: state) == .notFound)
        #expect(DeepLinkRequest(url: url("https://a.example.com/İstanbul")).path == "/" + "İstanbul".lowercased())
    }

    @Test func hostilePatternsNeverCrash() {
        var router = DeepLinkRouter<Void, String>()
        for pattern in ["", "/", "//", "*", ":", "/:/", "%", "/%E2%82", "/*/*/*", String(repeating: "/:x", count: 10_000)] {
            router.on(path: pattern) { _, _ in pattern }
        }
        router.on(target: "   ") { _, _ in "blank target never matches" }
        #expect(router.route(url("https://a.example.com/")) == "")  // "" is the first pattern for "/"
        #expect(router.route(url("https://a.example.com/%E2%82")) == "/%E2%82")
        #expect(router.route(url("https://a.example.com/a/b")) == "*")  // the lone "*" matches every path and was registered first
        #expect(router.route(url("https://a.example.com/?dl_target=%20")) == "")
    }
}
