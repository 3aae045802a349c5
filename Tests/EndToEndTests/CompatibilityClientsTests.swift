#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryKit
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Clients written the way the two platforms' documentation writes them (Codable structs, URLSession), pointed at a
// Ferry server: migrating means changing the base URL and the key.

// MARK: LinkTrace-style client, as documented

struct AttributionResponse: Codable {
    let success: Bool
    let data: AttributionData
}

struct AttributionData: Codable {
    let attributed: Bool
    let referrerIdentifier: String?
    let campaign: String?
    let source: String?
    let customPayload: [String: String]?
}

struct ReferralLinkRequest: Codable {
    let referrerIdentifier: String
    let campaign: String
    let customPayload: [String: String]
}

struct ReferralLinkResponse: Codable {
    struct Data: Codable {
        let shortCode: String
        let referralLink: String
        let referrerIdentifier: String
    }
    let success: Bool
    let data: Data
}

final class AttributionService: Sendable {
    let apiKey: String
    let baseURL: String
    init(apiKey: String, baseURL: String) {
        self.apiKey = apiKey
        self.baseURL = baseURL
    }

    func createReferralLink(_ body: ReferralLinkRequest) async throws -> ReferralLinkResponse {
        var request = URLRequest(url: URL(string: "\(baseURL)/api/v1/referral-links")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(apiKey, forHTTPHeaderField: "x-api-key")
        request.httpBody = try JSONEncoder().encode(body)
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONDecoder().decode(ReferralLinkResponse.self, from: data)
    }

    func fetchAttribution(userId: String) async throws -> AttributionData {
        guard let url = URL(string: "\(baseURL)/api/v1/attributions") else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(apiKey, forHTTPHeaderField: "x-api-key")
        // What URLSession sends by itself on an iPhone (set by hand here, where there is no iPhone).
        request.setValue("ExampleApp/1.0 CFNetwork/1568.200.51 Darwin/24.1.0", forHTTPHeaderField: "User-Agent")
        request.setValue("en-US,en;q=0.9", forHTTPHeaderField: "Accept-Language")
        request.httpBody = try JSONEncoder().encode(["userId": userId])
        let (data, _) = try await URLSession.shared.data(for: request)
        let response = try JSONDecoder().decode(AttributionResponse.self, from: data)
        return response.data
    }
}

// MARK: LimeLink-style client, as documented

struct UniversalLinkResponse: Codable {
    let uri: String
}

struct DeferredDeepLinkResponse: Codable {
    let suffix: String
    let full_request_url: String
}

struct LimeLinkStatsRequest: Codable {
    let private_key: String
    let suffix: String
    let handle: String?
    let event_type: String
    let operating_system: String
}

struct LimeLinkClient: Sendable {
    let baseURL: String

    /// The dynamic-link lookup for a URL the app was opened with (`https://{sub}.{domain}/link/{suffix}?…`).
    func universalLink(_ url: URL, setup: Bool = false) async throws -> String? {
        let suffix = url.lastPathComponent
        var components = URLComponents(string: "\(baseURL)/api/v1/app/dynamic_link/\(suffix)")!
        var items = [URLQueryItem(name: "full_request_url", value: url.absoluteString)]
        if setup { items.append(URLQueryItem(name: "event_type", value: "setup")) }
        // As the platform's SDK builds it: URLQueryItem encodes the value's `=`, `&` and `%`, not its `:`, `/` or `?`.
        components.queryItems = items
        let (data, response) = try await URLSession.shared.data(from: components.url!)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
        return try JSONDecoder().decode(UniversalLinkResponse.self, from: data).uri
    }

    /// The deferred deep link: screen size and system, then the lookup of the suffix found, with `event_type=setup`.
    func deferredDeepLink(width: Int, height: Int, userAgent: String) async throws -> String? {
        var components = URLComponents(string: "\(baseURL)/api/v1/deferred-deep-link")!
        components.queryItems = [URLQueryItem(name: "width", value: "\(width)"), URLQueryItem(name: "height", value: "\(height)"),
                                 URLQueryItem(name: "user_agent", value: userAgent)]
        var request = URLRequest(url: components.url!)
        request.setValue("en-US,en;q=0.9", forHTTPHeaderField: "Accept-Language")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
        let found = try JSONDecoder().decode(DeferredDeepLinkResponse.self, from: data)
        return try await universalLink(URL(string: found.full_request_url)!, setup: true)
    }

    func saveStatus(privateKey: String, suffix: String, handle: String?, firstRun: Bool) async throws -> Int {
        var request = URLRequest(url: URL(string: "\(baseURL)/api/v1/stats/event")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(LimeLinkStatsRequest(
            private_key: privateKey, suffix: suffix, handle: handle, event_type: firstRun ? "first_run" : "rerun", operating_system: "ios"))
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

@Suite("Clients of other platforms against the real server", .takesTurns)
struct CompatibilityClientsTests {
    typealias Server = FerryKitEndToEndTests.Server

    @Test func aLinkTraceAppCreatesAReferralLinkAndAttributesTheUserItBrought() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            let service = AttributionService(apiKey: server.secret, baseURL: base.absoluteString)
            let created = try await service.createReferralLink(ReferralLinkRequest(
                referrerIdentifier: "user_9821", campaign: "summer_referral",
                customPayload: ["screenName": "promo_screen", "promoCode": "SAVE20", "variant": "hero_cta"]))
            #expect(created.success && created.data.referrerIdentifier == "user_9821")
            #expect(created.data.referralLink.hasSuffix("/\(created.data.shortCode)"))

            // The invited friend taps the link on an iPhone, installs, signs up.
            let clickID = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: created.data.shortCode)
            for _ in 0..<250 where try await server.store.click(id: clickID) == nil { try await Task.sleep(nanoseconds: 20_000_000) }

            let appSide = AttributionService(apiKey: server.publishable, baseURL: base.absoluteString)
            let data = try await appSide.fetchAttribution(userId: "your_internal_user_id")
            #expect(data.attributed)
            #expect(data.referrerIdentifier == "user_9821" && data.campaign == "summer_referral")
            #expect(data.customPayload?["screenName"] == "promo_screen" && data.customPayload?["promoCode"] == "SAVE20")
            let again = try await appSide.fetchAttribution(userId: "your_internal_user_id")
            #expect(again.attributed && again.customPayload == data.customPayload)
            let organic = try await appSide.fetchAttribution(userId: "another_user")
            #expect(!organic.attributed && organic.customPayload == nil && organic.referrerIdentifier == nil)
        }
    }

    @Test func aLimeLinkAppResolvesItsLinksAndFindsTheDeferredOne() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            _ = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "testsub")
            let client = LimeLinkClient(baseURL: base.absoluteString)
            let port = try #require(base.port)

            // Universal Link in the subdomain form, with its query (the app's domain here is localhost).
            let opened = URL(string: "http://abc123.localhost:\(port)/link/testsub?campaign=summer&source=email")!
            #expect(try await client.universalLink(opened) == "example://product/42?campaign=summer&source=email")
            #expect(try await client.saveStatus(privateKey: server.publishable, suffix: "testsub", handle: nil, firstRun: false) == 200)

            // A click before the install, then the first launch asks for its link.
            let clickID = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: "testsub")
            for _ in 0..<250 where try await server.store.click(id: clickID) == nil { try await Task.sleep(nanoseconds: 20_000_000) }
            #expect(try await client.deferredDeepLink(width: 393, height: 852, userAgent: "iOS 18_1") == "example://product/42")
            #expect(try await client.saveStatus(privateKey: server.publishable, suffix: "testsub", handle: "example", firstRun: true) == 200)
            let app = try #require(try await server.store.listApps().first)
            #expect(try await server.store.eventCount(appID: app.id, name: "install") >= 1)
        }
    }
}
#endif
