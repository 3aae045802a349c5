import FerryAPI
import FerryCore
@testable import FerryStore
import Foundation
import Testing

@Suite("Crowd counts")
struct CrowdCountsTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func query(window: TimeInterval = 86400, at date: Date = now, app: String = "app_1") -> CandidateQuery {
        CandidateQuery(appID: app, environment: .live, install: InstallEvidence(addressHash: nil, networkHash: nil, signals: DeviceSignals(), at: date), window: window)
    }

    @Test func largeCountsAreRememberedForAFewSecondsSmallOnesNever() {
        let counts = CrowdCounts()
        let key = CrowdCounts.key(Self.query(), platform: .iOS)
        counts.remember(CrowdCounts.rememberedFrom - 1, for: key, now: Self.now)
        #expect(counts.remembered(key, now: Self.now) == nil, "a small crowd is cheap to count: counted every time")
        counts.remember(500_000, for: key, now: Self.now)
        #expect(counts.remembered(key, now: Self.now.addingTimeInterval(9)) == 500_000)
        #expect(counts.remembered(key, now: Self.now.addingTimeInterval(CrowdCounts.lifetime)) == nil, "then counted again")
    }

    @Test func eachAppPlatformAndWindowHasItsOwnCount() {
        let counts = CrowdCounts()
        counts.remember(20_000, for: CrowdCounts.key(Self.query(), platform: .iOS), now: Self.now)
        #expect(counts.remembered(CrowdCounts.key(Self.query(), platform: .android), now: Self.now) == nil)
        #expect(counts.remembered(CrowdCounts.key(Self.query(), platform: nil), now: Self.now) == nil)
        #expect(counts.remembered(CrowdCounts.key(Self.query(window: 3600), platform: .iOS), now: Self.now) == nil)
        #expect(counts.remembered(CrowdCounts.key(Self.query(app: "app_2"), platform: .iOS), now: Self.now) == nil)
        // A later install of the same app asks with the same key.
        #expect(counts.remembered(CrowdCounts.key(Self.query(at: Self.now.addingTimeInterval(5)), platform: .iOS), now: Self.now.addingTimeInterval(5)) == 20_000)
    }
}
