#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// An iPhone 15 in New York, as the SDK describes it.
let iPhoneSignals = DeviceSignals(
    platform: "ios", osVersion: "18.1", model: "iPhone16,1", screenWidth: 393, screenHeight: 852, screenScale: 3,
    timeZone: "America/New_York", timeZoneOffsetSeconds: -18000, languages: ["en-US"])

/// The same device, as the interstitial's script reports it.
let iPhoneBrowserReport = #"{"platform": "iPhone", "screenWidth": 393, "screenHeight": 852, "screenScale": 3, "timeZone": "America/New_York", "timeZoneOffsetSeconds": -18000, "languages": ["en-US", "en"]}"#

@Suite("Deferred deep links and attribution over HTTP", .takesTurns)
struct AttributionAPITests {
    func match(_ client: some TestClientProtocol, key: String, installID: String, address: String, signals: DeviceSignals = iPhoneSignals,
               token: String? = nil, referrer: String? = nil) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/attribution/match", method: .post, headers: headers(key: key, json: true, extra: [(.forwardedFor, address)]),
            body: jsonBody(MatchRequest(installID: installID, signals: signals, clickToken: token, referrer: referrer)))
    }

    @Test func aPasteboardTokenMatchesDeterministicallyOnceAndTheAnswerRepeats() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo", iosURL: "example://promo",
                                                                        params: ["coupon": "SPRING"], campaign: "spring"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let clickID = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10")
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            // From another network entirely: the token alone decides.
            let first = try await match(client, key: fixture.publishable, installID: "IDFV-1", address: "198.51.100.99", token: "ferry:\(clickID)")
            #expect(first.status == .ok)
            let answer = try first.decode(MatchResponse.self)
            #expect(answer.matched)
            #expect(answer.matchType == .deterministic)
            #expect(answer.confidence == 1)
            #expect(answer.isDeferred == true)
            #expect(answer.link == link.data)
            #expect(answer.link?.params == ["coupon": "SPRING"])
            // The same install asking again gets the same answer.
            let again = try await match(client, key: fixture.publishable, installID: "IDFV-1", address: "192.0.2.1", signals: DeviceSignals())
            #expect(try again.decode(MatchResponse.self) == answer)
            // A replay of the consumed token by another install gets nothing of it.
            let replay = try await match(client, key: fixture.publishable, installID: "IDFV-2", address: "192.0.2.200",
                                         signals: DeviceSignals(platform: "ios", screenWidth: 430, screenHeight: 932, screenScale: 3, timeZone: "Asia/Tokyo"),
                                         token: "ferry:\(clickID)")
            #expect(try replay.decode(MatchResponse.self) == .notMatched)
            // The other app cannot use this app's token.
            let otherPublishable = try await fixture.admin.createKey(appID: fixture.otherApp.id, kind: .publishable, environment: .live).key
            let foreign = try await match(client, key: otherPublishable, installID: "IDFV-9", address: "203.0.113.10", token: clickID)
            #expect(try foreign.decode(MatchResponse.self) == .notMatched)
        }
    }

    @Test func thePlayStoreReferrerMatchesDeterministically() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "droid", destination: "https://example.com/"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let click = try await client.execute(uri: "/droid", method: .get, headers: headers(userAgent: UA.android, extra: [(.forwardedFor, "203.0.113.20")]))
            let location = try #require(click.headers[.location])
            let referrer = QueryString.decode(Substring(try #require(location.components(separatedBy: "referrer=").last)))
            let clickID = try #require(AttributionRules.clickID(fromReferrer: referrer))
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            let response = try await match(client, key: fixture.publishable, installID: "android-1", address: "198.51.100.1",
                                           signals: DeviceSignals(platform: "android", osVersion: "14"), referrer: referrer)
            let answer = try response.decode(MatchResponse.self)
            #expect(answer.matchType == .deterministic)
            #expect(answer.link?.slug == "droid")
        }
    }

    @Test func theSameDeviceOnTheSameNetworkMatchesProbabilistically() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "deferred", destination: "https://example.com/d", iosURL: "example://d"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let clickID = try await clickOnIPhone(client, slug: "deferred", address: "203.0.113.30")
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            // An organic install elsewhere, with another phone, is not matched.
            let organic = try await match(client, key: fixture.publishable, installID: "organic", address: "198.51.100.50",
                                          signals: DeviceSignals(platform: "ios", osVersion: "17.5", model: "iPhone14,2", screenWidth: 390, screenHeight: 844,
                                                                 screenScale: 3, timeZone: "Europe/Berlin", timeZoneOffsetSeconds: 3600, languages: ["de-DE"]))
            #expect(try organic.decode(MatchResponse.self) == .notMatched)
            // The phone that clicked, after installing, from the same Wi-Fi.
            let response = try await match(client, key: fixture.publishable, installID: "IDFV-clicker", address: "203.0.113.30")
            let answer = try response.decode(MatchResponse.self)
            #expect(answer.matched)
            #expect(answer.matchType == .probabilistic)
            #expect((answer.confidence ?? 0) >= 0.75)
            #expect((answer.confidence ?? 2) <= 1)
            #expect(answer.link?.iosURL == "example://d")
            // The click is consumed: a second install with the same signals on the same network gets nothing.
            let second = try await match(client, key: fixture.publishable, installID: "IDFV-twin", address: "203.0.113.30")
            #expect(try second.decode(MatchResponse.self) == .notMatched)
            // Test keys never see live clicks.
            let testKey = try await fixture.admin.createKey(appID: fixture.app.id, kind: .publishable, environment: .test).key
            let test = try await match(client, key: testKey, installID: "IDFV-test", address: "203.0.113.30")
            #expect(try test.decode(MatchResponse.self) == .notMatched)
        }
    }

    /// A time zone is read by its shape, not looked up in this server's database: a device may know a newer zone.
    @Test func aTimeZoneIsReadByItsShape() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            for zone in ["America/Ciudad_Juarez", "Etc/GMT+5", "GMT+05:30", "Mars/Olympus_Mons"] {
                let body = #"{"installID": "zone-\#(zone)", "signals": {"timeZone": "\#(zone)"}}"#
                let response = try await client.execute(uri: "/v1/attribution/match", method: .post, headers: headers(key: fixture.publishable, json: true), body: jsonBody(body))
                #expect(response.status == .ok, "\(zone): \(response.text)")
            }
        }
    }

    @Test func absurdSignalsAreRefusedByName() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let huge = String(repeating: "x", count: 10 * 1024 * 1024)
        try await fixture.application().test(.router) { client in
            let cases: [(String, HTTPResponse.Status, String?)] = [
                (#"{"installID": "a", "signals": {"screenWidth": -1}}"#, .badRequest, "signals.screenWidth"),
                (#"{"installID": "a", "signals": {"screenScale": 0}}"#, .badRequest, "signals.screenScale"),
                (#"{"installID": "a", "signals": {"timeZone": "Central European Time"}}"#, .badRequest, "signals.timeZone"),
                (#"{"installID": "a", "signals": {"timeZone": "../etc/localtime"}}"#, .badRequest, "signals.timeZone"),
                (#"{"installID": "a", "signals": {"timeZoneOffsetSeconds": 999999}}"#, .badRequest, "signals.timeZoneOffsetSeconds"),
                (#"{"installID": "a", "signals": {"languages": ["en US"]}}"#, .badRequest, "signals.languages"),
                (#"{"installID": "a", "signals": {"osVersion": "eighteen"}}"#, .badRequest, "signals.osVersion"),
                (#"{"installID": "", "signals": {}}"#, .badRequest, "installID"),
                (#"{"signals": {}}"#, .badRequest, "installID"),
                (#"{"installID": "a"}"#, .badRequest, "signals"),
                (#"{"installID": "a", "signals": {"screenWidth": "wide"}}"#, .badRequest, "signals.screenWidth"),
                (#"{"installID": "a", "signals": {"model": "\#(huge)"}}"#, .contentTooLarge, nil),
            ]
            for (body, status, field) in cases {
                let response = try await client.execute(uri: "/v1/attribution/match", method: .post, headers: headers(key: fixture.publishable, json: true), body: jsonBody(body))
                #expect(response.status == status, "\(body.prefix(80))")
                #expect(response.error?.field == field, "\(response.text.prefix(200))")
            }
            // A token or referrer of the wrong shape is simply no token.
            let odd = try await match(client, key: fixture.publishable, installID: "odd", address: "192.0.2.9", signals: DeviceSignals(), token: "clk_../../etc", referrer: "%%%")
            #expect(try odd.decode(MatchResponse.self) == .notMatched)
        }
    }

    @Test func aUserIsBoundOnceAndAlwaysGetsTheSameAnswer() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "invite", destination: "https://example.com/i", referrer: "user-1"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let clickID = try await clickOnIPhone(client, slug: "invite", address: "203.0.113.40")
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            _ = try await match(client, key: fixture.publishable, installID: "IDFV-user", address: "198.51.100.2", token: clickID)
            func bind(_ installID: String, _ userID: String) async throws -> AttributeUserResponse {
                let response = try await client.execute(uri: "/v1/attribution/user", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                        body: jsonBody(AttributeUserRequest(installID: installID, userID: userID)))
                #expect(response.status == .ok)
                return try response.decode(AttributeUserResponse.self)
            }
            let first = try await bind("IDFV-user", "alice")
            #expect(first.attributed && first.boundToThisInstall)
            #expect(first.link?.referrer == "user-1")
            #expect(first.matchType == .deterministic)
            #expect(try await bind("IDFV-user", "alice") == first)
            // The same user from another install stays bound to the first, and that install is told nothing of it.
            #expect(try await bind("IDFV-other", "alice") == AttributeUserResponse(userID: "alice", attributed: false, boundToThisInstall: false))
            // An organic install's user is bound as not attributed, and stays so.
            let bob = try await bind("IDFV-organic", "bob")
            #expect(!bob.attributed && bob.boundToThisInstall)
            #expect(try await bind("IDFV-organic", "bob") == bob)
            #expect(try await bind("IDFV-user", "bob") == AttributeUserResponse(userID: "bob", attributed: false, boundToThisInstall: false))
            let bad = try await client.execute(uri: "/v1/attribution/user", method: .post, headers: headers(key: fixture.publishable, json: true),
                                               body: jsonBody(#"{"installID": "x", "userID": "\#(String(repeating: "u", count: 129))"}"#))
            #expect(bad.status == .badRequest)
            #expect(bad.error?.field == "userID")
        }
    }

    @Test func validateEventsAndResolve() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "open", destination: "https://example.com/o", iosURL: "example://o"), app: fixture.app, environment: .live)
        let otherLink = try await fixture.admin.createLink(CreateLinkRequest(slug: "theirs", destination: "https://other.test/"), app: fixture.otherApp, environment: .live)
        try await fixture.application().test(.router) { client in
            let valid = try await client.execute(uri: "/v1/sdk/validate", method: .post, headers: headers(key: fixture.publishable))
            let settings = try valid.decode(SDKValidateResponse.self)
            #expect(settings.valid)
            #expect(settings.domains == ["go.example.com", "links.example.com"])
            #expect(settings.environment == .live)
            #expect(settings.urlScheme == "example")
            #expect(settings.attributionWindowSeconds == 86400)
            #expect(try await client.execute(uri: "/v1/sdk/validate", method: .post, headers: headers(key: fixture.secret)).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/sdk/validate", method: .post, headers: headers()).status == .unauthorized)

            let resolved = try await client.execute(uri: "/v1/links/resolve/OPEN?domain=go.example.com&installID=IDFV-5", method: .get, headers: headers(key: fixture.publishable))
            #expect(resolved.status == .ok)
            #expect(try resolved.decode(ResolveResponse.self) == ResolveResponse(link: link.data))
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "link_open") == 1)
            #expect(try await client.execute(uri: "/v1/links/resolve/theirs", method: .get, headers: headers(key: fixture.publishable)).status == .notFound)
            for domain in ["other.test", "", "not%20a%20host"] {
                let foreign = try await client.execute(uri: "/v1/links/resolve/open?domain=\(domain)", method: .get, headers: headers(key: fixture.publishable))
                #expect(foreign.status == .notFound, "\(domain)")
                #expect(foreign.error?.field == "domain", "\(domain)")
            }

            let events = EventsRequest(events: [
                SDKEvent(name: "install", installID: "IDFV-5"),
                SDKEvent(name: "open", installID: "IDFV-5", linkID: link.id),
                SDKEvent(name: "purchase.completed", installID: "IDFV-5", properties: ["plan": "yearly"]),
            ])
            let accepted = try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: fixture.publishable, json: true), body: jsonBody(events))
            #expect(try accepted.decode(EventsResponse.self).accepted == 3)
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "purchase.completed") == 1)
            let refusals: [(EventsRequest, String)] = [
                (EventsRequest(events: []), "events"),
                (EventsRequest(events: Array(repeating: SDKEvent(name: "open", installID: "i"), count: 101)), "events"),
                (EventsRequest(events: [SDKEvent(name: "Bad Name", installID: "i")]), "events[0].name"),
            ]
            for (request, field) in refusals {
                let response = try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: fixture.publishable, json: true), body: jsonBody(request))
                #expect(response.status == .badRequest, "\(field)")
                #expect(response.error?.field == field)
            }
            // A well-formed link id of another app names no link this key has: 404, as reading that link would be.
            let foreign = try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                   body: jsonBody(EventsRequest(events: [SDKEvent(name: "open", installID: "i", linkID: otherLink.id)])))
            #expect(foreign.status == .notFound)
            #expect(foreign.error?.field == "events[0].linkID" && foreign.error?.code == .notFound)
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "open") == 1)
        }
    }

    /// A device's clock says when an event happened, however long ago or ahead; statistics count an event on the day it
    /// arrives.
    @Test func eventsKeepTheirTimeWhateverItIs() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let now = Date()
            let events = EventsRequest(events: [
                SDKEvent(name: "old.one", installID: "IDFV-7", timestamp: now.addingTimeInterval(-400 * 86400)),
                SDKEvent(name: "ahead", installID: "IDFV-7", timestamp: now.addingTimeInterval(7 * 86400)),
            ])
            let accepted = try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: fixture.publishable, json: true), body: jsonBody(events))
            #expect(accepted.status == .ok, "\(accepted.text)")
            #expect(try accepted.decode(EventsResponse.self).accepted == 2)
            func count(_ name: String, on date: Date) async throws -> Int? {
                let day = StatsRange.text(ofDay: StatsRollup.day(of: date))
                let report = try await client.execute(uri: "/v1/stats?to=\(day)&days=1", method: .get, headers: headers(key: fixture.secret))
                return try report.decode(StatsReport.self).events[name]
            }
            #expect(try await count("old.one", on: Date()) == 1)
            #expect(try await count("ahead", on: Date()) == 1)
            #expect(try await count("old.one", on: now.addingTimeInterval(-400 * 86400)) == nil)
        }
    }

    @Test func resolveNamesAMalformedInstallIDWhateverTheLinksState() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "off", destination: "https://example.com/off", disabled: true), app: fixture.app, environment: .live)
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "on", destination: "https://example.com/on"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            // A disabled link, an unknown slug and a live link: the bad id is what the answer names, and nothing is recorded.
            for slug in ["off", "nowhere", "on"] {
                for installID in ["", "with%20space", String(repeating: "x", count: 129)] {
                    let response = try await client.execute(uri: "/v1/links/resolve/\(slug)?installID=\(installID)", method: .get, headers: headers(key: fixture.publishable))
                    #expect(response.status == .badRequest, "\(slug) \(installID)")
                    #expect(response.error?.field == "installID")
                }
            }
            let off = try await client.execute(uri: "/v1/links/resolve/off?installID=IDFV-1", method: .get, headers: headers(key: fixture.publishable))
            #expect(off.status == .notFound && off.error?.code == .gone)
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "link_open") == 0)
        }
    }

    @Test func pageReportsAreBoundedAndLenient() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "described", destination: "https://example.com/d"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let clickID = try await clickOnIPhone(client, slug: "described", address: "203.0.113.41", report: nil)
            let good = #"{"click": "\#(clickID)", "signals": {"screenWidth": 390, "timeZone": "Not/AZone", "screenScale": 3}}"#
            #expect(try await client.execute(uri: "/.ferry/signals", method: .post, headers: headers(), body: jsonBody(good)).status == .noContent)
            let badClick = try await client.execute(uri: "/.ferry/signals", method: .post, headers: headers(), body: jsonBody(#"{"click": "nope", "signals": {}}"#))
            #expect(badClick.status == .badRequest)
            #expect(badClick.error?.field == "click")
            let big = #"{"click": "clk_AAAAAAAAAAAAAAAAAAAAAA", "signals": {"model": "\#(String(repeating: "m", count: 5000))"}}"#
            #expect(try await client.execute(uri: "/.ferry/signals", method: .post, headers: headers(), body: jsonBody(big)).status == .contentTooLarge)
            #expect(try await client.execute(uri: "/.ferry/signals", method: .post, headers: headers(host: "nobody.example"), body: jsonBody(good)).status == .notFound)
        }
    }

    @Test func copyToOpenPutsTheTokenBehindATap() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        var spec = FerryAdmin.AppSpec(name: "Copy", domains: ["copy.example"])
        spec.appStoreID = "99"
        spec.attribution = AttributionSettings(window: 3600, copyToOpen: true)
        let app = try await fixture.admin.createApp(spec)
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "c", destination: "https://example.com/"), app: app, environment: .live)
        try await fixture.application().test(.router) { client in
            let page = try await client.execute(uri: "/c", method: .get, headers: headers(host: "copy.example", userAgent: UA.iPhoneSafari)).text
            #expect(page.contains(#"id="ferry-copy""#))
            #expect(page.contains(#"data-token="ferry:clk_"#))
            // The same click as a link on the app's domain, for the pasteboard's URL.
            let token = try #require(page.firstMatch(of: /data-token="ferry:(clk_[A-Za-z0-9]{22})"/)?.1)
            #expect(page.contains(#"data-token-link="https://copy.example/c?ferry_click_id=\#(token)""#))
            #expect(page.contains(#"data-auto="0""#))
        }
    }

    @Test func concurrentInstallsNeverShareAClick() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "race", destination: "https://example.com/r"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let clickID = try await clickOnIPhone(client, slug: "race", address: "203.0.113.77")
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            let answers = try await withThrowingTaskGroup(of: MatchResponse.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        // Half claim it with the token, half with the same signals from the same address.
                        let token = index.isMultiple(of: 2) ? "ferry:\(clickID)" : nil
                        return try await match(client, key: fixture.publishable, installID: "racer-\(index)", address: "203.0.113.77", token: token)
                            .decode(MatchResponse.self)
                    }
                }
                var all: [MatchResponse] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(answers.filter(\.matched).count == 1)
        }
    }
}
#endif
