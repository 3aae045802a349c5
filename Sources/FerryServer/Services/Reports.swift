#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation

/// What links did, for one app and environment: the daily roll-ups and the raw rows of a range of days.
struct Reports: Sendable {
    let links: LinkEditor

    var store: any FerryDatabase { links.store }

    /// Rows read per page of an export.
    static let pageSize = 2000

    /// The app's totals over a range of days, or one of its links' (found with ``LinkEditor/find(_:app:environment:)``).
    func stats(app: App, environment: APIEnvironment, link: Link? = nil, range: StatsRange) async throws -> StatsReport {
        let rows = try await store.statsRows(appID: app.id, environment: environment, linkID: link?.id, range: range)
        return StatsReport(rows: rows, range: range, linkID: link?.id)
    }

    /// A page of the clicks of a range, after a cursor.
    func clicks(app: App, environment: APIEnvironment, range: StatsRange, after cursor: ExportCursor?) async throws -> [Click] {
        let (from, to) = Self.bounds(range)
        return try await store.exportClicks(appID: app.id, environment: environment, from: from, to: to, after: cursor, limit: Self.pageSize)
    }

    /// A page of the attributions of a range, after a cursor.
    func attributions(app: App, environment: APIEnvironment, range: StatsRange, after cursor: ExportCursor?) async throws -> [AttributionRecord] {
        let (from, to) = Self.bounds(range)
        return try await store.exportAttributions(appID: app.id, environment: environment, from: from, to: to, after: cursor, limit: Self.pageSize)
    }

    /// The instants a range of whole days covers: from the first day's start to the day after the last.
    static func bounds(_ range: StatsRange) -> (Date, Date) {
        (StatsRollup.date(ofDay: range.fromDay), StatsRollup.date(ofDay: range.toDay + 1))
    }
}
#endif
