import FerryTestSupport
import Testing
@testable import FerryAPI

@Suite("FerryRoutes", .takesTurns)
struct RoutesTests {
    @Test func pathsAreStable() {
        #expect(FerryRoutes.links == "/v1/links")
        #expect(FerryRoutes.link(id: "lnk_123") == "/v1/links/lnk_123")
        #expect(FerryRoutes.resolve(slug: "summer") == "/v1/links/resolve/summer")
        #expect(FerryRoutes.attributionMatch == "/v1/attribution/match")
        #expect(FerryRoutes.sdkValidate == "/v1/sdk/validate")
        #expect(FerryRoutes.events == "/v1/events")
        #expect(FerryRoutes.appleAppSiteAssociation == "/.well-known/apple-app-site-association")
        #expect(FerryRoutes.assetLinks == "/.well-known/assetlinks.json")
    }
}
