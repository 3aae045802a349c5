#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryStore
import FerryTestSupport
import Foundation
import Testing

@Suite("Crowd counts", .takesTurns)
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

    @Test func oneCallerRecountsAnOldCountWhileTheOthersUseIt() {
        let counts = CrowdCounts()
        let key = CrowdCounts.key(Self.query(), platform: .iOS)
        counts.remember(500_000, for: key, now: Self.now)
        let later = Self.now.addingTimeInterval(CrowdCounts.lifetime + 1)
        #expect(counts.remembered(key, now: later) == nil, "the first to find it old counts again")
        #expect(counts.remembered(key, now: later) == 500_000, "the others use the old count meanwhile")
        #expect(counts.remembered(key, now: later.addingTimeInterval(1)) == 500_000)
        counts.remember(510_000, for: key, now: later.addingTimeInterval(2))
        #expect(counts.remembered(key, now: later.addingTimeInterval(3)) == 510_000, "the new count replaces it")
    }

    @Test func aFailedRecountIsTakenOverAndAVeryOldCountIsNotUsed() {
        let counts = CrowdCounts()
        let key = CrowdCounts.key(Self.query(), platform: .iOS)
        counts.remember(500_000, for: key, now: Self.now)
        let later = Self.now.addingTimeInterval(CrowdCounts.lifetime + 1)
        #expect(counts.remembered(key, now: later) == nil)
        // The counter never came back: once its claim is as old as a count's lifetime, another caller counts.
        let muchLater = later.addingTimeInterval(CrowdCounts.lifetime)
        #expect(counts.remembered(key, now: muchLater) == nil)
        #expect(counts.remembered(key, now: muchLater) == 500_000)
        // Past the stale limit nobody uses it: every caller counts.
        let tooLate = Self.now.addingTimeInterval(CrowdCounts.staleLimit)
        #expect(counts.remembered(key, now: tooLate) == nil)
        #expect(counts.remembered(key, now: tooLate) == nil)
        // A crowd that shrank below the threshold is forgotten, and counted every time.
        counts.remember(CrowdCounts.rememberedFrom - 1, for: key, now: tooLate)
        #expect(counts.remembered(key, now: tooLate) == nil)
        #expect(counts.remembered(key, now: tooLate) == nil)
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
#endif
