@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing

@Suite("Logging: levels, categories and private values", .takesTurns)
struct LoggingTests {
    @Test func interpolatedTextIsPrivateUnlessMarkedAndNumbersArePublic() {
        let url = URL(string: "https://go.example.com/summer")!
        let message: FerryLogMessage = "opened \(url) after \(3) tries (\("retry", privacy: .public)) for \("inst-1")"
        #expect(message.text == "opened https://go.example.com/summer after 3 tries (retry) for inst-1")
        #expect(message.redacted == "opened <private> after 3 tries (retry) for <private>")
        #expect(message.privateValues == ["https://go.example.com/summer", "inst-1"])
        #expect(message.runs.count == 5, "public and private runs alternate, public first and last")
        #expect(message.runs.last == "")

        let plain: FerryLogMessage = "first launch of this install"
        #expect(plain.runs == ["first launch of this install"])
        #expect(FerryLogMessage(public: "GET /v1/links failed").redacted == "GET /v1/links failed")
        let adjacent: FerryLogMessage = "\("a")\("b") \(0.5)"
        #expect(adjacent.runs == ["", "ab", " 0.5"])
        let empty: FerryLogMessage = "x\("")y"
        #expect(empty.runs == ["xy"], "an empty private value leaves no <private> behind")
    }

    @Test func theLevelFiltersAndEachAreaWritesInItsCategory() {
        let lines = Collector<String>()
        let seen = Collector<FerryLogger.Category>()
        let logger = FerryLogger(level: .info, handler: { level, text in lines.append("\(level) \(text)") },
                                 recorder: { _, category, _ in seen.append(category) })
        logger.debug("hidden")
        logger.category(.network).info("GET \("/v1/links/resolve/summer")")
        logger.category(.deferred).warning(String("plain text"))
        #expect(lines.all == ["info GET /v1/links/resolve/summer", "warning plain text"], "a logHandler gets whole lines")
        #expect(seen.all == [.network, .deferred])
        let silent = FerryLogger(level: .none, handler: { _, text in lines.append(text) })
        silent.error("nothing")
        #expect(lines.all.count == 2)
    }

    @Test func urlsInstallIDsUserIDsAndLinkIDsArePrivateInTheUnifiedLog() async throws {
        let recorded = Collector<(FerryLogger.Category, FerryLogMessage)>()
        let transport = ScriptedTransport { request in
            switch request.url?.path {
            case FerryRoutes.attributionMatch?:
                return .encoded(MatchResponse(matched: true, matchType: .probabilistic, confidence: 0.9, isDeferred: true, link: Kit.linkData()))
            case FerryRoutes.resolve(slug: "summer")?:
                return .encoded(ResolveResponse(link: Kit.linkData()))
            case FerryRoutes.attributionUser?:
                return .encoded(AttributeUserResponse(userID: "user-81723", attributed: true))
            default:
                return .json(404, #"{"error":{"code":"not_found","message":"no route","field":null}}"#)
            }
        }
        var options = Kit.options(transport: transport)
        options.logLevel = .debug
        options.logRecorder = { _, category, message in recorded.append((category, message)) }
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        _ = try await ferry.checkDeferredDeepLink()
        _ = try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer?coupon=SAVE10")!)
        _ = try await ferry.identify(userID: "user-81723")
        let installID = await ferry.installID()

        let messages = recorded.all
        let secrets = [installID, "user-81723", "lnk_0123456789abcdefghijkl", "go.example.com/summer"]
        for secret in secrets {
            #expect(messages.contains { $0.1.text.contains(secret) }, "\(secret) is logged")
            #expect(!messages.contains { $0.1.redacted.contains(secret) }, "\(secret) is shown in the unified log")
        }
        #expect(messages.contains { $0.0 == .deferred && $0.1.redacted.hasPrefix("install <private> matched to link <private>") })
        #expect(messages.contains { $0.0 == .users && $0.1.redacted == "user <private> bound to install <private>: attributed" })
        #expect(messages.contains { $0.0 == .network })
    }
}
