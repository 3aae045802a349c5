import FerryTestSupport
import Foundation
import Testing
@testable import FerryAPI

@Suite(.takesTurns) struct MatchRequestTests {
    static let signals = DeviceSignals(
        platform: "ios", osVersion: "18.1", model: "iPhone16,1", screenWidth: 393, screenHeight: 852, screenScale: 3,
        timeZone: "America/New_York", timeZoneOffsetSeconds: -18000, languages: ["en-US"])

    func encoded(_ request: MatchRequest) throws -> String {
        String(decoding: try FerryJSON.makeEncoder().encode(request), as: UTF8.self)
    }

    /// Without a minimum, the body is the one SDKs have always sent, byte for byte.
    @Test func withoutAMinimumTheBodyIsUnchanged() throws {
        let body = try encoded(MatchRequest(installID: "IDFV-1", signals: Self.signals))
        #expect(body == #"{"clickToken":null,"installID":"IDFV-1","referrer":null,"signals":{"languages":["en-US"],"model":"iPhone16,1","#
            + #""osVersion":"18.1","platform":"ios","screenHeight":852,"screenScale":3,"screenWidth":393,"timeZone":"America/New_York","#
            + #""timeZoneOffsetSeconds":-18000}}"#)
        let token = try encoded(MatchRequest(installID: "IDFV-1", signals: DeviceSignals(), clickToken: "ferry:clk_A", referrer: "r"))
        #expect(token == #"{"clickToken":"ferry:clk_A","installID":"IDFV-1","referrer":"r","signals":{}}"#)
    }

    @Test func aMinimumIsSentWhenSetAndReadBack() throws {
        let request = MatchRequest(installID: "IDFV-1", signals: DeviceSignals(), minConfidence: 0.6)
        #expect(try encoded(request) == #"{"clickToken":null,"installID":"IDFV-1","minConfidence":0.6,"referrer":null,"signals":{}}"#)
        #expect(try FerryJSON.makeDecoder().decode(MatchRequest.self, from: FerryJSON.makeEncoder().encode(request)) == request)
        for (text, minimum) in [(#"{"installID":"a","signals":{}}"#, nil), (#"{"installID":"a","signals":{},"minConfidence":null}"#, nil),
                                (#"{"installID":"a","signals":{},"minConfidence":1}"#, 1.0 as Double?)] {
            #expect(try FerryJSON.makeDecoder().decode(MatchRequest.self, from: Data(text.utf8)).minConfidence == minimum, "\(text)")
        }
        #expect(MatchRequest.minConfidenceRange == 0.4...1)
    }
}
