import FerryAPI
@testable import FerryCore
import FerryTestSupport
import Foundation
import Testing

@Suite("Compatibility rules", .takesTurns)
struct CompatibilityRulesTests {
    @Test(arguments: [
        ("abc123://test", "https://abc123.host/link/test?campaign=summer&source=email", "abc123://test?campaign=summer&source=email"),
        ("abc123://test", "https://abc123.host/link/test", "abc123://test"),
        ("abc123://test", nil, "abc123://test"),
        ("myapp://p?id=1", "https://h/link/p?x=%20y", "myapp://p?id=1&x=%20y"),
        ("myapp://p?", "https://h/p?x=1", "myapp://p?x=1"),
        ("myapp://p#top", "https://h/p?x=1#frag", "myapp://p?x=1#top"),
        ("myapp://p", "https://h/p?", "myapp://p"),
    ] as [(String, String?, String)])
    func theOpenedQueryIsCarriedToTheAppURL(app: String, opened: String?, expected: String) {
        #expect(CompatibilityRules.appURI(app, carryingQueryOf: opened) == expected)
    }

    @Test(arguments: [
        ("full_request_url=https%3A%2F%2Fa.h%2Flink%2Ftest%3Fcampaign%3Dsummer%26source%3Demail", "https://a.h/link/test?campaign=summer&source=email"),
        ("full_request_url=https%3A%2F%2Fa.h%2Flink%2Ftest%3Fc%3D1&event_type=setup", "https://a.h/link/test?c=1"),
        ("full_request_url=https://a.h/link/test?campaign=summer&source=email", "https://a.h/link/test?campaign=summer&source=email"),
        ("full_request_url=https://a.h/link/test?campaign=summer&source=email&event_type=setup", "https://a.h/link/test?campaign=summer&source=email"),
        ("event_type=setup&full_request_url=https://a.h/t", "https://a.h/t"),
        // As URLQueryItem writes it: `:`, `/` and `?` left alone, `=`, `&` and `%` encoded.
        ("full_request_url=https://a.h/link/test?campaign%3Dsummer%26source%3Demail&event_type=setup", "https://a.h/link/test?campaign=summer&source=email"),
        ("full_request_url=https://a.h/link/test?q%3Da%2520b", "https://a.h/link/test?q=a%20b"),
        ("xfull_request_url=https://a.h/t", nil),
        ("full_request_url=", nil),
    ] as [(String, String?)])
    func fullRequestURLIsReadEncodedOrNot(query: String, expected: String?) {
        #expect(CompatibilityRules.fullRequestURL(inRawQuery: query) == expected)
    }

    @Test func theShortUserAgentAndScreenBecomeSignals() throws {
        let signals = try CompatibilityRules.deviceSignals(width: "414", height: "896", userAgent: "iOS 18_7", acceptLanguage: "fr-FR, en;q=0.5")
        #expect(signals == DeviceSignals(platform: "ios", osVersion: "18.7", screenWidth: 414, screenHeight: 896, languages: ["fr-FR", "en"]))
        let browser = try CompatibilityRules.deviceSignals(
            width: nil, height: nil, userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
            acceptLanguage: nil)
        #expect(browser.platform == "ios" && browser.osVersion == "17.5" && browser.languages == nil)
        #expect(try CompatibilityRules.deviceSignals(width: nil, height: nil, userAgent: "Android 14", acceptLanguage: nil).platform == "android")
        for (width, height, agent, field) in [("0", "1", nil, "width"), ("1", "x", nil, "height"), ("1e3", "1", nil, "width"),
                                              (nil, nil, "iOS 18_7\n", "user_agent"), (nil, nil, String(repeating: "a", count: 600), "user_agent")] as [(String?, String?, String?, String)] {
            #expect { try CompatibilityRules.deviceSignals(width: width, height: height, userAgent: agent, acceptLanguage: nil) } throws: {
                ($0 as? ValidationError)?.field == field
            }
        }
    }

    @Test(arguments: [
        ("ExampleApp/3.2 CFNetwork/1568.200.51 Darwin/24.1.0", "ios", "18.1"),
        ("ExampleApp/1 CFNetwork/1410.0.3 Darwin/22.4.0", "ios", "16.4"),
        ("ExampleApp/1 CFNetwork/3826.400.120 Darwin/25.0.0", "ios", "26.0"),
        ("Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP2A.240805.005)", "android", "14"),
        ("okhttp/4.12.0", "android", nil),
        ("curl/8.5.0", nil, nil),
    ] as [(String, String?, String?)])
    func anAppsOwnClientTellsItsSystem(agent: String, platform: String?, version: String?) {
        let signals = CompatibilityRules.appClientSignals(userAgent: agent, acceptLanguage: "en-GB")
        #expect(signals.platform == platform)
        #expect(signals.osVersion == version)
        #expect(signals.languages == ["en-GB"])
    }

    @Test func referralPayloadsAreBounded() throws {
        try CompatibilityRules.checkReferral(referrerIdentifier: "user_9821", campaign: "summer", customPayload: ["a": "1", "b": "2", "c": "3"])
        try CompatibilityRules.checkReferral(referrerIdentifier: "u", campaign: nil, customPayload: nil)
        let cases: [(String?, [String: String]?, String)] = [
            (nil, nil, "referrerIdentifier"), ("", nil, "referrerIdentifier"),
            ("u", ["a": "1", "b": "2", "c": "3", "d": "4"], "customPayload"), ("u", ["": "x"], "customPayload"),
            ("u", ["k": String(repeating: "v", count: 300)], "customPayload.k"), ("u\u{0}", nil, "referrerIdentifier"),
        ]
        for (referrer, payload, field) in cases {
            #expect { try CompatibilityRules.checkReferral(referrerIdentifier: referrer, campaign: nil, customPayload: payload) } throws: {
                ($0 as? ValidationError)?.field == field
            }
        }
    }

    @Test func subdomainsBelongToTheirAppsDomain() {
        let app = App(id: "app_1", name: "A", domains: ["go.example.com", "example.com", "localhost:8080"], createdAt: Date())
        #expect(app.linkDomain(forHost: "abc.go.example.com") == "go.example.com")
        #expect(app.linkDomain(forHost: "abc.example.com") == "example.com")
        #expect(app.linkDomain(forHost: "go.example.com") == "go.example.com")
        #expect(app.linkDomain(forHost: "evilexample.com") == nil)
        #expect(app.linkDomain(forHost: "localhost:8080") == "localhost:8080")
        #expect(App.parentDomains(of: "a.b.go.example.com") == ["b.go.example.com", "go.example.com", "example.com", "com"])
        #expect(App.parentDomains(of: "a.b.c.d.e.f.example.com").count == 4)
        #expect(App.parentDomains(of: "abc123.localhost:8080") == ["localhost"])
        #expect(App.parentDomains(of: "localhost").isEmpty)
        #expect(App.parentDomains(of: "10.0.0.1").isEmpty)
        #expect(App.parentDomains(of: "[::1]:8080").isEmpty)
    }
}
