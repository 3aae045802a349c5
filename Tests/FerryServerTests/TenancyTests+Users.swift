#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// User bindings as a publishable key and as the app's backend see them.
extension TenancyTests {
    @Test(arguments: TenancyTests.backends)
    func aPublishableKeyLearnsNothingOfAnotherInstallsUser(backend: String) async throws {
        try await Self.withTenants(backend) { client, admin, a, _ in
            let publishable = a.key(.publishable, .live), secret = a.key(.secret, .live)
            let link = try #require(a.links[.live])
            // The victim's install was matched to A's link by its click token.
            let clickID = try await clickOnIPhone(client, slug: link.slug, address: "203.0.113.40", host: "go.example.com")
            let match = try await client.execute(uri: "/v1/attribution/match", method: .post, headers: headers(key: publishable, json: true),
                                                 body: jsonBody(MatchRequest(installID: "victim-install", signals: iPhoneSignals, clickToken: "ferry:\(clickID)")))
            #expect(try match.decode(MatchResponse.self).matched)
            func bind(_ installID: String, _ userID: String, key: String) async throws -> AttributeUserResponse {
                let response = try await client.execute(uri: "/v1/attribution/user", method: .post, headers: headers(key: key, json: true),
                                                        body: jsonBody(AttributeUserRequest(installID: installID, userID: userID)))
                #expect(response.status == .ok, "\(response.text)")
                return try response.decode(AttributeUserResponse.self)
            }
            let victim = try await bind("victim-install", "user-1001", key: publishable)
            #expect(victim.attributed && victim.link?.params["owner"] == "a-live" && victim.boundToThisInstall)
            // Anyone with the app's publishable key, guessing the user id, is told nothing of it.
            let snooped = try await bind("attacker-install", "user-1001", key: publishable)
            #expect(!snooped.attributed && snooped.link == nil && snooped.matchType == nil && !snooped.boundToThisInstall)
            // Nor does claiming a user id first keep its owner from it: the app's backend settles it for good.
            let squatted = try await bind("attacker-install", "user-1002", key: publishable)
            #expect(squatted.boundToThisInstall && !squatted.attributed)
            let settled = try await bind("victim-install", "user-1002", key: secret)
            #expect(settled.attributed && settled.link?.id == link.id && settled.boundToThisInstall)
            let victimAgain = try await bind("victim-install", "user-1002", key: publishable)
            #expect(victimAgain.attributed && victimAgain.boundToThisInstall)
            let attackerAgain = try await bind("attacker-install", "user-1002", key: publishable)
            #expect(!attackerAgain.attributed && !attackerAgain.boundToThisInstall)
            #expect(try await admin.store.userBinding(appID: a.app.id, environment: .live, userID: "user-1002")?.installID == "victim-install")
        }
    }

    @Test(arguments: TenancyTests.backends)
    func theCompatibleAttributionsRouteAnswersEachDeviceItsOwn(backend: String) async throws {
        try await Self.withTenants(backend) { client, admin, a, _ in
            let publishable = a.key(.publishable, .live)
            let link = try #require(a.links[.live])
            let appClient = CompatibilityTests.appClient
            // The victim tapped A's link on their phone, installed, and signed up from the same network.
            let clickID = try await clickOnIPhone(client, slug: link.slug, address: "203.0.113.50", host: "go.example.com")
            #expect(try await Self.eventually { try await admin.store.click(id: clickID) != nil })
            func attribute(_ userID: String, from address: String, stage: Bool = false) async throws -> String {
                let body = stage ? #"{"userId": "\#(userID)", "environment": "stage"}"# : #"{"userId": "\#(userID)"}"#
                let response = try await client.execute(uri: "/api/v1/attributions", method: .post,
                                                        headers: headers(key: publishable, userAgent: appClient, json: true,
                                                                         extra: [(.forwardedFor, address), (.acceptLanguage, "en-US,en;q=0.9")]),
                                                        body: jsonBody(body))
                #expect(response.status == .ok, "\(response.text)")
                return response.text
            }
            let victim = try await attribute("user-2001", from: "203.0.113.50")
            #expect(victim.contains(#""attributed":true"#) && victim.contains("a-campaign"), "\(victim)")
            // Someone elsewhere with the same user id gets their own device's answer, not the victim's.
            let snooped = try await attribute("user-2001", from: "198.51.100.60")
            #expect(snooped.contains(#""attributed":false"#) && !snooped.contains("a-campaign") && !snooped.contains("a-live"), "\(snooped)")
            // The victim asking again is told the same as before.
            #expect(try await attribute("user-2001", from: "203.0.113.50") == victim)
            // And a squatter who asks first for a user id does not take the owner's attribution away (in the test
            // environment, where no other click makes the match less sure).
            let testLink = try #require(a.links[.test])
            let second = try await clickOnIPhone(client, slug: testLink.slug, address: "203.0.113.70", host: "go.example.com")
            #expect(try await Self.eventually { try await admin.store.click(id: second) != nil })
            let squatted = try await attribute("user-2002", from: "198.51.100.61", stage: true)
            #expect(squatted.contains(#""attributed":false"#))
            let owner = try await attribute("user-2002", from: "203.0.113.70", stage: true)
            #expect(owner.contains(#""attributed":true"#), "\(owner)")
        }
    }
}
#endif
