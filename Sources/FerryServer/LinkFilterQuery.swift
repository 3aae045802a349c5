#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation

/// The filters of a links listing, read from a query (`GET /v1/links` and the dashboard's list): `q`, `status`,
/// `campaign`, `domain`, `createdFrom` (inclusive) and `createdBefore` (exclusive), each an instant in the API's
/// strict RFC 3339 form or, where `days` is allowed (the dashboard's date fields), a day (`2026-11-01`, midnight UTC).
/// A value that is not one of these is refused, naming its parameter; a range that is empty selects nothing.
enum LinkFilterQuery {
    /// The parameters, in the order they are checked.
    static let names = ["q", "status", "campaign", "domain", "createdFrom", "createdBefore"]

    /// The filter the values make (`value(name)` answers a parameter's value, nil when absent), judged at `now`.
    static func parse(_ value: (String) -> String?, createdInApp: Bool? = nil, days: Bool = false, now: Date) throws(ValidationError) -> LinkFilter {
        var filter = LinkFilter(createdInApp: createdInApp, now: now)
        // Texts: empty or blank is no filter. A state or an instant that is given must be one.
        func text(_ name: String, max: Int) throws(ValidationError) -> String? {
            guard let raw = value(name)?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            try LinkRules.checkText(raw, field: name, max: max)
            return raw
        }
        func given(_ name: String) throws(ValidationError) -> String? {
            guard let raw = value(name) else { return nil }
            try LinkRules.checkText(raw, field: name, max: 64)
            return raw
        }
        filter.text = try text("q", max: 200)
        if let status = try given("status") {
            guard let parsed = LinkFilter.Status(rawValue: status) else {
                throw ValidationError(field: "status", "status must be active, expired or disabled")
            }
            filter.status = parsed
        }
        filter.campaign = try text("campaign", max: 200)
        // A domain is matched as it is stored (lower case): one the app does not have matches nothing.
        filter.domain = try text("domain", max: 253)?.lowercased()
        filter.createdFrom = try moment("createdFrom", given("createdFrom"), days: days)
        filter.createdBefore = try moment("createdBefore", given("createdBefore"), days: days)
        return filter
    }

    /// An RFC 3339 instant, or with `days` also a day (`YYYY-MM-DD`, its midnight in UTC).
    static func moment(_ name: String, _ text: String?, days: Bool) throws(ValidationError) -> Date? {
        guard let text else { return nil }
        if days, let day = day(text) { return day }
        if let time = FerryJSON.parseDate(text) { return time }
        throw ValidationError(field: name, days ? "\(name) must be a day (2026-11-01) or an RFC 3339 time (2026-11-01T09:30:00Z)"
                                                : "\(name) must be an RFC 3339 time such as 2026-11-01T09:30:00Z")
    }

    /// Midnight UTC of a `YYYY-MM-DD` day that exists, or nil.
    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let dayOfMonth = Int(parts[2]), (1...12).contains(month), dayOfMonth >= 1
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: dayOfMonth)),
              calendar.component(.day, from: date) == dayOfMonth, calendar.component(.month, from: date) == month else { return nil }
        return date
    }
}
#endif
