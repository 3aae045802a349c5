@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing

@Suite("What the Objective-C facade hands out", .takesTurns)
struct ObjectiveCBridgeTests {
    static let allCodes: [FerryError.Code] = [
        .invalidAPIKey, .secretKeyInApp, .invalidConfiguration, .notConfigured, .invalidArgument, .network, .timeout, .unauthorized,
        .forbidden, .badRequest, .notFound, .rateLimited, .server, .invalidResponse, .cancelled, .disabled,
    ]

    @Test func everyCodeHasItsOwnStableNumber() {
        #expect(Self.allCodes.map(\.number) == Array(1...16), "numbers never change meaning")
        #expect(Set(FerryError.Code.numbered.map(\.number)).count == FerryError.Code.numbered.count)
        #expect(FerryError.Code.numbered.map(\.code) == Self.allCodes)
    }

    @Test func aFerryErrorIsAnNSErrorWithItsDomainCodeAndDetails() throws {
        let underlying = URLError(.timedOut)
        let error = FerryError(.badRequest, "POST /v1/links failed with HTTP 400: bad destination", httpStatus: 400, serverCode: .invalidField,
                               field: "destination", underlying: underlying)
        let bridged = error as NSError
        #expect(bridged.domain == "dev.ferry.FerryKit")
        #expect(bridged.code == 10)
        #expect(bridged.localizedDescription == "POST /v1/links failed with HTTP 400: bad destination")
        #expect(bridged.userInfo[FerryError.codeNameUserInfoKey] as? String == "bad_request")
        #expect(bridged.userInfo[FerryError.httpStatusUserInfoKey] as? Int == 400)
        #expect(bridged.userInfo[FerryError.serverCodeUserInfoKey] as? String == "invalid_field")
        #expect(bridged.userInfo[FerryError.fieldUserInfoKey] as? String == "destination")
        let inner = try #require(bridged.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(inner.code == URLError.timedOut.rawValue)

        let bare = FerryError(.notConfigured, "Ferry.identify was called before Ferry.configure(apiKey:options:)") as NSError
        #expect(bare.code == 4)
        #expect(Set(bare.userInfo.keys) == [NSLocalizedDescriptionKey, FerryError.codeNameUserInfoKey])
    }

    @Test func aLinkIsADictionaryReadyForJSON() throws {
        let link = DeepLink(link: Kit.linkData(), openedURL: URL(string: "https://go.example.com/summer?utm_medium=push&coupon=X")!,
                            deferred: MatchResponse(matched: true, matchType: .probabilistic, confidence: 0.93, isDeferred: true, link: Kit.linkData()))
        let value = ObjectiveCBridge.dictionary(for: link)
        #expect(value["url"] as? String == "https://go.example.com/summer?utm_medium=push&coupon=X")
        #expect(value["slug"] as? String == "summer")
        #expect(value["linkID"] as? String == "lnk_0123456789abcdefghijkl")
        #expect(value["destination"] as? String == "https://example.com/sale")
        #expect(value["iosURL"] as? String == "myapp://product/42")
        #expect(value["params"] as? [String: String] == ["productID": "42", "coupon": "X"])
        #expect(value["utm"] as? [String: String] == ["source": "newsletter", "medium": "push", "campaign": "spring"])
        #expect(value["campaign"] as? String == "spring-sale")
        #expect(value["referrer"] as? String == "user-7")
        #expect(value["isDeferred"] as? Bool == true)
        #expect(value["matchType"] as? String == "probabilistic")
        #expect(value["confidence"] as? Double == 0.93)
        #expect(value["source"] as? String == "deferred")
        #expect(value["minimumAppVersion"] == nil, "absent values are left out")
        #expect(JSONSerialization.isValidJSONObject(value))

        let scheme = ObjectiveCBridge.dictionary(for: DeepLink(customSchemeURL: URL(string: "myapp://product/9")!))
        #expect(Set(scheme.keys) == ["url", "iosURL", "params", "isDeferred", "source"])
        #expect(scheme["isDeferred"] as? Bool == false)
        #expect(JSONSerialization.isValidJSONObject(scheme))
    }

    @Test func anAttributionIsADictionaryWithItsLink() {
        let link = DeepLink(link: Kit.linkData(), openedURL: nil, deferred: nil)
        let value = ObjectiveCBridge.dictionary(for: UserAttribution(userID: "user-1", attributed: true, matchType: .deterministic,
                                                                     confidence: 1, link: link))
        #expect(value["userID"] as? String == "user-1")
        #expect(value["attributed"] as? Bool == true && value["boundToThisInstall"] as? Bool == true)
        #expect(value["matchType"] as? String == "deterministic")
        #expect((value["link"] as? [String: Any])?["slug"] as? String == "summer")
        #expect(JSONSerialization.isValidJSONObject(value))
        let none = ObjectiveCBridge.dictionary(for: UserAttribution(userID: "u", attributed: false, boundToThisInstall: false))
        #expect(Set(none.keys) == ["userID", "attributed", "boundToThisInstall"])
    }

    @Test func theFacadesOptionsBecomeFerryOptions() throws {
        var values = ObjectiveCOptions(serverURL: URL(string: "https://links.example.com")!)
        values.linkDomains = ["go.example.com"]
        values.urlSchemes = ["myapp"]
        values.logLevel = 0
        values.networkTimeout = 4
        values.validatesKeyOnLaunch = false
        let options = try values.ferryOptions()
        #expect(options.serverURL.absoluteString == "https://links.example.com")
        #expect(options.linkDomains == ["go.example.com"] && options.urlSchemes == ["myapp"])
        #expect(options.logLevel == .debug && options.networkTimeout == 4 && !options.validatesKeyOnLaunch)
        #expect(options.clickTokenProvider == nil && options.minimumMatchConfidence == nil && options.recognizesReinstalls)
        values.recognizesReinstalls = false
        #expect(try !values.ferryOptions().recognizesReinstalls)
        values.minimumMatchConfidence = 0.6
        #expect(try values.ferryOptions().minimumMatchConfidence == 0.6)
        // Refused by configure, as in Swift.
        values.minimumMatchConfidence = 0.39
        #expect(throws: FerryError.self) { try Ferry(apiKey: Kit.key, options: values.ferryOptions()) }
        values.minimumMatchConfidence = nil
        let defaults = try ObjectiveCOptions(serverURL: URL(string: "https://links.example.com")!).ferryOptions()
        #expect(defaults.logLevel == .warning && defaults.networkTimeout == 10 && defaults.validatesKeyOnLaunch)
        for level in [-1, 5, Int.max] {
            values.logLevel = level
            #expect { try values.ferryOptions() } throws: { ($0 as? FerryError)?.field == "logLevel" }
        }
        // A server URL FerryKit refuses is refused by configure, as in Swift.
        #expect(throws: FerryError.self) {
            try Ferry(apiKey: Kit.key, options: ObjectiveCOptions(serverURL: URL(string: "ftp://links.example.com")!).ferryOptions())
        }
    }
}
