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

/// Requests replayed as the other platforms' documentation writes them, against Ferry's compatibility routes.
@Suite("Compatibility routes", .takesTurns)
struct CompatibilityTests {
    static let appClient = "ExampleApp/3.2 CFNetwork/1568.200.51 Darwin/24.1.0"

    func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    // MARK: Links on subdomains

    @Test func aLinkAnswersOnItsDomainAndInTheLinkFormOnAnySubdomain() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "test", destination: "https://example.com/test"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            for (host, path) in [("go.example.com", "/test"), ("go.example.com", "/link/test"), ("abc123.go.example.com", "/link/test?campaign=summer&source=email"),
                                 ("x.y.go.example.com", "/link/TEST")] {
                let response = try await client.execute(uri: path, method: .get, headers: headers(host: host, userAgent: UA.desktop))
                #expect(response.status == .found, "\(host)\(path)")
                #expect(response.headers[.location]?.hasPrefix("https://example.com/test") == true)
            }
            let carried = try await client.execute(uri: "/link/test?campaign=summer", method: .get, headers: headers(host: "abc123.go.example.com", userAgent: UA.desktop))
            #expect(carried.headers[.location] == "https://example.com/test?campaign=summer")
            let head = try await client.execute(uri: "/link/test", method: .head, headers: headers(host: "abc123.go.example.com", userAgent: UA.desktop))
            #expect(head.status == .found)
            // Not a subdomain of an app domain, or a look-alike: the 404 page.
            for host in ["evil.com", "go.example.com.evil.com", "evilgo.example.com"] {
                let response = try await client.execute(uri: "/link/test", method: .get, headers: headers(host: host, userAgent: UA.desktop))
                #expect(response.status == .notFound, "\(host)")
            }
            // A subdomain of a domain with a port (a development server on localhost:8080).
            let dev = try await fixture.admin.createApp(.init(name: "Dev", domains: ["localhost:8080"]))
            _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "local", destination: "https://example.com/local"), app: dev, environment: .live)
            let local = try await client.execute(uri: "/link/local", method: .get, headers: headers(host: "abc.localhost:8080", userAgent: UA.desktop))
            #expect(local.status == .found)
            #expect(local.headers[.location] == "https://example.com/local")
            // The association file answers on the subdomain too, so Universal Links work there.
            let aasa = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: headers(host: "abc123.go.example.com"))
            #expect(aasa.status == .ok)
            #expect(aasa.text.contains("ABCDE12345.com.example.app"))
        }
    }

    // MARK: LimeLink-style

    @Test func dynamicLinkAnswersTheAppURLWithTheOpenedQuery() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "test", destination: "https://example.com/test", iosURL: "abc123://test",
                                                                androidURL: "abc123android://test"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            // As the SDK sends it: the opened URL percent-encoded in full_request_url.
            let encoded = "https%3A%2F%2Fabc123.go.example.com%2Flink%2Ftest%3Fcampaign%3Dsummer%26source%3Demail"
            let answer = try await client.execute(uri: "/api/v1/app/dynamic_link/test?full_request_url=\(encoded)", method: .get, headers: headers(host: "api.example.net"))
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(try json(answer) as NSDictionary == ["uri": "abc123://test?campaign=summer&source=email"] as NSDictionary)
            // As the platform's examples write it, not encoded at all.
            let raw = try await client.execute(uri: "/api/v1/app/dynamic_link/test?full_request_url=https://abc123.go.example.com/link/test?campaign=summer&source=email",
                                               method: .get, headers: headers(host: "api.example.net"))
            #expect(try json(raw)["uri"] as? String == "abc123://test?campaign=summer&source=email")
            // Direct access: no opened URL, the link domain itself as host.
            let direct = try await client.execute(uri: "/api/v1/app/dynamic_link/test", method: .get, headers: headers())
            #expect(try json(direct)["uri"] as? String == "abc123://test")
            // Android gets the Android deep link.
            let android = try await client.execute(uri: "/api/v1/app/dynamic_link/test", method: .get, headers: headers(userAgent: UA.android))
            #expect(try json(android)["uri"] as? String == "abc123android://test")
            // …and so does an Android app's own HTTP client.
            for agent in ["okhttp/4.12.0", "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP2A.240805.005)"] {
                let app = try await client.execute(uri: "/api/v1/app/dynamic_link/test", method: .get, headers: headers(userAgent: agent))
                #expect(try json(app)["uri"] as? String == "abc123android://test", "\(agent)")
            }

            // event_type=setup records an install for the link; other lookups record opens.
            let installsBefore = try await fixture.store.eventCount(appID: fixture.app.id, name: "install")
            let setup = try await client.execute(uri: "/api/v1/app/dynamic_link/test?full_request_url=\(encoded)&event_type=setup", method: .get, headers: headers(host: "api.example.net"))
            #expect(try json(setup)["uri"] as? String == "abc123://test?campaign=summer&source=email")
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "install") == installsBefore + 1)
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "link_open") == 6)

            // Bad input.
            let unknown = try await client.execute(uri: "/api/v1/app/dynamic_link/nope", method: .get, headers: headers())
            #expect(unknown.status == .notFound)
            #expect(try unknown.decode(ErrorResponse.self).error.code == .notFound)
            // A disabled link is not found either (it may come back, so not 410), with its own code.
            _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "paused", destination: "https://example.com/p", disabled: true), app: fixture.app, environment: .live)
            let paused = try await client.execute(uri: "/api/v1/app/dynamic_link/paused", method: .get, headers: headers())
            #expect(paused.status == .notFound && paused.error?.code == .gone)
            let script = try await client.execute(uri: "/api/v1/app/dynamic_link/test?full_request_url=javascript%3Aalert(1)", method: .get, headers: headers())
            #expect(script.status == .badRequest)
            #expect(try script.decode(ErrorResponse.self).error.field == "full_request_url")
            // A URL the link domain's own rules refuse (quotes, a port out of range, a host of another shape): its query
            // would be carried into the app URL.
            for url in ["https%3A%2F%2Fgo.example.com%2Ftest%3Fq%3D%22x%22", "https%3A%2F%2Fgo.example.com%3A99999%2Ftest", "https%3A%2F%2Fgo_x.example.com%2Ftest"] {
                let refused = try await client.execute(uri: "/api/v1/app/dynamic_link/test?full_request_url=\(url)", method: .get, headers: headers())
                #expect(refused.status == .badRequest, "\(url)")
                #expect(refused.error?.field == "full_request_url", "\(url)")
            }
            let event = try await client.execute(uri: "/api/v1/app/dynamic_link/test?event_type=delete", method: .get, headers: headers())
            #expect(try event.decode(ErrorResponse.self).error.field == "event_type")
            let post = try await client.execute(uri: "/api/v1/app/dynamic_link/test", method: .post, headers: headers())
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow] == "GET")
        }
    }

    @Test func theDeferredLinkOfThisDeviceIsItsLatestClickAndOnlyItsOwn() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "testsub", destination: "https://example.com/p", iosURL: "myapp://product/123"),
                                               app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let clickID = try await clickOnIPhone(client, slug: "testsub", address: "203.0.113.77", path: "/testsub?campaign=summer")
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            // As the SDK asks: screen size and a short user agent, from the phone's network.
            let device = headers(extra: [(.forwardedFor, "203.0.113.77"), (.acceptLanguage, "en-US,en;q=0.9")])
            let uri = "/api/v1/deferred-deep-link?width=393&height=852&user_agent=iOS%2018_1"
            let found = try await client.execute(uri: uri, method: .get, headers: device)
            #expect(found.status == .ok)
            #expect(try json(found) as NSDictionary == ["suffix": "testsub", "full_request_url": "https://go.example.com/testsub?campaign=summer"] as NSDictionary)
            // The same device asking again gets the same answer; the SDK's next step resolves it.
            #expect(try json(try await client.execute(uri: uri, method: .get, headers: device))["suffix"] as? String == "testsub")
            let next = try await client.execute(uri: "/api/v1/app/dynamic_link/testsub?full_request_url=https%3A%2F%2Fgo.example.com%2Ftestsub%3Fcampaign%3Dsummer&event_type=setup",
                                                method: .get, headers: headers())
            #expect(try json(next)["uri"] as? String == "myapp://product/123?campaign=summer")

            // Another phone elsewhere: nothing, as a JSON 404.
            let other = try await client.execute(uri: "/api/v1/deferred-deep-link?width=430&height=932&user_agent=iOS%2017_5", method: .get,
                                                 headers: headers(extra: [(.forwardedFor, "198.51.100.9"), (.acceptLanguage, "de-DE")]))
            #expect(other.status == .notFound)
            #expect(try other.decode(ErrorResponse.self).error.code == .notFound)
            // A form-encoded user agent (`+` for the space) reads the same.
            let plus = try await client.execute(uri: "/api/v1/deferred-deep-link?width=393&height=852&user_agent=iOS+18_1", method: .get, headers: device)
            #expect(try json(plus)["suffix"] as? String == "testsub")

            // A miss is not kept: the same phone that found nothing finds the click it makes afterwards.
            let later = headers(extra: [(.forwardedFor, "192.0.2.33"), (.acceptLanguage, "en-US")])
            let before = try await client.execute(uri: uri, method: .get, headers: later)
            #expect(before.status == .notFound)
            let laterClick = try await clickOnIPhone(client, slug: "testsub", address: "192.0.2.33")
            #expect(try await fixture.eventually { try await fixture.store.click(id: laterClick) != nil })
            let after = try await client.execute(uri: uri, method: .get, headers: later)
            #expect(after.status == .ok)
            #expect(try json(after)["full_request_url"] as? String == "https://go.example.com/testsub")

            // Bad input names its field.
            for (query, field) in [("width=wide&height=852", "width"), ("width=393&height=-1", "height"), ("width=393&height=99999999", "height")] {
                let bad = try await client.execute(uri: "/api/v1/deferred-deep-link?\(query)", method: .get, headers: device)
                #expect(bad.status == .badRequest)
                #expect(try bad.decode(ErrorResponse.self).error.field == field)
            }
        }
    }

    @Test func theStatsCallRecordsThatALinkOpenedTheApp() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "test", destination: "https://example.com/t"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let body = #"{"private_key": "\#(fixture.publishable)", "suffix": "test", "handle": "example", "event_type": "first_run", "operating_system": "ios"}"#
            let saved = try await client.execute(uri: "/api/v1/stats/event", method: .post, headers: headers(json: true), body: jsonBody(body))
            #expect(saved.status == .ok)
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "link_stats") == 1)
            _ = link
            for (text, status, field) in [
                (#"{"private_key": "fk_live_nope", "suffix": "test", "event_type": "rerun"}"#, HTTPResponse.Status.unauthorized, nil as String?),
                (#"{"suffix": "test", "event_type": "rerun"}"#, .unauthorized, nil),
                (#"{"private_key": "\#(fixture.publishable)", "suffix": "test", "event_type": "launch"}"#, .badRequest, "event_type"),
                (#"{"private_key": "\#(fixture.publishable)", "suffix": "../x", "event_type": "rerun"}"#, .badRequest, "suffix"),
                (#"{"private_key": "\#(fixture.publishable)", "suffix": "missing", "event_type": "rerun"}"#, .notFound, nil),
                (#"{"private_key": "\#(fixture.otherSecret)", "suffix": "test", "event_type": "rerun"}"#, .notFound, nil),
                ("not json", .badRequest, nil),
            ] {
                let response = try await client.execute(uri: "/api/v1/stats/event", method: .post, headers: headers(json: true), body: jsonBody(text))
                #expect(response.status == status, "\(text)")
                if let field { #expect(try response.decode(ErrorResponse.self).error.field == field) }
            }
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "link_stats") == 1)
            #expect(try await fixture.store.eventCount(appID: fixture.app.id, name: "link_open") == 0, "the report is not a second open")
        }
    }

    // MARK: LinkTrace-style

    /// The documentation's request body.
    static let referralBody = #"""
        {
          "referrerIdentifier": "user_9821",
          "campaign": "summer_referral",
          "customPayload": {
            "screenName": "promo_screen",
            "promoCode": "SAVE20",
            "variant": "hero_cta"
          }
        }
        """#

    func createReferral(_ client: some TestClientProtocol, key: String, body: String = referralBody) async throws -> TestResponse {
        try await client.execute(uri: "/api/v1/referral-links", method: .post,
                                 headers: headers(host: "api.example.net", extra: [(.contentType, "application/json"), (.apiKey, key)]), body: jsonBody(body))
    }

    @Test func aReferralLinkIsAFerryLinkWithTheReferrerAndPayload() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let created = try await createReferral(client, key: fixture.secret)
            #expect(created.status == .created)
            let object = try json(created)
            #expect(object["success"] as? Bool == true)
            let data = try #require(object["data"] as? [String: Any])
            #expect(Set(data.keys) == ["shortCode", "referralLink", "referrerIdentifier"])
            let code = try #require(data["shortCode"] as? String)
            #expect(data["referralLink"] as? String == "https://go.example.com/\(code)")
            #expect(data["referrerIdentifier"] as? String == "user_9821")
            let link = try #require(try await fixture.store.link(domain: "go.example.com", slug: code))
            #expect(link.params == ["screenName": "promo_screen", "promoCode": "SAVE20", "variant": "hero_cta"])
            #expect(link.referrer == "user_9821" && link.campaign == "summer_referral" && link.environment == .live)
            #expect(link.destination == "https://example.com/", "visitors without the app go to the app's fallback")
            // The link is an ordinary Ferry link: it is clicked like any other.
            let click = try await client.execute(uri: "/\(code)", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(click.status == .found)

            let stage = try await createReferral(client, key: fixture.secret, body: #"{"referrerIdentifier": "qa", "campaign": "c", "environment": "stage"}"#)
            #expect(stage.status == .created)
            let stageCode = try #require((try json(stage)["data"] as? [String: Any])?["shortCode"] as? String)
            #expect(try await fixture.store.link(domain: "go.example.com", slug: stageCode)?.environment == .test)
        }
    }

    @Test func referralLinkErrorsComeInTheEnvelopeAndNameTheProblem() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let cases: [(String, String?, HTTPResponse.Status, String?, String)] = [
                (#"{"referrerIdentifier": "u", "customPayload": {"a": "1", "b": "2", "c": "3", "d": "4"}}"#, fixture.secret, .badRequest, "customPayload", "at most 3"),
                (#"{"referrerIdentifier": "u", "customPayload": {"productId": 42}}"#, fixture.secret, .badRequest, "customPayload.productId", "must be strings"),
                (#"{"referrerIdentifier": "u", "customPayload": {"flag": true}}"#, fixture.secret, .badRequest, "customPayload.flag", "a boolean"),
                (#"{"referrerIdentifier": "u", "customPayload": {"x": {"y": "z"}}}"#, fixture.secret, .badRequest, "customPayload.x", "an object"),
                (#"{"campaign": "c"}"#, fixture.secret, .badRequest, "referrerIdentifier", "required"),
                (#"{"referrerIdentifier": "u", "environment": "qa"}"#, fixture.secret, .badRequest, "environment", "stage"),
                (#"{"referrerIdentifier": "u", "customPayload": "text"}"#, fixture.secret, .badRequest, "customPayload", "customPayload"),
                ("{", fixture.secret, .badRequest, nil, "JSON"),
                (Self.referralBody, fixture.publishable, .forbidden, nil, "secret key"),
                (Self.referralBody, nil, .unauthorized, nil, "API key"),
                // The other app has neither a fallback URL nor an App Store id: the request is fine, the app is not ready.
                (Self.referralBody, fixture.otherSecret, .conflict, nil, "neither a fallback URL nor an App Store id"),
            ]
            for (body, key, status, field, words) in cases {
                var extra: [(HTTPField.Name, String)] = [(.contentType, "application/json")]
                if let key { extra.append((.apiKey, key)) }
                let response = try await client.execute(uri: "/api/v1/referral-links", method: .post, headers: headers(host: "api.example.net", extra: extra), body: jsonBody(body))
                #expect(response.status == status, "\(body)")
                let object = try json(response)
                #expect(object["success"] as? Bool == false, "\(body)")
                let error = try #require(object["error"] as? [String: Any])
                #expect(error["field"] as? String == field, "\(body)")
                #expect((error["message"] as? String)?.contains(words) == true, "\(body): \(error["message"] ?? "")")
            }
            // Nothing was created by the refused requests.
            #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.isEmpty)
        }
    }

    @Test func aStageAttributionNeverSeesAProductionClick() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let code = try #require((try json(try await createReferral(client, key: fixture.secret))["data"] as? [String: Any])?["shortCode"] as? String)
            let clickID = try await clickOnIPhone(client, slug: code, address: "198.18.0.5")
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            func attribute(environment: String?) async throws -> [String: Any] {
                let body = environment.map { #"{"userId": "both_environments", "environment": "\#($0)"}"# } ?? #"{"userId": "both_environments"}"#
                let response = try await client.execute(
                    uri: "/api/v1/attributions", method: .post,
                    headers: headers(host: "api.example.net", userAgent: Self.appClient,
                                     extra: [(.contentType, "application/json"), (.apiKey, fixture.publishable), (.forwardedFor, "198.18.0.5"), (.acceptLanguage, "en-US,en;q=0.9")]),
                    body: jsonBody(body))
                #expect(response.status == .ok)
                return try #require(try json(response)["data"] as? [String: Any])
            }
            // One user id has an answer per environment: the stage one sees no production click, the production one does.
            #expect(try await attribute(environment: "stage")["attributed"] as? Bool == false, "a stage attribution never sees a production click")
            let live = try await attribute(environment: nil)
            #expect(live["attributed"] as? Bool == true)
            #expect(live["referrerIdentifier"] as? String == "user_9821")
            #expect(try await attribute(environment: "stage")["attributed"] as? Bool == false, "the stage answer stays the stage answer")
            #expect(try await attribute(environment: "prod")["attributed"] as? Bool == true)
        }
    }

    @Test func anAttributionIsTheClickOfThisDeviceBoundToTheUserForGood() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let code = try #require((try json(try await createReferral(client, key: fixture.secret))["data"] as? [String: Any])?["shortCode"] as? String)
            let clickID = try await clickOnIPhone(client, slug: code, address: "203.0.113.40")
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })

            func attribute(_ userID: String, address: String, environment: String? = nil) async throws -> [String: Any] {
                let body = environment.map { #"{"userId": "\#(userID)", "environment": "\#($0)"}"# } ?? #"{"userId": "\#(userID)"}"#
                let response = try await client.execute(
                    uri: "/api/v1/attributions", method: .post,
                    headers: headers(host: "api.example.net", userAgent: Self.appClient,
                                     extra: [(.contentType, "application/json"), (.apiKey, fixture.publishable), (.forwardedFor, address), (.acceptLanguage, "en-US,en;q=0.9")]),
                    body: jsonBody(body))
                #expect(response.status == .ok)
                return try json(response)
            }
            let first = try await attribute("your_internal_user_id", address: "203.0.113.40")
            #expect(first["success"] as? Bool == true)
            let data = try #require(first["data"] as? [String: Any])
            #expect(data["attributed"] as? Bool == true)
            #expect(data["referrerIdentifier"] as? String == "user_9821")
            #expect(data["campaign"] as? String == "summer_referral")
            #expect(data["source"] as? String == "referral_link")
            #expect(data["matchType"] as? String == "probabilistic")
            #expect(((data["confidence"] as? Double) ?? 0) >= 0.5)
            #expect(data["customPayload"] as? [String: String] == ["screenName": "promo_screen", "promoCode": "SAVE20", "variant": "hero_cta"])
            // The same user id gets the same answer on the same device; from another device the answer is that
            // device's own (the app's publishable key is public: a user id must not open another's attribution).
            let again = try await attribute("your_internal_user_id", address: "203.0.113.40")
            #expect(again as NSDictionary == first as NSDictionary)
            let elsewhere = try #require(try await attribute("your_internal_user_id", address: "198.51.100.1")["data"] as? [String: Any])
            #expect(elsewhere["attributed"] as? Bool == false && elsewhere["referrerIdentifier"] is NSNull)
            // The click is consumed: another user on the same phone is not attributed, and gets nulls.
            let second = try #require(try await attribute("someone_else", address: "203.0.113.40")["data"] as? [String: Any])
            #expect(second["attributed"] as? Bool == false)
            #expect(Set(second.keys) == ["attributed", "referrerIdentifier", "campaign", "source", "customPayload", "matchType", "confidence"])
            #expect(second["referrerIdentifier"] is NSNull && second["customPayload"] is NSNull)

            // Stage links and stage attributions stay among themselves.
            let stageCode = try #require((try json(try await createReferral(client, key: fixture.secret,
                body: #"{"referrerIdentifier": "qa_user", "campaign": "qa", "environment": "stage"}"#))["data"] as? [String: Any])?["shortCode"] as? String)
            let stageClick = try await clickOnIPhone(client, slug: stageCode, address: "192.0.2.60")
            #expect(try await fixture.eventually { try await fixture.store.click(id: stageClick) != nil })
            let production = try #require(try await attribute("prod_user", address: "192.0.2.60")["data"] as? [String: Any])
            #expect(production["attributed"] as? Bool == false, "a production attribution never sees a stage click")
            let staged = try #require(try await attribute("qa_tester", address: "192.0.2.60", environment: "stage")["data"] as? [String: Any])
            #expect(staged["attributed"] as? Bool == true)
            #expect(staged["referrerIdentifier"] as? String == "qa_user")
            // Errors in the envelope.
            let missing = try await client.execute(uri: "/api/v1/attributions", method: .post,
                                                   headers: headers(extra: [(.contentType, "application/json"), (.apiKey, fixture.publishable)]), body: jsonBody("{}"))
            #expect(missing.status == .badRequest)
            #expect(try json(missing)["success"] as? Bool == false)
            #expect((try json(missing)["error"] as? [String: Any])?["field"] as? String == "userId")
            let anonymous = try await client.execute(uri: "/api/v1/attributions", method: .post, headers: headers(json: true), body: jsonBody(#"{"userId": "u"}"#))
            #expect(anonymous.status == .unauthorized)
            #expect(try json(anonymous)["success"] as? Bool == false)
            // Odd headers are no reason to fail: whatever they cannot tell is left out.
            let odd = try await client.execute(
                uri: "/api/v1/attributions", method: .post,
                headers: headers(userAgent: "Weird/1 (Linux; Android 1\u{0661}\u{0662}\u{0663}\u{0664}\u{0665}\u{0666}\u{0667}\u{0668}\u{0669}1234567890123456789012345678901234)",
                                 extra: [(.contentType, "application/json"), (.apiKey, fixture.publishable), (.acceptLanguage, "@@@, \u{00E9}t\u{00E9}, en;q=x")]),
                body: jsonBody(#"{"userId": "odd_headers"}"#))
            #expect(odd.status == .ok)
            #expect((try json(odd)["data"] as? [String: Any])?["attributed"] as? Bool == false)
            let get = try await client.execute(uri: "/api/v1/attributions", method: .get, headers: headers(extra: [(.apiKey, fixture.publishable)]))
            #expect(get.status == .methodNotAllowed)
            #expect(get.headers[.allow] == "POST")
            #expect(try json(get)["success"] as? Bool == false)
            let trace = try await client.execute(uri: "/api/v1/attributions", method: .trace, headers: headers(extra: [(.apiKey, fixture.publishable)]))
            #expect(trace.status == .methodNotAllowed)
            #expect(trace.headers[.allow] == "POST")
            #expect(try json(trace)["success"] as? Bool == false)
        }
    }
}
#endif
