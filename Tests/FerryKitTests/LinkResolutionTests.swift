@testable import FerryKit
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the resolve requests carry.
@Suite("Ferry: resolve requests")
struct ResolveRequestTests {
    static let longLink = URL(string: "https://go.example.com/?link=https%3A%2F%2Fexample.com%2Fitem%3Fid%3D7&ibi=com.example.app"
                              + "&utm_source=mail&utm_campaign=spring&gclid=g1&imv=2.1&ref=friend")!

    @Test func theInstallIDGoesInAHeaderOfEveryResolveNeverInTheQuery() async throws {
        let transport = ScriptedTransport { _ in .encoded(ResolveResponse(link: Kit.linkData())) }
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        _ = try #require(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer?installID=spoofed")!))
        _ = try #require(try await ferry.handleDeepLink(Self.longLink))
        let short = try #require(transport.sent(path: FerryRoutes.resolve(slug: "summer")).first)
        let long = try #require(transport.sent(path: FerryRoutes.resolveURL).first)
        #expect(Kit.query(long)["url"] == Self.longLink.absoluteString)
        for request in [short, long] {
            #expect(request.value(forHTTPHeaderField: "X-Ferry-Install-ID") == FixedSignals().idfv)
            #expect(Kit.query(request)["installID"] == nil)
            #expect(request.url?.absoluteString.contains(FixedSignals().idfv!) == false)
        }
    }
}
