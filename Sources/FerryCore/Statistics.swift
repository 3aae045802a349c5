import FerryAPI
import Foundation

/// What a statistics roll-up row counts.
package enum StatsMetric: String, Sendable, Hashable, CaseIterable {
    /// People's clicks (dimension empty, or ``StatsRollup/impliedDefaults``).
    case clicks
    /// Distinct people of a day (dimension empty).
    case visitors
    /// People's clicks by platform (`ios`, `android`, `desktop`, `other`; `bot` in days counted before clicks had a
    /// kind).
    case platform
    /// Clicks by the referring site's host (`direct` without one).
    case referrer
    /// Clicks by `utm_source` (the click's own over the link's; `none` without one).
    case utmSource = "utm_source"
    /// Clicks by `utm_medium`.
    case utmMedium = "utm_medium"
    /// Clicks by `utm_campaign`.
    case utmCampaign = "utm_campaign"
    /// Installs by how they were matched (`deterministic`, `probabilistic`, `organic`).
    case installs
    /// SDK events by name (`install`, `open`, `reinstall`, `link_open`, custom names).
    case events
    /// Clicks answered but not counted, by who made them (`bot`, `prefetch`, `scanner`: ``ClickTraffic``).
    case filtered
}

/// One cell of the daily roll-up: a count for an app, environment, link (empty for none), UTC day, metric and value.
package struct StatsKey: Sendable, Hashable {
    /// The app.
    package var appID: String
    /// Live or test.
    package var environment: APIEnvironment
    /// The link; "" for what belongs to no link (organic installs, events without a link); ``appWide`` for the
    /// app's totals, which every increment also adds to (so an app's report reads as few rows as a link's).
    package var linkID: String
    /// Days since 1970-01-01 (UTC).
    package var day: Int
    /// What is counted.
    package var metric: StatsMetric
    /// The value counted under the metric ("" for plain counts).
    package var dimension: String

    /// The link id of an app's totals.
    package static let appWide = "*"

    /// Creates a key.
    package init(appID: String, environment: APIEnvironment, linkID: String, day: Int, metric: StatsMetric, dimension: String = "") {
        self.appID = appID
        self.environment = environment
        self.linkID = linkID
        self.day = day
        self.metric = metric
        self.dimension = dimension
    }
}

/// A visitor seen on a day, for counting distinct visitors: per link, and app-wide under ``StatsKey/appWide``.
package struct VisitorKey: Sendable, Hashable {
    /// The app.
    package var appID: String
    /// Live or test.
    package var environment: APIEnvironment
    /// The link, or ``StatsKey/appWide``.
    package var linkID: String
    /// Days since 1970-01-01 (UTC).
    package var day: Int
    /// A hash of the click's (already keyed-hashed) address and user agent.
    package var visitor: String

    /// The roll-up cell a new visitor adds one to.
    package var statsKey: StatsKey { StatsKey(appID: appID, environment: environment, linkID: linkID, day: day, metric: .visitors) }
}

/// Turns clicks, installs and events into roll-up increments. Statistics are read from the roll-up only, so a
/// report costs the number of days and values asked for, not the number of clicks.
package enum StatsRollup {
    /// Longest dimension value kept (a referrer host, a UTM value, an event name); longer ones are cut.
    package static let maxDimensionLength = 100
    /// The referrer of a click without one.
    package static let directReferrer = "direct"
    /// A UTM value a click does not have.
    package static let noValue = "none"
    /// The `clicks` dimension of clicks whose `direct` referrer and `none` UTM values are not stored but implied:
    /// such a value counts the clicks that no stored value of its metric accounts for. Clicks counted before this
    /// (dimension "") had every value stored.
    package static let impliedDefaults = "implied"

    /// Days since 1970-01-01 (UTC) of a date.
    package static func day(of date: Date) -> Int {
        Int((date.timeIntervalSince1970 / 86400).rounded(.down))
    }

    /// The start of a day number.
    package static func date(ofDay day: Int) -> Date {
        Date(timeIntervalSince1970: Double(day) * 86400)
    }

    /// The increments of a batch of clicks, with the UTM parameters of each click's link (the click's own
    /// `utm_*` query parameters win over them).
    package static func increments(clicks: [Click], linkUTM: (Click) -> UTMParameters?) -> [StatsKey: Int] {
        // Clicks alike in every counted respect are grouped first (one hash per click), then each group is spread
        // over its counters; referrer hosts are parsed once per distinct Referer.
        struct Group: Hashable {
            var appID: String, environment: APIEnvironment, linkID: String, day: Int, platform: ClientPlatform
            var referrer: String, source: String, medium: String, campaign: String
        }
        var groups: [Group: Int] = [:]
        var hosts: [String: String] = [:]
        var counts: [StatsKey: Int] = [:]
        for click in clicks {
            guard click.traffic == .person else {
                // Answered, and counted apart: nothing else of it reaches the people's figures.
                for linkID in [click.linkID, StatsKey.appWide] {
                    counts[StatsKey(appID: click.appID, environment: click.environment, linkID: linkID, day: day(of: click.createdAt),
                                    metric: .filtered, dimension: click.traffic.rawValue), default: 0] += 1
                }
                continue
            }
            let query = click.query.map { QueryString($0) }
            let utm = linkUTM(click)
            let referrer: String
            if let referer = click.referer {
                if let known = hosts[referer] { referrer = known } else {
                    referrer = referrerHost(referer)
                    hosts[referer] = referrer
                }
            } else {
                referrer = "direct"
            }
            let group = Group(
                appID: click.appID, environment: click.environment, linkID: click.linkID, day: day(of: click.createdAt), platform: click.platform,
                referrer: referrer, source: dimension(query?.value(of: "utm_source") ?? utm?.source),
                medium: dimension(query?.value(of: "utm_medium") ?? utm?.medium), campaign: dimension(query?.value(of: "utm_campaign") ?? utm?.campaign)
            )
            groups[group, default: 0] += 1
        }
        for (group, count) in groups {
            for linkID in [group.linkID, StatsKey.appWide] {
                func add(_ metric: StatsMetric, _ dimension: String = "") {
                    counts[StatsKey(appID: group.appID, environment: group.environment, linkID: linkID, day: group.day, metric: metric, dimension: dimension), default: 0] += count
                }
                // Most clicks come without a referrer or campaign: those values are implied by the click count
                // rather than stored, which spares the writer most of its roll-up rows (see `StatsReport`).
                add(.clicks, impliedDefaults)
                add(.platform, group.platform.rawValue)
                if group.referrer != directReferrer { add(.referrer, group.referrer) }
                if group.source != noValue { add(.utmSource, group.source) }
                if group.medium != noValue { add(.utmMedium, group.medium) }
                if group.campaign != noValue { add(.utmCampaign, group.campaign) }
            }
        }
        return counts
    }

    /// The visitors of a batch of clicks: each person's click names its visitor for its link and for its app.
    package static func visitors(clicks: [Click]) -> [VisitorKey] {
        var keys: [VisitorKey] = []
        var seen = Set<VisitorKey>()
        for click in clicks where click.traffic == .person {
            let day = day(of: click.createdAt)
            let visitor = visitorHash(address: click.ipHash ?? click.id, userAgent: click.userAgent ?? "")
            for linkID in [click.linkID, StatsKey.appWide] {
                let key = VisitorKey(appID: click.appID, environment: click.environment, linkID: linkID, day: day, visitor: visitor)
                if seen.insert(key).inserted { keys.append(key) }  // a visitor back within the batch is one row
            }
        }
        return keys
    }

    /// What changes when stored clicks are found to be of another kind (`traffic`): the roll-up increments that take
    /// them out of their old figures and into their new ones, the visitors they now add, and the visitors whose
    /// rows they may have added and no longer should (a store removes such a row and takes one from the day's
    /// visitors when there was one). The clicks are given as stored, with their old kind.
    package static func reclassification(of clicks: [Click], to traffic: ClickTraffic, linkUTM: (Click) -> UTMParameters?)
        -> (increments: [StatsKey: Int], addedVisitors: [VisitorKey], removedVisitors: [VisitorKey]) {
        let moved = clicks.map { click in
            var moved = click
            moved.traffic = traffic
            return moved
        }
        var counts = increments(clicks: moved, linkUTM: linkUTM)
        for (key, count) in increments(clicks: clicks, linkUTM: linkUTM) { counts[key, default: 0] -= count }
        return (counts.filter { $0.value != 0 }, visitors(clicks: moved), visitors(clicks: clicks))
    }

    /// The increments of an answered install: by match type, or `organic` when nothing matched.
    package static func increments(attribution: AttributionRecord) -> [StatsKey] {
        [attribution.linkID ?? "", StatsKey.appWide].map { linkID in
            StatsKey(appID: attribution.appID, environment: attribution.environment, linkID: linkID,
                     day: day(of: attribution.createdAt), metric: .installs, dimension: attribution.matchType?.rawValue ?? "organic")
        }
    }

    /// The increments of SDK events, by name.
    package static func increments(events: [EventRecord]) -> [StatsKey: Int] {
        var counts: [StatsKey: Int] = [:]
        for event in events {
            for linkID in [event.linkID ?? "", StatsKey.appWide] {
                let key = StatsKey(appID: event.appID, environment: event.environment, linkID: linkID,
                                   day: day(of: event.receivedAt), metric: .events, dimension: dimension(event.name))
                counts[key, default: 0] += 1
            }
        }
        return counts
    }

    /// The host of a Referer header, lowercased and without `www.`; `direct` when there is none or it is unreadable.
    package static func referrerHost(_ referer: String?) -> String {
        guard let referer, let host = URLComponents(string: referer)?.host?.lowercased(), !host.isEmpty else { return directReferrer }
        let bare = host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
        return String(bare.prefix(maxDimensionLength))
    }

    /// A dimension value: trimmed, cut to the longest kept, `none` when empty.
    package static func dimension(_ value: String?) -> String {
        let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return trimmed.isEmpty ? noValue : String(trimmed.prefix(maxDimensionLength))
    }

    /// A 64-bit FNV-1a hash, in hex, of an address hash and a user agent: enough to tell visitors apart in a count,
    /// useless for finding one.
    static func visitorHash(address: String, userAgent: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in address.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash = (hash ^ 0x7C) &* 0x0000_0100_0000_01B3
        for byte in userAgent.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// One row read back from the roll-up: a count of a day, metric and value (summed over the links asked for).
package struct StatsRow: Sendable, Hashable {
    /// Days since 1970-01-01 (UTC).
    package var day: Int
    /// What is counted.
    package var metric: StatsMetric
    /// The value counted.
    package var dimension: String
    /// The count.
    package var count: Int

    /// Creates a row.
    package init(day: Int, metric: StatsMetric, dimension: String, count: Int) {
        self.day = day
        self.metric = metric
        self.dimension = dimension
        self.count = count
    }
}

/// A range of whole UTC days, as asked for with `to` (`YYYY-MM-DD`, the last day, included) and `days` (how many).
package struct StatsRange: Sendable, Hashable {
    /// First day (days since 1970-01-01).
    package var fromDay: Int
    /// Last day, included.
    package var toDay: Int

    /// Longest range a report may cover, in days.
    package static let maxDays = 731
    /// Range used when none is given: the last 30 days, today included.
    package static let defaultDays = 30

    /// Creates a range.
    package init(fromDay: Int, toDay: Int) {
        self.fromDay = fromDay
        self.toDay = toDay
    }

    /// The `days` days that end with `to`, defaulting to the 30 days up to `now`; a reason naming the parameter when
    /// one is not valid. Every `to` from 1970 on and every `days` from 1 to ``maxDays`` make a range, so a request
    /// that is well formed is never refused for the pair.
    package static func parse(to: String?, days: String?, now: Date) -> Result<StatsRange, StatsRangeError> {
        var last = StatsRollup.day(of: now)
        if let to {
            guard let day = day(from: to) else { return .failure(StatsRangeError(field: "to", message: "to must be a date written YYYY-MM-DD, from 1970 on")) }
            last = day
        }
        var count = defaultDays
        if let days {
            guard (1...3).contains(days.utf8.count), days.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let value = Int(days), (1...maxDays).contains(value) else {
                return .failure(StatsRangeError(field: "days", message: "days must be a whole number from 1 to \(maxDays)"))
            }
            count = value
        }
        return .success(StatsRange(fromDay: last - count + 1, toDay: last))
    }

    /// The day number of `YYYY-MM-DD` (a real calendar date between 1970 and 9999).
    package static func day(from text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              year >= 1970, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        return daysFromCivil(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD` of a day number.
    package static func text(ofDay day: Int) -> String {
        let (year, month, dayOfMonth) = civil(fromDays: day)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Why a statistics range was refused.
package struct StatsRangeError: Error, Sendable, Hashable {
    /// The query parameter at fault.
    package var field: String
    /// A sentence for people.
    package var message: String
}

extension StatsReport {
    /// Event names that count as opens of the app by a link.
    package static let openEvents: Set<String> = ["link_open", "open", "link_stats"]
    /// Event names the SDK and the compatibility routes send; any other is the app's own.
    package static let builtInEvents: Set<String> = ["install", "open", "reinstall", "link_open", "link_stats"]

    /// The report of roll-up rows over a range.
    package init(rows: [StatsRow], range: StatsRange, linkID: String?) {
        var totals = StatsTotals()
        var breakdown: [StatsMetric: [String: Int]] = [:]
        var days = (range.fromDay...range.toDay).map { StatsDay(date: StatsRange.text(ofDay: $0)) }
        // Per day: clicks with implied default values, clicks with all values stored, and the stored values' sums.
        var implied: [Int: Int] = [:], explicit: [Int: Int] = [:], stored: [Int: [StatsMetric: Int]] = [:]
        for row in rows where row.day >= range.fromDay && row.day <= range.toDay {
            let index = row.day - range.fromDay
            switch row.metric {
            case .clicks:
                totals.clicks += row.count
                days[index].clicks += row.count
                if row.dimension == StatsRollup.impliedDefaults { implied[row.day, default: 0] += row.count } else { explicit[row.day, default: 0] += row.count }
            case .visitors:
                totals.uniqueVisitors += row.count
                days[index].uniqueVisitors += row.count
            case .installs:
                switch row.dimension {
                case MatchType.deterministic.rawValue: totals.deterministicInstalls += row.count
                case MatchType.probabilistic.rawValue: totals.probabilisticInstalls += row.count
                default: totals.organicInstalls += row.count
                }
                if row.dimension != "organic" { days[index].installs += row.count }
            case .events:
                breakdown[.events, default: [:]][row.dimension, default: 0] += row.count
                if Self.openEvents.contains(row.dimension) {
                    totals.opens += row.count
                    days[index].opens += row.count
                } else if row.dimension == "reinstall" {
                    totals.reinstalls += row.count
                } else if !Self.builtInEvents.contains(row.dimension) {
                    totals.customEvents += row.count
                }
            case .referrer, .utmSource, .utmMedium, .utmCampaign:
                stored[row.day, default: [:]][row.metric, default: 0] += row.count
                breakdown[row.metric, default: [:]][row.dimension, default: 0] += row.count
            case .platform:
                breakdown[row.metric, default: [:]][row.dimension, default: 0] += row.count
            case .filtered:
                totals.filteredClicks += row.count
                days[index].filteredClicks += row.count
                breakdown[row.metric, default: [:]][row.dimension, default: 0] += row.count
            }
        }
        // The implied values: of a day's clicks with implied defaults, those no stored value accounts for (stored
        // values of that day also cover its fully stored clicks, which are taken out first).
        for (day, count) in implied {
            for (metric, value) in [(StatsMetric.referrer, StatsRollup.directReferrer), (.utmSource, StatsRollup.noValue),
                                    (.utmMedium, StatsRollup.noValue), (.utmCampaign, StatsRollup.noValue)] {
                let unaccounted = min(count, max(0, count - (stored[day]?[metric] ?? 0) + (explicit[day] ?? 0)))
                if unaccounted > 0 { breakdown[metric, default: [:]][value, default: 0] += unaccounted }
            }
        }
        totals.installs = totals.deterministicInstalls + totals.probabilisticInstalls
        // A value whose clicks were all found later to be of another kind sums to nothing: it is not shown.
        for metric in breakdown.keys { breakdown[metric] = breakdown[metric]?.filter { $0.value != 0 } }
        self.init(
            from: StatsRange.text(ofDay: range.fromDay), to: StatsRange.text(ofDay: range.toDay), linkID: linkID, totals: totals,
            platforms: breakdown[.platform] ?? [:], referrers: breakdown[.referrer] ?? [:], utmSources: breakdown[.utmSource] ?? [:],
            utmMediums: breakdown[.utmMedium] ?? [:], utmCampaigns: breakdown[.utmCampaign] ?? [:], events: breakdown[.events] ?? [:],
            filtered: breakdown[.filtered] ?? [:], days: days
        )
    }
}
