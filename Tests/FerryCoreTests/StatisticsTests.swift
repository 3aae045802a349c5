import FerryAPI
@testable import FerryCore
import FerryTestSupport
import Foundation
import Testing

@Suite("Statistics", .takesTurns)
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
        let range = try StatsRange.parse(to: nil, days: nil, now: now).get()
        #expect(range.toDay - range.fromDay + 1 == 30)
        #expect(StatsRange.text(ofDay: range.toDay) == "2026-11-23")
        #expect(try StatsRange.parse(to: "2026-11-01", days: "1", now: now).get() == StatsRange(fromDay: 20_758, toDay: 20_758))
        #expect(try StatsRange.parse(to: nil, days: "7", now: now).get() == StatsRange(fromDay: range.toDay - 6, toDay: range.toDay))
        // Any day and any count make a range: the longest, ending on the first day there is, starts before it.
        #expect(try StatsRange.parse(to: "1970-01-01", days: "731", now: now).get() == StatsRange(fromDay: -730, toDay: 0))
        #expect(try StatsRange.parse(to: "9999-12-31", days: "731", now: now).get().toDay == StatsRange.day(from: "9999-12-31"))
        func field(_ to: String?, _ days: String?) -> String? {
            if case .failure(let error) = StatsRange.parse(to: to, days: days, now: now) { return error.field }
            return nil
        }
        #expect(field("yesterday", nil) == "to")
        #expect(field("2026-02-30", nil) == "to")
        for days in ["0", "732", "-1", "+7", "7.0", "1e2", "0007", "seven", "７"] {
            #expect(field(nil, days) == "days", "\(days)")
        }
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
        // No referrer and no campaign: those values are implied, not stored.
        #expect(counts.count == 4, "clicks and platform, for the link and for the app")
        #expect(counts[StatsKey(appID: "app_1", environment: .live, linkID: StatsKey.appWide, day: 3, metric: .clicks, dimension: StatsRollup.impliedDefaults)] == 1)
        #expect(counts[StatsKey(appID: "app_1", environment: .live, linkID: "lnk_1", day: 3, metric: .utmSource, dimension: "none")] == nil)
        var shared = click
        shared.referer = "https://t.co/x"
        shared.query = "utm_source=news"
        let sharedCounts = StatsRollup.increments(clicks: [shared]) { _ in UTMParameters(campaign: "spring") }
        #expect(sharedCounts.count == 10)
        #expect(sharedCounts[StatsKey(appID: "app_1", environment: .live, linkID: "lnk_1", day: 3, metric: .referrer, dimension: "t.co")] == 1)
        #expect(sharedCounts[StatsKey(appID: "app_1", environment: .live, linkID: "lnk_1", day: 3, metric: .utmCampaign, dimension: "spring")] == 1)
        #expect(Set(StatsRollup.visitors(clicks: [click]).map(\.linkID)) == ["lnk_1", StatsKey.appWide])
        #expect(StatsRollup.visitorHash(address: "a", userAgent: "b") != StatsRollup.visitorHash(address: "ab", userAgent: ""))
    }

    @Test func impliedValuesCountTheClicksNoStoredValueAccountsFor() {
        func row(_ day: Int, _ metric: StatsMetric, _ dimension: String, _ count: Int) -> StatsRow {
            StatsRow(day: day, metric: metric, dimension: dimension, count: count)
        }
        let rows = [
            // Day 10, the day of an upgrade: 3 clicks with every value stored, then 5 with implied defaults.
            row(10, .clicks, "", 3), row(10, .referrer, "direct", 2), row(10, .referrer, "twitter.com", 1),
            row(10, .utmSource, "none", 3),
            row(10, .clicks, StatsRollup.impliedDefaults, 5), row(10, .referrer, "t.co", 2),
            // Day 11: clicks from before referrers were counted at all: nothing is implied for them.
            row(11, .clicks, "", 4),
            // Day 12: implied defaults only.
            row(12, .clicks, StatsRollup.impliedDefaults, 2), row(12, .utmSource, "news", 1), row(12, .utmCampaign, "spring", 2),
        ]
        let report = StatsReport(rows: rows, range: StatsRange(fromDay: 10, toDay: 12), linkID: nil)
        #expect(report.totals.clicks == 14)
        #expect(report.referrers == ["direct": 2 + 3 + 2, "twitter.com": 1, "t.co": 2])
        #expect(report.utmSources == ["none": 3 + 5 + 1, "news": 1])
        #expect(report.utmMediums == ["none": 5 + 2])
        #expect(report.utmCampaigns == ["none": 5, "spring": 2])
    }
}
