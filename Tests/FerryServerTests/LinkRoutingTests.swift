#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Each per-link routing field, for each kind of visitor, over a real socket (through the edge's fast path and the
/// framework alike: the first click of a link is read by the framework, the next ones come from the cache).
@Suite("Per-link routing for each visitor", .takesTurns)
struct LinkRoutingTests {
    /// Creates a link through the API; returns its slug.
    static func create(_ client: some TestClientProtocol, _ fixture: Fixture, slug: String, routing: String, extra: String = "") async throws {
        let created = try await client.execute(
            uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
            body: jsonBody(#"{"slug": "\#(slug)", "destination": "https://example.com/page"\#(extra), "routing": \#(routing)}"#))
        #expect(created.status == .created, "\(created.text)")
    }

    static func get(_ client: some TestClientProtocol, _ path: String, _ agent: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: headers(userAgent: agent))
    }

    @Test func everyFallbackReachesItsVisitors() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            try await Self.create(client, fixture, slug: "fallbacks", routing: #"""
                {"iosFallbackURL": "https://example.com/ios", "ipadFallbackURL": "https://example.com/ipad",
                 "androidFallbackURL": "https://example.com/android", "otherPlatformFallbackURL": "https://example.com/desktop"}
                """#)
            for _ in 0..<2 {  // the framework's answer, then the cache's
                for agent in [UA.iPhoneSafari, UA.iPhoneInstagram, UA.iPhoneFacebook] {
                    let page = try await Self.get(client, "/fallbacks", agent)
                    #expect(page.status == .ok)
                    #expect(interstitialStoreURL(page.text) == "https://example.com/ios", "\(agent)")
                    #expect(!page.text.contains("apps.apple.com"), "an iPhone fallback replaces the App Store")
                }
                let iPad = try await Self.get(client, "/fallbacks", UA.iPadSafari)
                #expect(interstitialStoreURL(iPad.text) == "https://example.com/ipad")
                let android = try await Self.get(client, "/fallbacks", UA.android)
                #expect(android.status == .found)
                #expect(android.headers[.location] == "https://example.com/android")
                for agent in [UA.androidFacebook, UA.androidInstagram] {
                    // In-app browsers do not fire App Links: an intent opens the app, the fallback stands in for the store.
                    let inApp = try await Self.get(client, "/fallbacks", agent)
                    #expect(inApp.headers[.location] == "intent://go.example.com/fallbacks#Intent;scheme=https;package=com.example.android;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fandroid;end", "\(agent)")
                }
                for agent in UA.desktops {
                    let desktop = try await Self.get(client, "/fallbacks", agent)
                    #expect(desktop.headers[.location] == "https://example.com/desktop", "\(agent)")
                }
                for agent in UA.bots {
                    let preview = try await Self.get(client, "/fallbacks", agent)
                    #expect(preview.status == .ok, "\(agent)")
                    #expect(preview.text.contains("og:title"), "\(agent)")
                }
            }
        }
    }

    @Test func theLinksAppStoreIDAndTokensLeadToTheStoreAndPlayKeepsTheClick() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            try await Self.create(client, fixture, slug: "store", routing: #"{"appStoreID": "555000111", "appStoreAnalytics": {"providerToken": "118", "campaignToken": "spring sale", "mediaType": "8"}}"#)
            for agent in [UA.iPhoneSafari, UA.iPadSafari] {
                let page = try await Self.get(client, "/store", agent)
                #expect(interstitialStoreURL(page.text) == "https://apps.apple.com/app/id555000111?ct=spring%20sale&mt=8&pt=118", "\(agent)")
            }
            let inApp = try await Self.get(client, "/store", UA.androidFacebook)
            let location = try #require(inApp.headers[.location])
            #expect(location.hasPrefix("intent://go.example.com/store#Intent;scheme=https;package=com.example.android;S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.example.android%26referrer%3Dferry_click_id%253Dclk_"))
            #expect(location.hasSuffix(";end"))
            let chrome = try await Self.get(client, "/store", UA.android)
            #expect(chrome.headers[.location]?.hasPrefix("https://play.google.com/store/apps/details?id=com.example.android&referrer=ferry_click_id%3Dclk_") == true)
        }
    }

    @Test func skippingThePreviewPageSendsVisitorsStraightOn() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            try await Self.create(client, fixture, slug: "direct", routing: #"{"skipPreviewPage": true}"#, extra: #", "utm": {"source": "mail"}"#)
            for agent in UA.bots {
                let bot = try await Self.get(client, "/direct", agent)
                #expect(bot.status == .found, "\(agent)")
                #expect(bot.headers[.location] == "https://example.com/page?utm_source=mail", "\(agent)")
            }
            let iPhone = try await Self.get(client, "/direct", UA.iPhoneSafari)
            #expect(iPhone.status == .found)
            #expect(iPhone.headers[.location] == "https://apps.apple.com/app/id1234567890")
            // Where Universal Links are blocked the page stays: its "Open in app" is the only way into the app.
            let instagram = try await Self.get(client, "/direct", UA.iPhoneInstagram)
            #expect(instagram.status == .ok)
            #expect(instagram.text.contains("data-click"))
        }
    }

    @Test func theAssociationFileNamesTheIPadAppsOfLinks() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            try await Self.create(client, fixture, slug: "ipad", routing: #"{"ipadBundleID": "com.example.ipad"}"#)
            try await Self.create(client, fixture, slug: "ipad2", routing: #"{"ipadBundleID": "com.example.app"}"#)
            let file = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: headers())
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: file.body)) as? [String: Any])
            let details = try #require(((json["applinks"] as? [String: Any])?["details"] as? [[String: Any]])?.first)
            #expect(details["appIDs"] as? [String] == ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.beta", "ABCDE12345.com.example.ipad"])
        }
    }

    @Test func aLinkWithoutRoutingAnswersAsBefore() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            try await Self.create(client, fixture, slug: "plain", routing: "null")
            #expect(interstitialStoreURL(try await Self.get(client, "/plain", UA.iPhoneSafari).text) == "https://apps.apple.com/app/id1234567890")
            #expect(interstitialStoreURL(try await Self.get(client, "/plain", UA.iPadSafari).text) == "https://apps.apple.com/app/id1234567890")
            #expect(try await Self.get(client, "/plain", UA.desktop).headers[.location] == "https://example.com/page")
            #expect(try await Self.get(client, "/plain", UA.slackBot).status == .ok)
            #expect(try await Self.get(client, "/plain", UA.android).headers[.location]?.hasPrefix("https://play.google.com/") == true)
        }
    }
}
#endif
