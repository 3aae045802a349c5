import FerryAPI
@testable import FerryCore
import Foundation
import Testing

@Suite("Statistics")
struct StatisticsTests {
    @Test func daysAreWrittenAndReadAsCalendarDates() {
        #expect(StatsRange.day(from: "1970-01-01") == 0)
        #expect(StatsRange.day(from: "2026-11-23") == StatsRollup.day(of: Date(timeIntervalSince1970: 1_795_392_000)))
        #expect(StatsRange.day(from: "2024-02-29") != nil)
        for bad in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-11-23", "2026-11-23T00:00", "１２３４-11-23", "1969-12-31", ""] {
            #expect(StatsRange.day(from: bad) == nil, "\(bad)")
        }
        for day in [0, 59, 60, 365, 10_957, 20_415, 2_932_896] {
            #expect(StatsRange.day(from: StatsRange.text(ofDay: day)) == day)
        }
        #expect(StatsRange.text(ofDay: 20_415) == "2025-11-23")
        #expect(StatsRange.text(ofDay: 20_780) == "2026-11-23")
    }

    @Test func rangesDefaultToThirtyDaysAndRefuseNonsenseByName() throws {
        let now = Date(timeIntervalSince1970: 1_795_392_000 + 3600)
        let range = try StatsRange.parse(from: nil, to: nil, now: now).get()
        #expect(range.toDay - range.fromDay + 1 == 30)
        #expect(StatsRange.text(ofDay: range.toDay) == "2026-11-23")
        #expect(try StatsRange.parse(from: "2026-11-01", to: "2026-11-01", now: now).get() == StatsRange(fromDay: 20_758, toDay: 20_758))
        func field(_ from: String?, _ to: String?) -> String? {
            if case .failure(let error) = StatsRange.parse(from: from, to: to, now: now) { return error.field }
            return nil
        }
        #expect(field("2026-11-02", "2026-11-01") == "from")
        #expect(field("yesterday", nil) == "from")
        #expect(field(nil, "2026-02-30") == "to")
        #expect(field("2020-01-01", "2026-01-01") == "from", "over two years is refused")
    }

    @Test func referrersAreHostsWithoutWww() {
        #expect(StatsRollup.referrerHost("https://WWW.Google.com/search?q=x") == "google.com")
        #expect(StatsRollup.referrerHost("android-app://com.slack/") == "com.slack")
        #expect(StatsRollup.referrerHost(nil) == "direct")
        #expect(StatsRollup.referrerHost("not a url") == "direct")
        #expect(StatsRollup.dimension("  ") == "none")
        #expect(StatsRollup.dimension(String(repeating: "x", count: 500)).count == StatsRollup.maxDimensionLength)
    }

    @Test func everyIncrementAlsoCountsForTheAppsTotals() {
        let click = Click(id: "c1", linkID: "lnk_1", appID: "app_1", environment: .live, createdAt: Date(timeIntervalSince1970: 86400 * 3 + 5),
                          ipHash: "h", networkHash: nil, userAgent: "UA", platform: .iOS, referer: nil, query: nil, acceptLanguage: nil)
        let counts = StatsRollup.increments(clicks: [click]) { _ in nil }
        #expect(counts.count == 12, "six cells for the link, six for the app")
        #expect(counts[StatsKey(appID: "app_1", environment: .live, linkID: StatsKey.appWide, day: 3, metric: .clicks)] == 1)
        #expect(counts[StatsKey(appID: "app_1", environment: .live, linkID: "lnk_1", day: 3, metric: .utmSource, dimension: "none")] == 1)
        #expect(Set(StatsRollup.visitors(clicks: [click]).map(\.linkID)) == ["lnk_1", StatsKey.appWide])
        #expect(StatsRollup.visitorHash(address: "a", userAgent: "b") != StatsRollup.visitorHash(address: "ab", userAgent: ""))
    }
}
