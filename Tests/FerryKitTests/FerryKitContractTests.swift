import FerryKit
import FerryTestSupport
import Foundation
import Testing

@Suite("FerryKit's view of the wire contract", .takesTurns)
struct FerryKitContractTests {
    @Test func appsSeeTheKeyFormatsThroughFerryKit() {
        #expect(APIKeyFormat(parsing: "fk_live_" + String(repeating: "A", count: 32))?.kind == .publishable)
        #expect(APIKeyFormat(parsing: "fs_test_" + String(repeating: "9", count: 32))?.kind == .secret)
        #expect(APIKeyFormat(parsing: "fk_live_short") == nil)
    }

    @Test func routesAreTheServersRoutes() {
        #expect(FerryRoutes.resolve(slug: "spring") == "/v1/links/resolve/spring")
        #expect(FerryRoutes.attributionMatch == "/v1/attribution/match")
    }
}
