@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing

/// Rules for query parameters of the app's own, such as `?page=settings` on the root of a domain.
@Suite("DeepLinkRouter: query rules", .takesTurns)
struct RouterQueryRuleTests {
    static func url(_ text: String) -> URL { URL(string: text)! }

    static func router() -> DeepLinkRouter<Void, String> {
        var router = DeepLinkRouter<Void, String>()
        router.on(paths: ["/", "/help"], targets: ["dashboard"]) { _, _ in "path or target" }
        router.on(path: "/:anything") { _, _ in "pattern" }
        router.screens = ["Profile": "screen"]
        router.on(query: "page", value: " Settings ") { _, _ in "settings" }
        router.on(query: "page") { request, _ in request.query["page"] == "declined" ? nil : "any page" }
        router.on(query: "product") { request, _ in request.query["product"].map { "product \($0)" } }
        return router
    }

    @Test func aParameterRoutesBeforePathsAfterTargetsAndScreens() {
        let router = Self.router()
        #expect(router.route(Self.url("https://app.example.com/?page=settings")) == "settings")
        #expect(router.route(Self.url("https://app.example.com/help?page=SETTINGS%20")) == "settings", "before an exact path")
        #expect(router.route(Self.url("https://app.example.com/other?page=x")) == "any page", "before a pattern")
        #expect(router.route(Self.url("https://app.example.com/?page=settings&dl_target=dashboard")) == "path or target", "after a target")
        #expect(router.route(Self.url("https://app.example.com/?page=settings&screenName=profile")) == "screen", "after screens")
        #expect(router.route(Self.url("https://app.example.com/?product=Ab12")) == "product Ab12", "the value as written")
    }

    @Test func aRuleForAnotherValueAnEmptyValueOrAnotherCaseOfTheNameDoesNotMatch() {
        let router = Self.router()
        #expect(router.route(Self.url("https://app.example.com/?page=declined")) == "path or target", "a rule that declines lets the path try")
        #expect(router.route(Self.url("https://app.example.com/?page=")) == "path or target")
        #expect(router.route(Self.url("https://app.example.com/?page")) == "path or target")
        #expect(router.route(Self.url("https://app.example.com/?Page=settings")) == "path or target", "names are case-sensitive")
        #expect(router.route(Self.url("https://app.example.com/other")) == "pattern")
    }

    @Test func aDeepLinksParamsCountAsItsQuery() {
        let link = DeepLink(url: Self.url("https://go.example.com/summer"), iosURL: Self.url("myapp://home"),
                            params: ["page": "settings"], source: .universalLink)
        #expect(Self.router().route(link) == "settings")
    }
}
