@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Share links: LinkBuilder and Ferry.shortLink", .takesTurns)
struct LinkBuilderTests {
    static let created = Date(timeIntervalSince1970: 1_780_000_000)

    /// The server's answer to a new link, as `POST /v1/links` sends it.
    static func answer(for request: CreateLinkRequest, slug: String = "k3v9x2q") -> LinkResponse {
        LinkResponse(
            id: "lnk_0123456789abcdefghijkl", url: "https://go.example.com/\(slug)", domain: "go.example.com", slug: slug, environment: .live,
            destination: request.destination, iosURL: request.iosURL, androidURL: request.androidURL, params: request.params ?? [:],
            utm: request.utm ?? UTMParameters(), campaign: request.campaign, referrer: request.referrer, social: request.social ?? SocialMetadata(),
            expiresAt: request.expiresAt, disabled: false, routing: request.routing ?? LinkRouting(), createdAt: created, updatedAt: created)
    }

    /// A server stand-in that creates the link it is sent, answering `status` (201 for a new link, 200 for the same again).
    static func creating(status: Int = 201) -> ScriptedTransport {
        ScriptedTransport { request in
            guard request.url?.path == FerryRoutes.links, request.httpMethod == "POST" else { return .json(404, "{}") }
            let body = try Kit.body(request, as: CreateLinkRequest.self)
            return .encoded(answer(for: body), status: status)
        }
    }

    static func json(_ request: URLRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: Any])
    }

    static var full: LinkBuilder {
        var link = LinkBuilder(destination: URL(string: "https://example.com/recipes/42?lang=fr")!)
        link.iosURL = URL(string: "example://recipes/42")
        link.androidURL = URL(string: "https://example.com/app/recipes/42")
        link.domain = "Go.Example.com"
        link.params = ["recipeID": "42", "from": "share sheet"]
        link.utm = UTMParameters(source: "app", medium: "share", campaign: "spring", content: "card", term: "tart")
        link.campaign = "spring-sharing"
        link.referrer = "user-7"
        link.social = .init(title: "Lemon tart", description: "Ready in 40 minutes.\nServes 6.", imageURL: URL(string: "https://cdn.example.com/tart.jpg"))
        link.ios = .init(fallbackURL: URL(string: "https://example.com/ios"), ipadFallbackURL: URL(string: "https://example.com/ipad"),
                         ipadBundleID: "com.example.app.ipad", appStoreID: "1234567890", minimumVersion: "2.4.1")
        link.android = .init(fallbackURL: URL(string: "https://example.com/android"), minimumVersionCode: 240)
        link.otherPlatformFallbackURL = URL(string: "https://example.com/desktop")
        link.skipPreviewPage = true
        link.appStoreAnalytics = .init(affiliateToken: "aff", campaignToken: "spring", mediaType: "8", providerToken: "123456")
        link.expiresAt = created.addingTimeInterval(30 * 86400)
        return link
    }

    // MARK: What is sent

    @Test func aFullBuilderSendsEveryFieldAtItsWireKey() async throws {
        let transport = Self.creating()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport, clock: TestClock(Self.created)))
        _ = try await ferry.shortLink(for: Self.full)

        let request = try #require(transport.sent.first)
        #expect(transport.sent.count == 1)
        #expect(request.httpMethod == "POST")
        #expect(request.url?.absoluteString == "https://api.example.com/v1/links")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer \(Kit.key)")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")

        let object = try Self.json(request)
        #expect(Set(object.keys) == ["domain", "destination", "iosURL", "androidURL", "params", "utm", "campaign", "referrer", "social",
                                     "expiresAt", "routing"])
        #expect(object["destination"] as? String == "https://example.com/recipes/42?lang=fr")
        #expect(object["iosURL"] as? String == "example://recipes/42")
        #expect(object["androidURL"] as? String == "https://example.com/app/recipes/42")
        #expect(object["domain"] as? String == "go.example.com")
        #expect(object["params"] as? [String: String] == ["recipeID": "42", "from": "share sheet"])
        #expect(object["utm"] as? [String: String] == ["source": "app", "medium": "share", "campaign": "spring", "content": "card", "term": "tart"])
        #expect(object["campaign"] as? String == "spring-sharing")
        #expect(object["referrer"] as? String == "user-7")
        #expect(object["social"] as? [String: String] == ["title": "Lemon tart", "description": "Ready in 40 minutes.\nServes 6.",
                                                          "imageURL": "https://cdn.example.com/tart.jpg"])
        #expect(object["expiresAt"] as? String == "2026-06-27T20:26:40.000Z")
        let routing = try #require(object["routing"] as? [String: Any])
        #expect(routing["iosFallbackURL"] as? String == "https://example.com/ios")
        #expect(routing["ipadFallbackURL"] as? String == "https://example.com/ipad")
        #expect(routing["ipadBundleID"] as? String == "com.example.app.ipad")
        #expect(routing["appStoreID"] as? String == "1234567890")
        #expect(routing["iosMinimumVersion"] as? String == "2.4.1")
        #expect(routing["androidFallbackURL"] as? String == "https://example.com/android")
        #expect(routing["androidMinimumVersionCode"] as? Int == 240)
        #expect(routing["otherPlatformFallbackURL"] as? String == "https://example.com/desktop")
        #expect(routing["skipPreviewPage"] as? Bool == true)
        #expect(routing["appStoreAnalytics"] as? [String: String] == ["affiliateToken": "aff", "campaignToken": "spring", "mediaType": "8",
                                                                      "providerToken": "123456"])
        #expect(Set(routing.keys).count == 10, "every routing field is set")
        #expect(object["slug"] == nil && object["disabled"] == nil, "a publishable key may send neither")
    }

    @Test func aBuilderWithOnlyADestinationSendsOnlyTheDestination() async throws {
        let transport = Self.creating()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        _ = try await ferry.shortLink(for: LinkBuilder(destination: URL(string: "https://example.com/recipes/42")!))
        let object = try Self.json(try #require(transport.sent.first))
        #expect(object.keys.sorted() == ["destination"], "no null, no empty object, no slug or disabled: \(object)")
        #expect(object["destination"] as? String == "https://example.com/recipes/42")
    }

    @Test func emptyGroupsAreLeftOutAndAnExplicitFalseIsKept() async throws {
        let transport = Self.creating()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        var link = LinkBuilder(destination: URL(string: "https://example.com/")!)
        link.skipPreviewPage = false
        link.social = .init(title: "Only a title")
        _ = try await ferry.shortLink(for: link)
        let object = try Self.json(try #require(transport.sent.first))
        #expect(Set(object.keys) == ["destination", "social", "routing"])
        #expect(object["social"] as? [String: String] == ["title": "Only a title"])
        let routing = try #require(object["routing"] as? [String: Any])
        #expect(routing["skipPreviewPage"] as? Bool == false, "false overrides the app's setting, so it is sent")
        #expect(routing.filter { !($0.value is NSNull) }.keys.sorted() == ["skipPreviewPage"])
    }

    // MARK: What comes back

    @Test(arguments: [201, 200])
    func theShortURLComesBackForANewLinkAndForTheSameLinkAgain(status: Int) async throws {
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: Self.creating(status: status)))
        let url = try await ferry.shortLink(for: Self.full)
        #expect(url.absoluteString == "https://go.example.com/k3v9x2q")

        let link = try await ferry.createLink(for: Self.full)
        #expect(link == ShortLink(id: "lnk_0123456789abcdefghijkl", url: url, domain: "go.example.com", slug: "k3v9x2q",
                                  expiresAt: Self.full.expiresAt))
    }

    @Test func aFailedTryIsRetriedWithTheSameBody() async throws {
        let tries = Collector<Int>()
        let transport = ScriptedTransport { request in
            tries.append(1)
            if tries.all.count == 1 { return .json(503, #"{"error":{"code":"database_unavailable","message":"try again","field":null}}"#) }
            if tries.all.count == 2 { throw URLError(.networkConnectionLost) }
            return .encoded(Self.answer(for: try Kit.body(request, as: CreateLinkRequest.self)), status: 200)
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        var link = Self.full
        link.expiresAt = nil
        link.params = Dictionary(uniqueKeysWithValues: (0..<20).map { ("key\($0)", "value \($0)") })
        #expect(try await ferry.shortLink(for: link).absoluteString == "https://go.example.com/k3v9x2q")
        #expect(transport.sent.count == 3)
        #expect(Set(transport.sent.map(\.httpBody)).count == 1, "every try sends the same bytes, which the server recognises as the same link")
    }

    @Test func anAnswerWhoseURLIsNotAWebURLIsRefused() async throws {
        let transport = ScriptedTransport { request in
            var answer = Self.answer(for: try Kit.body(request, as: CreateLinkRequest.self))
            answer.url = "javascript:alert(1)"
            return .encoded(answer, status: 201)
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        await #expect { try await ferry.shortLink(for: Self.full) } throws: { ($0 as? FerryError)?.code == .invalidResponse }
    }

    // MARK: Refusals

    /// An error answer of the server, and what FerryKit should make of it.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var serverCode: APIErrorCode
        var message: String
        var field: String?
        var headers: [String: String] = [:]
        var code: FerryError.Code
        /// What the error's message must contain besides the server's message.
        var hints: [String] = []
        var status: Int { serverCode.httpStatus ?? 0 }
        var testDescription: String { "\(status) \(serverCode)" }
    }

    static let refusals: [Refusal] = [
        Refusal(serverCode: .urlNotAllowed, message: "routing.iosFallbackURL is not allowed by the app's URL patterns", field: "routing.iosFallbackURL",
                code: .badRequest, hints: ["--allow-url-pattern"]),
        Refusal(serverCode: .clientLinksOff, message: "this app does not let its publishable keys create links", code: .forbidden,
                hints: ["--client-links on"]),
        Refusal(serverCode: .invalidField, message: "social.title must not contain control characters", field: "social.title", code: .badRequest),
        Refusal(serverCode: .rateLimited, message: "too many links from this key", headers: ["Retry-After": "12"], code: .rateLimited,
                hints: ["try again in 12 s"]),
        Refusal(serverCode: .unauthorized, message: "unknown or revoked API key", code: .unauthorized),
    ]

    @Test(arguments: refusals)
    func eachRefusalSaysWhatTheServerRefused(refusal: Refusal) async throws {
        let transport = ScriptedTransport { _ in
            var reply = ScriptedTransport.Reply.encoded(ErrorResponse(code: refusal.serverCode, message: refusal.message, field: refusal.field),
                                                        status: refusal.status)
            reply.headers = refusal.headers
            return reply
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        do {
            _ = try await ferry.shortLink(for: Self.full)
            Issue.record("a refused link gave a URL")
        } catch {
            #expect(error.code == refusal.code)
            #expect(error.httpStatus == refusal.status)
            #expect(error.serverCode == refusal.serverCode)
            #expect(error.field == refusal.field)
            for text in [refusal.message] + refusal.hints { #expect(error.message.contains(text), "\(error.message)") }
        }
        #expect(transport.sent.count == 1, "a 4xx is not retried")
    }

    // MARK: Checks on the device

    struct Mistake: Sendable, CustomTestStringConvertible {
        var field: String
        var link: LinkBuilder
        var testDescription: String { field }

        init(_ field: String, _ change: (inout LinkBuilder) -> Void) {
            self.field = field
            var link = LinkBuilder(destination: URL(string: "https://example.com/recipes/42")!)
            change(&link)
            self.link = link
        }
    }

    static let long = "https://example.com/" + String(repeating: "a", count: 2048)

    static let mistakes: [Mistake] = [
        Mistake("destination") { $0.destination = URL(string: "ftp://example.com/file")! },
        Mistake("destination") { $0.destination = URL(string: "example://recipes/42")! },
        Mistake("destination") { $0.destination = URL(string: "javascript:alert(1)")! },
        Mistake("destination") { $0.destination = URL(string: "recipes/42")! },
        Mistake("destination") { $0.destination = URL(string: "https://user:secret@example.com/")! },
        Mistake("destination") { $0.destination = URL(string: long)! },
        Mistake("iosURL") { $0.iosURL = URL(string: "javascript:alert(document.cookie)") },
        Mistake("iosURL") { $0.iosURL = URL(string: "JavaScript:alert(1)") },
        Mistake("iosURL") { $0.iosURL = URL(string: "file:///etc/passwd") },
        Mistake("iosURL") { $0.iosURL = URL(string: "http://example.com/recipes/42") },
        Mistake("iosURL") { $0.iosURL = URL(string: "example:") },
        Mistake("androidURL") { $0.androidURL = URL(string: "data:text/html;base64,PHNjcmlwdD4=") },
        Mistake("androidURL") { $0.androidURL = URL(string: "vbscript:msgbox") },
        Mistake("domain") { $0.domain = "go example com" },
        Mistake("domain") { $0.domain = "" },
        Mistake("params") { $0.params = Dictionary(uniqueKeysWithValues: (0..<21).map { ("k\($0)", "v") }) },
        Mistake("params") { $0.params = ["with space": "1"] },
        Mistake("params") { $0.params = ["": "1"] },
        Mistake("params.note") { $0.params = ["note": String(repeating: "x", count: 513)] },
        Mistake("params.note") { $0.params = ["note": "a\u{0}b"] },
        Mistake("utm.source") { $0.utm.source = String(repeating: "s", count: 129) },
        Mistake("utm.term") { $0.utm.term = "tart\r\nSet-Cookie: x=1" },
        Mistake("campaign") { $0.campaign = "spring\nsale" },
        Mistake("referrer") { $0.referrer = "user\u{7}" },
        Mistake("social.title") { $0.social.title = "Two\nlines" },
        Mistake("social.description") { $0.social.description = String(repeating: "d", count: 501) },
        Mistake("social.imageURL") { $0.social.imageURL = URL(string: "data:image/png;base64,AAAA") },
        Mistake("routing.iosFallbackURL") { $0.ios.fallbackURL = URL(string: "javascript:alert(1)") },
        Mistake("routing.ipadFallbackURL") { $0.ios.ipadFallbackURL = URL(string: "file:///tmp/x") },
        Mistake("routing.ipadBundleID") { $0.ios.ipadBundleID = "not a bundle id" },
        Mistake("routing.appStoreID") { $0.ios.appStoreID = "example" },
        Mistake("routing.iosMinimumVersion") { $0.ios.minimumVersion = "2.4 beta" },
        Mistake("routing.androidFallbackURL") { $0.android.fallbackURL = URL(string: "https://example.com/" + String(repeating: "a", count: 2048)) },
        Mistake("routing.androidMinimumVersionCode") { $0.android.minimumVersionCode = -1 },
        Mistake("routing.otherPlatformFallbackURL") { $0.otherPlatformFallbackURL = URL(string: "ftp://example.com/") },
        Mistake("routing.appStoreAnalytics.campaignToken") { $0.appStoreAnalytics.campaignToken = String(repeating: "c", count: 129) },
        Mistake("expiresAt") { $0.expiresAt = LinkBuilderTests.created.addingTimeInterval(-1) },
    ]

    @Test(arguments: mistakes)
    func whatTheDeviceCanCheckIsRefusedBeforeAnythingIsSent(mistake: Mistake) async throws {
        let transport = Self.creating()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport, clock: TestClock(Self.created)))
        do {
            _ = try await ferry.shortLink(for: mistake.link)
            Issue.record("\(mistake.field): the link was sent")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.field == mistake.field)
            #expect(error.httpStatus == nil && error.serverCode == nil)
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func valuesAtTheLimitsAreSent() async throws {
        let transport = Self.creating()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        var link = LinkBuilder(destination: URL(string: "HTTP://localhost:8080/" + String(repeating: "a", count: 2048 - 22))!)
        link.domain = "https://localhost:8080/"
        link.iosURL = URL(string: "example+beta://x")
        link.params = Dictionary(uniqueKeysWithValues: (0..<20).map { ("k\($0)", "é") })
        link.social.title = String(repeating: "t", count: 200)
        link.ios.appStoreID = "id1234567890"
        link.android.minimumVersionCode = 2_100_000_000
        _ = try await ferry.shortLink(for: link)
        let object = try Self.json(try #require(transport.sent.first))
        #expect((object["destination"] as? String)?.utf8.count == 2048)
        #expect(object["domain"] as? String == "localhost:8080")
    }

    // MARK: Completion handlers and the shared instance

    @Test func theCompletionHandlerTwinAnswersOnTheMainActor() async throws {
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: Self.creating()))
        let result: Result<URL, FerryError> = await withCheckedContinuation { continuation in
            ferry.shortLink(for: Self.full) { result in
                MainActor.assertIsolated()
                continuation.resume(returning: result)
            }
        }
        #expect(try result.get().absoluteString == "https://go.example.com/k3v9x2q")

        let off = ScriptedTransport { _ in .json(403, #"{"error":{"code":"client_links_off","message":"client links are off","field":null}}"#) }
        let refused = try Ferry(apiKey: Kit.key, options: Kit.options(transport: off))
        let failure: Result<URL, FerryError> = await withCheckedContinuation { continuation in
            refused.shortLink(for: Self.full) { result in
                MainActor.assertIsolated()
                continuation.resume(returning: result)
            }
        }
        #expect(throws: FerryError.self) { try failure.get() }
        if case .failure(let error) = failure { #expect(error.serverCode == .clientLinksOff) }

        let invalid: Result<URL, FerryError> = await withCheckedContinuation { continuation in
            ferry.shortLink(for: LinkBuilder(destination: URL(string: "ftp://example.com/")!)) { continuation.resume(returning: $0) }
        }
        if case .failure(let error) = invalid { #expect(error.code == .invalidArgument && error.field == "destination") } else {
            Issue.record("an ftp destination was accepted")
        }
    }
}
