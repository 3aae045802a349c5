/// Statistics of a link or of an app over a range of days, read from daily roll-ups.
///
/// `GET /v1/links/{id}/stats?to=2026-11-30&days=30` or `GET /v1/stats?to=…&days=…` (secret key): the `days` days
/// (1 to 731) that end with `to`. Days are UTC; both ends are included; without a range, the last 30 days.
public struct StatsReport: Codable, Sendable, Hashable {
    /// First day, `YYYY-MM-DD`.
    public var from: String
    /// Last day, included.
    public var to: String
    /// The link, or nil for a whole app.
    public var linkID: String?
    /// Sums over the range.
    public var totals: StatsTotals
    /// Clicks by platform: `ios`, `android`, `desktop`, `bot`, `other`.
    public var platforms: [String: Int]
    /// Clicks by referring host (`direct` without a Referer).
    public var referrers: [String: Int]
    /// Clicks by `utm_source` (`none` without one).
    public var utmSources: [String: Int]
    /// Clicks by `utm_medium`.
    public var utmMediums: [String: Int]
    /// Clicks by `utm_campaign`.
    public var utmCampaigns: [String: Int]
    /// SDK events by name, custom ones included.
    public var events: [String: Int]
    /// One entry per day of the range, oldest first, days without anything included.
    public var days: [StatsDay]

    /// Creates a report.
    public init(from: String, to: String, linkID: String?, totals: StatsTotals, platforms: [String: Int], referrers: [String: Int],
                utmSources: [String: Int], utmMediums: [String: Int], utmCampaigns: [String: Int], events: [String: Int], days: [StatsDay]) {
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
public struct StatsTotals: Codable, Sendable, Hashable {
    /// Clicks, bots included.
    public var clicks: Int
    /// Distinct visitors per day (address and user agent), summed over the days; bots are not visitors.
    public var uniqueVisitors: Int
    /// Installs attributed to links (deterministic + probabilistic).
    public var installs: Int
    /// Installs matched by a token, a store referrer or an earlier answer.
    public var deterministicInstalls: Int
    /// Installs matched by the probabilistic matcher.
    public var probabilisticInstalls: Int
    /// First launches that matched no link (app-wide reports only; 0 for a link).
    public var organicInstalls: Int
    /// Times the app was opened by a link (`link_open`, `open` and compatibility `link_stats` events).
    public var opens: Int
    /// `reinstall` events.
    public var reinstalls: Int
    /// Events with names of the app's own.
    public var customEvents: Int

    /// Creates totals.
    public init(clicks: Int = 0, uniqueVisitors: Int = 0, installs: Int = 0, deterministicInstalls: Int = 0, probabilisticInstalls: Int = 0,
                organicInstalls: Int = 0, opens: Int = 0, reinstalls: Int = 0, customEvents: Int = 0) {
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
public struct StatsDay: Codable, Sendable, Hashable {
    /// The day, `YYYY-MM-DD` (UTC).
    public var date: String
    /// Clicks.
    public var clicks: Int
    /// Distinct visitors.
    public var uniqueVisitors: Int
    /// Installs attributed to links.
    public var installs: Int
    /// Opens by a link.
    public var opens: Int

    /// Creates a day.
    public init(date: String, clicks: Int = 0, uniqueVisitors: Int = 0, installs: Int = 0, opens: Int = 0) {
        self.date = date
        self.clicks = clicks
        self.uniqueVisitors = uniqueVisitors
        self.installs = installs
        self.opens = opens
    }
}
