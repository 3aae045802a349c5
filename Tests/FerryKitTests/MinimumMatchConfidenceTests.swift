@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Ferry: the least confidence of a deferred deep link match", .takesTurns)
struct MinimumMatchConfidenceTests {
    /// The match request, as sent by a first launch with `minimum`.
    func firstMatchRequest(minimum: Double?) async throws -> URLRequest {
        let transport = DeferredDeepLinkTests.matching()
        var options = Kit.options(transport: transport)
        options.minimumMatchConfidence = minimum
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        _ = try await ferry.checkDeferredDeepLink()
        return try #require(transport.sent(path: FerryRoutes.attributionMatch).first)
    }

    @Test func theMinimumIsSentAsMinConfidence() async throws {
        let request = try await firstMatchRequest(minimum: 0.6)
        #expect(try Kit.body(request, as: MatchRequest.self).minConfidence == 0.6)
        let json = try #require(try JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: Any])
        #expect(json.keys.sorted() == ["clickToken", "installID", "installationID", "minConfidence", "referrer", "signals"])
        #expect(json["minConfidence"] as? Double == 0.6)
    }

    @Test func withoutOneTheBodyIsAsBefore() async throws {
        let request = try await firstMatchRequest(minimum: nil)
        let json = try #require(try JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: Any])
        #expect(json.keys.sorted() == ["clickToken", "installID", "installationID", "referrer", "signals"])
    }

    @Test(arguments: [0.4, 0.75, 1])
    func aMinimumFromPointFourToOneIsTaken(minimum: Double) throws {
        var options = Kit.options(transport: ScriptedTransport())
        options.minimumMatchConfidence = minimum
        #expect(try Ferry(apiKey: Kit.key, options: options).options.minimumMatchConfidence == minimum)
    }

    @Test(arguments: [0.39, 1.01, 0, -1, 85, .nan, .infinity, -.infinity])
    func anythingElseIsRefusedAtConfigure(minimum: Double) {
        var options = Kit.options(transport: ScriptedTransport())
        options.minimumMatchConfidence = minimum
        #expect {
            try Ferry(apiKey: Kit.key, options: options)
        } throws: { error in
            let error = error as? FerryError
            return error?.code == .invalidConfiguration && error?.field == "minimumMatchConfidence"
        }
    }
}
