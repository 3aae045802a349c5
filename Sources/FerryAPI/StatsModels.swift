/// Statistics of a link or of an app over a range of days, read from daily roll-ups.
///
/// `GET /v1/links/{id}/stats?to=2026-11-30&days=30` or `GET /v1/stats?to=…&days=…` (secret key): the `days` days
/// (1 to 731) that end with `to`. Days are UTC; both ends are included; without a range, the last 30 days.
package struct StatsReport: Codable, Sendable, Hashable {
    /// First day, `YYYY-MM-DD`.
    package var from: String
    /// Last day, included.
    package var to: String
    /// The link, or nil for a whole app.
    package var linkID: String?
    /// Sums over the range.
    package var totals: StatsTotals
    /// People's clicks by platform: `ios`, `android`, `desktop`, `other`.
    package var platforms: [String: Int]
    /// Clicks by referring host (`direct` without a Referer).
    package var referrers: [String: Int]
    /// Clicks by `utm_source` (`none` without one).
    package var utmSources: [String: Int]
    /// Clicks by `utm_medium`.
    package var utmMediums: [String: Int]
    /// Clicks by `utm_campaign`.
    package var utmCampaigns: [String: Int]
    /// SDK events by name, custom ones included.
    package var events: [String: Int]
    /// Clicks answered but left out of every other figure, by who made them: `bot` (crawlers, link previews,
    /// monitors, HTTP libraries), `prefetch` (a browser fetching ahead), `scanner` (email security services).
    package var filtered: [String: Int]
    /// One entry per day of the range, oldest first, days without anything included.
    package var days: [StatsDay]

    /// Creates a report.
    package init(from: String, to: String, linkID: String?, totals: StatsTotals, platforms: [String: Int], referrers: [String: Int],
                utmSources: [String: Int], utmMediums: [String: Int], utmCampaigns: [String: Int], events: [String: Int], filtered: [String: Int] = [:], days: [StatsDay]) {
        self.filtered = filtered
        self.from = from
        self.to = to
        self.linkID = linkID
        self.totals = totals
        self.platforms = platforms
        self.referrers = referrers
        self.utmSources = utmSources
        self.utmMediums = utmMediums
        self.utmCampaigns = utmCampaigns
        self.events = events
        self.days = days
    }
}

/// Sums of a statistics report.
package struct StatsTotals: Codable, Sendable, Hashable {
    /// People's clicks.
    package var clicks: Int
    /// Distinct people per day (address and user agent), summed over the days.
    package var uniqueVisitors: Int
    /// Installs attributed to links (deterministic + probabilistic).
    package var installs: Int
    /// Installs matched by a token, a store referrer or an earlier answer.
    package var deterministicInstalls: Int
    /// Installs matched by the probabilistic matcher.
    package var probabilisticInstalls: Int
    /// First launches that matched no link (app-wide reports only; 0 for a link).
    package var organicInstalls: Int
    /// Times the app was opened by a link (`link_open`, `open` and compatibility `link_stats` events).
    package var opens: Int
    /// `reinstall` events.
    package var reinstalls: Int
    /// Events with names of the app's own.
    package var customEvents: Int
    /// Clicks of bots, prefetches and scanners: answered, and counted nowhere else.
    package var filteredClicks: Int

    /// Creates totals.
    package init(clicks: Int = 0, uniqueVisitors: Int = 0, installs: Int = 0, deterministicInstalls: Int = 0, probabilisticInstalls: Int = 0,
                organicInstalls: Int = 0, opens: Int = 0, reinstalls: Int = 0, customEvents: Int = 0, filteredClicks: Int = 0) {
        self.filteredClicks = filteredClicks
        self.clicks = clicks
        self.uniqueVisitors = uniqueVisitors
        self.installs = installs
        self.deterministicInstalls = deterministicInstalls
        self.probabilisticInstalls = probabilisticInstalls
        self.organicInstalls = organicInstalls
        self.opens = opens
        self.reinstalls = reinstalls
        self.customEvents = customEvents
    }
}

/// One day of a statistics report.
package struct StatsDay: Codable, Sendable, Hashable {
    /// The day, `YYYY-MM-DD` (UTC).
    package var date: String
    /// People's clicks.
    package var clicks: Int
    /// Distinct people.
    package var uniqueVisitors: Int
    /// Installs attributed to links.
    package var installs: Int
    /// Opens by a link.
    package var opens: Int
    /// Clicks of bots, prefetches and scanners.
    package var filteredClicks: Int

    /// Creates a day.
    package init(date: String, clicks: Int = 0, uniqueVisitors: Int = 0, installs: Int = 0, opens: Int = 0, filteredClicks: Int = 0) {
        self.filteredClicks = filteredClicks
        self.date = date
        self.clicks = clicks
        self.uniqueVisitors = uniqueVisitors
        self.installs = installs
        self.opens = opens
    }
}
