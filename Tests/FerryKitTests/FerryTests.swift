@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Ferry: configuration and key checks", .takesTurns)
struct FerryConfigurationTests {
    @Test func aWellFormedPublishableKeyIsTakenAndItsEnvironmentRead() throws {
        let ferry = try Ferry(apiKey: "  \(Kit.testKey)\n", options: Kit.options(transport: ScriptedTransport()))
        #expect(ferry.environment == .test)
        #expect(ferry.isFirstLaunch)
    }

    @Test(arguments: ["", "fk_live_short", "fk_prod_" + String(repeating: "a", count: 32), "pk_live_" + String(repeating: "a", count: 32),
                      "fk_live_" + String(repeating: "a", count: 31) + "-", "fk_live_" + String(repeating: "é", count: 32)])
    func malformedKeysAreRefusedAtOnce(key: String) {
        let transport = ScriptedTransport()
        #expect { try Ferry(apiKey: key, options: Kit.options(transport: transport)) } throws: { error in
            (error as? FerryError)?.code == .invalidAPIKey
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func aSecretKeyIsRefusedWithAWarningNeverToShipIt() {
        let transport = ScriptedTransport()
        do {
            _ = try Ferry(apiKey: "fs_live_" + String(repeating: "Z", count: 32), options: Kit.options(transport: transport))
            Issue.record("a secret key was accepted")
        } catch {
            #expect(error.code == .secretKeyInApp)
            #expect(error.message.contains("never ship"))
            #expect(!error.message.contains(String(repeating: "Z", count: 32)), "the message must not repeat the secret")
        }
        #expect(transport.sent.isEmpty)
    }

    @Test(arguments: ["ftp://api.example.com", "file:///tmp/x", "https://", "api.example.com"])
    func serverURLsThatCannotWorkAreRefused(url: String) throws {
        var options = Kit.options(transport: ScriptedTransport())
        options.serverURL = try #require(URL(string: url))
        #expect { try Ferry(apiKey: Kit.key, options: options) } throws: { ($0 as? FerryError)?.code == .invalidConfiguration }
    }

    @Test(arguments: [0, -1, Double.nan, Double.infinity])
    func networkTimeoutsThatCannotWorkAreRefused(timeout: Double) {
        var options = Kit.options(transport: ScriptedTransport())
        options.networkTimeout = timeout
        #expect { try Ferry(apiKey: Kit.key, options: options) } throws: { ($0 as? FerryError)?.code == .invalidConfiguration }
    }

    @Test func retriesWaitLongerEachTimeWithJitterUpToTheLongestWait() {
        let policy = RetryPolicy(maxAttempts: 6, initialDelay: 0.5, maxDelay: 3)
        for _ in 0..<200 {
            // About 0.5, 1, 2 s, then the 3 s ceiling; up to a quarter taken off at random, never added.
            for (attempt, base) in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 3.0), (5, 3.0)] {
                let delay = policy.delay(afterAttempt: attempt)
                #expect(delay >= base * 0.75 && delay <= base, "attempt \(attempt): \(delay)")
            }
        }
        // The jitter spreads devices that failed together.
        let spread = Set((0..<50).map { _ in policy.delay(afterAttempt: 2) })
        #expect(spread.count > 40)
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1 && RetryPolicy(initialDelay: -1).initialDelay == 0)
    }

    @Test func theKeyIsValidatedInTheBackgroundAndTrustedForADay() async throws {
        let storage = InMemoryStorage(), clock = TestClock()
        let transport = ScriptedTransport { request in
            #expect(["Bearer \(Kit.key)", "Bearer \(Kit.testKey)"].contains(request.value(forHTTPHeaderField: "Authorization") ?? ""))
            #expect(request.httpMethod == "POST")
            return .encoded(Kit.validation(domains: ["go.example.com", "links.example.org"]))
        }
        let first = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport, clock: clock, validate: true))
        _ = await first.validationTask.withLock { $0 }?.value
        #expect(transport.sent(path: FerryRoutes.sdkValidate).count == 1)
        #expect(first.validation?.appName == "Example")
        // The server's domains and scheme now count as Ferry's.
        #expect(first.canHandle(URL(string: "https://links.example.org/abc")!))
        #expect(first.canHandle(URL(string: "exampleapp://product/1")!))

        clock.advance(23 * 3600)
        let second = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport, clock: clock, validate: true))
        #expect(second.validationTask.withLock { $0 } == nil)
        #expect(second.canHandle(URL(string: "https://links.example.org/abc")!), "the cached answer's domains are used without asking")

        clock.advance(2 * 3600)
        let third = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport, clock: clock, validate: true))
        _ = await third.validationTask.withLock { $0 }?.value
        #expect(transport.sent(path: FerryRoutes.sdkValidate).count == 2)

        let otherKey = try Ferry(apiKey: Kit.testKey, options: Kit.options(storage: storage, transport: transport, clock: clock, validate: true))
        _ = await otherKey.validationTask.withLock { $0 }?.value
        #expect(transport.sent(path: FerryRoutes.sdkValidate).count == 3, "a different key is checked again")
    }

    @Test func aRevokedKeyIsReportedAndNotCached() async throws {
        let storage = InMemoryStorage()
        let logs = Collector<String>()
        let transport = ScriptedTransport { _ in .json(401, #"{"error":{"code":"unauthorized","message":"unknown or revoked API key","field":null}}"#) }
        var options = Kit.options(storage: storage, transport: transport)
        options.logLevel = .error
        options.logHandler = { _, message in logs.append(message) }
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        do {
            try await ferry.validateKey()
            Issue.record("a revoked key validated")
        } catch {
            #expect(error.code == .unauthorized)
            #expect(error.httpStatus == 401)
            #expect(error.serverCode == .unauthorized)
        }
        #expect(transport.sent.count == 1, "a 401 is not retried")
        #expect(storage.data(forKey: StorageKey.validation) == nil)
        #expect(logs.all.contains { $0.contains("refused the API key") })
    }

    @Test func staticCallsBeforeConfigureFailAndAfterwardsUseTheSharedInstance() async throws {
        // The only test that touches the shared instance.
        let share = LinkBuilder(destination: URL(string: "https://example.com/recipes/42")!)
        if Ferry.shared == nil {
            await #expect { try await Ferry.checkDeferredDeepLink() } throws: { ($0 as? FerryError)?.code == .notConfigured }
            await #expect { try await Ferry.shortLink(for: share) } throws: { ($0 as? FerryError)?.code == .notConfigured }
            await #expect { try await Ferry.createLink(for: share) } throws: { ($0 as? FerryError)?.code == .notConfigured }
            let result: Result<URL, FerryError> = await withCheckedContinuation { continuation in
                Ferry.shortLink(for: share) { result in
                    MainActor.assertIsolated()
                    continuation.resume(returning: result)
                }
            }
            if case .failure(let error) = result { #expect(error.code == .notConfigured && error.message.contains("Ferry.shortLink")) } else {
                Issue.record("a share link was made before configure")
            }
        }
        let transport = ScriptedTransport { request in
            request.url?.path == FerryRoutes.attributionMatch ? .encoded(MatchResponse.notMatched) : .json(500, "{}")
        }
        let ferry = try Ferry.configure(apiKey: Kit.key, options: Kit.options(transport: transport))
        #expect(Ferry.shared === ferry)
        #expect(Ferry.attribution === ferry.attribution)
        #expect(try await Ferry.checkDeferredDeepLink() == nil)
        #expect(try await Ferry.handleDeepLink(URL(string: "myapp://product/9")!)?.source == .customScheme)
        #expect(Ferry.parsePathParams(from: URL(string: "https://go.example.com/link/product/42")!).subPath == "42")
        // The shared instance checks the builder; its stand-in server answers no link route.
        await #expect { try await Ferry.shortLink(for: LinkBuilder(destination: URL(string: "ftp://example.com/")!)) } throws: {
            ($0 as? FerryError)?.code == .invalidArgument
        }
        await #expect { try await Ferry.shortLink(for: share) } throws: { ($0 as? FerryError)?.httpStatus == 500 }
        #expect(transport.sent(path: FerryRoutes.links).count == 3, "the shared instance sent it, with its retries")
    }
}

@Suite("Ferry: links the app is opened with", .takesTurns)
struct HandleDeepLinkTests {
    static func resolving(_ data: LinkData = Kit.linkData()) -> ScriptedTransport {
        ScriptedTransport { request in
            guard request.url?.path == FerryRoutes.resolve(slug: data.slug) else {
                return .json(404, #"{"error":{"code":"not_found","message":"link not found","field":null}}"#)
            }
            return .encoded(ResolveResponse(link: data))
        }
    }

    @Test func aUniversalLinkIsResolvedWithTheOpenedQueryLaidOverTheLink() async throws {
        let transport = Self.resolving()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let url = URL(string: "https://GO.example.com/Summer?utm_source=push&coupon=SAVE10&productID=43")!
        let link = try #require(try await ferry.handleDeepLink(url))
        #expect(link.slug == "summer")
        #expect(link.linkID == "lnk_0123456789abcdefghijkl")
        #expect(link.url == url)
        #expect(link.destination?.absoluteString == "https://example.com/sale")
        #expect(link.iosURL?.absoluteString == "myapp://product/42")
        #expect(link.params == ["productID": "43", "coupon": "SAVE10"])
        #expect(link.utm == UTMParameters(source: "push", campaign: "spring"))
        #expect(link.campaign == "spring-sale")
        #expect(link.referrer == "user-7")
        #expect(!link.isDeferred && link.matchType == nil && link.confidence == nil && link.source == .universalLink)

        let request = try #require(transport.sent.first)
        #expect(request.httpMethod == "GET")
        #expect(Kit.query(request)["domain"] == "go.example.com")
        #expect(request.value(forHTTPHeaderField: "X-Ferry-Install-ID") == FixedSignals().idfv)
        #expect(Kit.query(request)["installID"] == nil, "the install id is in a header, not in the URL")
        #expect(request.url?.query?.contains(FixedSignals().idfv!) == false)
        #expect(request.value(forHTTPHeaderField: "User-Agent")?.hasPrefix("FerryKit/\(Ferry.sdkVersion)") == true)
    }

    @Test func theLinkFormOnASubdomainResolvesOnTheParentDomain() async throws {
        let transport = Self.resolving()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let link = try await ferry.handleDeepLink(URL(string: "https://abc123.go.example.com/link/summer?campaign=x")!)
        #expect(link?.slug == "summer")
        #expect(link?.params["campaign"] == "x")
        #expect(Kit.query(try #require(transport.sent.first))["domain"] == "go.example.com")
    }

    // URLs on a link domain that are no links are the app's own Universal Links: LinkDomainURLTests.
    @Test(arguments: [
        "https://evil.com/summer", "https://go.example.com.evil.com/summer", "https://evilgo.example.com/summer",
        "https://abc.go.example.com/summer", "https://go.example.com/.well-known",
        "otherapp://product/1", "mailto:someone@example.com",
    ])
    func urlsThatAreNotFerrysGiveNilWithoutANetworkCall(text: String) async throws {
        let transport = Self.resolving()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let url = try #require(URL(string: text))
        #expect(try await ferry.handleDeepLink(url) == nil)
        #expect(transport.sent.isEmpty)
    }

    @Test func aDomainWithAPortAsADevelopmentServerHasIt() async throws {
        let transport = Self.resolving()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport, domains: ["localhost:8080", "http://127.0.0.1:8080/"]))
        #expect(try await ferry.handleDeepLink(URL(string: "http://localhost:8080/summer")!)?.slug == "summer")
        #expect(Kit.query(try #require(transport.sent.last))["domain"] == "localhost:8080", "the domain is sent as the app has it")
        #expect(try await ferry.handleDeepLink(URL(string: "http://127.0.0.1:8080/summer")!)?.slug == "summer")
        #expect(Kit.query(try #require(transport.sent.last))["domain"] == "127.0.0.1:8080")
        #expect(!ferry.canHandle(URL(string: "http://localhost:9090/summer")!), "another port is another site")
        #expect(!ferry.canHandle(URL(string: "http://localhost/summer")!))
    }

    @Test func aCustomSchemeURLIsReadOnTheDevice() async throws {
        let transport = Self.resolving()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let url = URL(string: "MyApp://product/42?color=red&utm_campaign=spring&utm_source=sms")!
        let link = try #require(try await ferry.handleDeepLink(url))
        #expect(link.source == .customScheme)
        #expect(link.iosURL == url && link.slug == nil && link.linkID == nil)
        #expect(link.params == ["color": "red"])
        #expect(link.utm == UTMParameters(source: "sms", campaign: "spring"))
        #expect(transport.sent.isEmpty)
    }

    @Test(arguments: [404, 410])
    func aLinkTheServerDoesNotServeIsNilNotAnError(status: Int) async throws {
        let transport = ScriptedTransport { _ in .json(status, #"{"error":{"code":"gone","message":"link 'summer' has expired","field":null}}"#) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!) == nil)
        #expect(transport.sent.count == 1)
        #expect(ferry.attribution.lastTouch == nil)
    }

    /// The resolve request `handleDeepLink` sends for `https://go.example.com/summer`, sent by the instance's client,
    /// whose errors `handleDeepLink` no longer throws but for a refused key.
    static func resolveSummer(_ ferry: Ferry) async throws(FerryError) -> ResolveResponse {
        try await ferry.client.get(FerryRoutes.resolve(slug: "summer"), query: [URLQueryItem(name: "domain", value: "go.example.com")],
                                   as: ResolveResponse.self)
    }

    @Test func serverFailuresAreRetriedWithBackoffThenTheLinkIsReadFromItsURL() async throws {
        let transport = ScriptedTransport { _ in .json(503, "<html>busy</html>") }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        await #expect { try await Self.resolveSummer(ferry) } throws: { error in
            guard let error = error as? FerryError else { return false }
            return error.code == .server && error.httpStatus == 503
        }
        #expect(transport.sent.count == 3)
        let link = try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)
        #expect(link?.isResolved == false && link?.slug == "summer")
        #expect(transport.sent.count == 6, "retried the same way")
    }

    @Test func aClientErrorIsNeverRetried() async throws {
        let transport = ScriptedTransport { _ in .json(400, #"{"error":{"code":"invalid_field","message":"installID must be 1 to 128 printable ASCII characters","field":"installID"}}"#) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        await #expect { try await Self.resolveSummer(ferry) } throws: { error in
            guard let error = error as? FerryError else { return false }
            return error.code == .badRequest && error.serverCode == .invalidField && error.message.contains("installID")
        }
        #expect(transport.sent.count == 1)
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)?.isResolved == false)
        #expect(transport.sent.count == 2)
    }

    @Test func theErrorCarriesTheFieldTheServerNamedAndTheWaitItAskedFor() async throws {
        let invalid = ScriptedTransport { _ in .json(400, #"{"error":{"code":"invalid_field","message":"installID is too long","field":"installID"}}"#) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: invalid))
        do {
            _ = try await Self.resolveSummer(ferry)
            Issue.record("a 400 was taken")
        } catch {
            #expect(error.field == "installID")
            #expect(error.serverCode == .invalidField)
        }
        let limited = ScriptedTransport { _ in
            .json(429, #"{"error":{"code":"rate_limited","message":"too many requests","field":null}}"#, headers: ["Retry-After": "30"])
        }
        var options = Kit.options(transport: limited)
        options.linkResolutionTimeout = 3
        let other = try Ferry(apiKey: Kit.key, options: options)
        do {
            _ = try await Self.resolveSummer(other)
            Issue.record("a 429 was taken")
        } catch {
            #expect(error.code == .rateLimited && error.httpStatus == 429 && error.field == nil)
            #expect(error.message.contains("too many requests") && error.message.contains("try again in 30 s"), "\(error.message)")
        }
        #expect(limited.sent.count == 1, "a 429 is not retried")
        // Nor when the link is opened: 30 s do not fit in its deadline of 3 s.
        #expect(try await other.handleDeepLink(URL(string: "https://go.example.com/summer")!)?.isResolved == false)
        #expect(limited.sent.count == 2)
    }

    @Test func aDroppedConnectionIsRetriedAndTheSecondTrySucceeds() async throws {
        let attempts = Collector<Int>()
        let transport = ScriptedTransport { _ in
            attempts.append(1)
            if attempts.all.count == 1 { throw URLError(.networkConnectionLost) }
            return .encoded(ResolveResponse(link: Kit.linkData()))
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)?.slug == "summer")
        #expect(transport.sent.count == 2)
    }

    @Test func timeoutsAndUnreachableServersBecomeTypedErrors() async throws {
        let timeout = ScriptedTransport { _ in throw URLError(.timedOut) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: timeout))
        await #expect { try await Self.resolveSummer(ferry) } throws: { error in
            (error as? FerryError)?.code == .timeout && (error as? FerryError)?.underlying is URLError
        }
        let offline = ScriptedTransport { _ in throw URLError(.notConnectedToInternet) }
        let other = try Ferry(apiKey: Kit.key, options: Kit.options(transport: offline))
        await #expect { try await Self.resolveSummer(other) } throws: { ($0 as? FerryError)?.code == .network }
        #expect(offline.sent.count == 3)
        // Opening the link gives it as read from its URL instead.
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)?.isResolved == false)
        #expect(try await other.handleDeepLink(URL(string: "https://go.example.com/summer")!)?.isResolved == false)
    }

    @Test func anUnreadableAnswerIsAnInvalidResponseError() async throws {
        let transport = ScriptedTransport { _ in .json(200, #"{"link": {"id": 7}}"#) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        await #expect { try await Self.resolveSummer(ferry) } throws: { ($0 as? FerryError)?.code == .invalidResponse }
        #expect(transport.sent.count == 1)
        #expect(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!)?.isResolved == false)
        #expect(transport.sent.count == 2, "not retried")
    }

    @Test func aURLThatIsNotFerrysWaitsForASlowKeyCheckOnlyBriefly() async throws {
        let answered = Collector<Bool>()
        let transport = ScriptedTransport { _ in
            try await Task.sleep(nanoseconds: 60_000_000_000)
            answered.append(true)
            return .encoded(Kit.validation())
        }
        var options = Kit.options(transport: transport, domains: [], validate: true)
        options.networkTimeout = 0.2
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        #expect(try await ferry.handleDeepLink(URL(string: "https://app.example.com/paywall")!) == nil)
        #expect(transport.sent(path: FerryRoutes.sdkValidate).count == 1)
        #expect(answered.all.isEmpty, "nil came back while the key check was still waiting for the server")
    }

    @Test func aLinkOnADomainOnlyTheServerKnowsWaitsForTheKeyCheck() async throws {
        let transport = ScriptedTransport { request in
            switch request.url?.path {
            case FerryRoutes.sdkValidate?:
                try await Task.sleep(nanoseconds: 50_000_000)
                return .encoded(Kit.validation(domains: ["links.example.org"]))
            case FerryRoutes.resolve(slug: "summer")?: return .encoded(ResolveResponse(link: Kit.linkData()))
            default: return .json(404, "{}")
            }
        }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport, domains: [], validate: true))
        let link = try await ferry.handleDeepLink(URL(string: "https://links.example.org/summer")!)
        #expect(link?.slug == "summer")
        #expect(Kit.query(try #require(transport.sent(path: FerryRoutes.resolve(slug: "summer")).first))["domain"] == "links.example.org")
    }

    @Test func everyLinkIsLastTouchTheFirstIsFirstTouchAndEventsSayWhich() async throws {
        let transport = Self.resolving()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let events = Collector<FerryEvent>()
        let subscription = ferry.onEvent { event in
            if event.name != .install && event.name != .open { events.append(event) }
        }
        _ = try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer?utm_source=push&dl_target=Paywall")!)
        _ = try await ferry.handleDeepLink(URL(string: "myapp://product/7?utm_source=sms&utm_medium=text")!)

        #expect(ferry.attribution.firstTouch?.source == "push")
        #expect(ferry.attribution.firstTouch?.target == "paywall")
        #expect(ferry.attribution.firstTouch?.linkID == "lnk_0123456789abcdefghijkl")
        #expect(ferry.attribution.lastTouch?.source == "sms")
        #expect(ferry.attribution.lastTouch?.landingPath == "/product/7")

        let names = events.all.map(\.name)
        #expect(names == [.deepLinkOpened, .firstTouchAttributed, .deepLinkOpened])
        let first = events.all[0].parameters
        #expect(first["url"] == "https://go.example.com/summer?utm_source=push&dl_target=Paywall")
        #expect(first["path"] == "/summer")
        #expect(first["utm_source"] == "push" && first["utm_campaign"] == "spring" && first["dl_target"] == "paywall")
        #expect(first["slug"] == "summer" && first["link_id"] == "lnk_0123456789abcdefghijkl")

        subscription.cancel()
        _ = try await ferry.handleDeepLink(URL(string: "myapp://x")!)
        #expect(events.all.count == 3, "a cancelled subscription hears nothing more")
    }

    @Test func theCompletionHandlerTwinAnswersOnTheMainActor() async throws {
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: Self.resolving()))
        let result: Result<DeepLink?, FerryError> = await withCheckedContinuation { continuation in
            ferry.handleDeepLink(URL(string: "https://go.example.com/summer")!) { result in
                MainActor.assertIsolated()
                continuation.resume(returning: result)
            }
        }
        #expect(try result.get()?.slug == "summer")

        let failing = try Ferry(apiKey: Kit.key, options: Kit.options(transport: ScriptedTransport { _ in .json(401, "{}") }))
        let failure: Result<DeepLink?, FerryError> = await withCheckedContinuation { continuation in
            failing.handleDeepLink(URL(string: "https://go.example.com/summer")!) { continuation.resume(returning: $0) }
        }
        #expect(throws: FerryError.self) { try failure.get() }
    }
}
