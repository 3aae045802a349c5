#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// The attribution page: the last 30 days' clicks, installs and opens (certain, probable and organic installs, and how
/// sure the probable matches were), then the model the app answers with in the session's environment, how it does on
/// the app's labelled installs (the report of `ferry attribution report`) and its calibration chart; a refit on demand.
extension DashboardController {
    /// The figures of the page's first part, over the last 30 days (UTC).
    func attributionActivity(_ viewer: Viewer) async throws -> [String: Any] {
        let now = admin.now(), today = StatsRollup.day(of: now)
        let range = StatsRange(fromDay: today - 29, toDay: today)
        let report = try await reports.stats(app: viewer.app, environment: viewer.environment, range: range)
        let totals = report.totals
        let from = Date(timeIntervalSince1970: Double(range.fromDay) * 86_400)
        let bands = try await admin.store.matchConfidences(appID: viewer.app.id, environment: viewer.environment, from: from, to: now.addingTimeInterval(1))
        let least = viewer.app.attribution.minConfidence
        let firstLaunches = totals.installs + totals.organicInstalls
        func share(_ part: Int, of whole: Int) -> String { whole == 0 ? "—" : AttributionReport.percent(Double(part) / Double(whole)) }
        let probable = bands.reduce(0, +)
        return [
            "from": report.from, "to": report.to,
            "clicks": totals.clicks, "installs": totals.installs, "opens": totals.opens, "organicInstalls": totals.organicInstalls,
            "deterministic": totals.deterministicInstalls, "probabilistic": totals.probabilisticInstalls, "reinstalls": totals.reinstalls,
            "installRate": share(totals.installs, of: totals.clicks), "attributedShare": share(totals.installs, of: firstLaunches),
            "deterministicShare": share(totals.deterministicInstalls, of: totals.installs),
            "activityChart": StatsChart.svg(days: report.days, opens: true),
            "confidenceChart": ConfidenceChart.svg(counts: bands, least: least), "hasConfidences": probable > 0,
            "least": least.map { AttributionReport.number($0, digits: 2) } ?? "the server's default",
            "confidenceBands": bands.enumerated().map { index, count in
                ["range": String(format: "%.1f–%.1f", Double(index) / 10, Double(index + 1) / 10), "count": count, "share": share(count, of: probable)] as [String: Any]
            },
        ]
    }

    /// A refit asked for from the page waits this long after the previous version.
    static let refitSpacing: TimeInterval = 60

    func attributionPage(_ viewer: Viewer, error: String? = nil, notice: String? = nil, status: HTTPResponse.Status? = nil) async throws -> Response {
        let app = viewer.app, environment = viewer.environment
        let report = try await attributionReports.report(app: app, environment: environment, now: admin.now())
        func percent(_ value: Double?) -> String { value.map(AttributionReport.percent) ?? "—" }
        func cellRow(_ name: String, _ cell: AttributionEvaluation.Cell) -> [String: Any] {
            ["name": name, "labelled": cell.labelled, "answered": cell.answered, "correct": cell.correct,
             "precision": percent(cell.precision), "recall": percent(cell.recall),
             "matches": cell.calibration.count, "ece": AttributionReport.errorText(cell.calibration)]
        }
        let cells = [cellRow("all", report.evaluation.overall)] + report.segmentCells.map { cellRow($0.segment.title, $0.cell) }
        let bands: [[String: Any]] = report.evaluation.overall.calibration.bands.filter { $0.count > 0 }.map { band in
            ["range": AttributionReport.number(band.low, digits: 2) + "–" + AttributionReport.number(min(1, band.high), digits: 2), "count": band.count,
             "stated": AttributionReport.number(band.meanConfidence), "observed": AttributionReport.number(band.precision)]
        }
        var values: [String: Any] = try await attributionActivity(viewer)
        values.merge([
            "csrf": viewer.csrf, "environment": environment.rawValue, "model": report.model.rawValue, "isFixed": report.model == .fixed,
            "threshold": report.thresholdText, "cells": cells, "bands": bands, "hasBands": !bands.isEmpty,
            "chart": CalibrationChart.svg(report.evaluation),
            "observations": AttributionReport.count(report.observations.total), "labelled": AttributionReport.count(report.observations.labelled),
            "organicLabels": AttributionReport.count(report.observations.organic), "unlabelled": AttributionReport.count(report.observations.unlabelled),
            "limit": AttributionReport.count(AttributionReporter.dashboardObservations),
            "parameters": report.parameters.map { ["name": $0.name, "prior": $0.prior, "fitted": $0.fitted] },
            "hasParameters": !report.parameters.isEmpty,
            "versions": report.versions.map { ["version": $0.version, "fitted": AttributionReport.date($0.createdAt), "status": $0.status,
                                               "observations": AttributionReport.count($0.observations)] as [String: Any] },
            "hasVersions": !report.versions.isEmpty,
        ]) { $1 }
        if let active = report.active {
            values["active"] = ["version": active.version, "fitted": AttributionReport.date(active.createdAt),
                                "observations": AttributionReport.count(active.observations)] as [String: Any]
        }
        if let rate = report.evaluation.organicFalseRate {
            values["organic"] = ["attributed": report.evaluation.organicAttributed, "of": report.evaluation.organic, "rate": percent(rate)] as [String: Any]
        }
        return html(status: status ?? (error == nil ? .ok : .badRequest), title: "Attribution", body: render("attribution", values), viewer: viewer,
                    error: error, notice: notice)
    }

    /// Refits the model of the session's environment now (at most once a minute), and shows the page again.
    func refitAttribution(_ viewer: Viewer) async throws -> Response {
        let app = viewer.app, environment = viewer.environment
        if let active = try await admin.store.activeModel(appID: app.id, environment: environment),
           admin.now().timeIntervalSince(active.version.createdAt) < Self.refitSpacing {
            return try await attributionPage(viewer, error: "Version \(active.version.version) was fitted less than a minute ago; refit again in a minute.",
                                             status: .tooManyRequests)
        }
        switch try await refitter.refit(app: app, environment: environment, force: true) {
        case .refitted(let version):
            attributionReports.forget(appID: app.id, environment: environment)
            let note = app.attribution.model == .fixed ? " The app answers with the fixed model until Settings say learned." : ""
            return try await attributionPage(viewer, notice: "Version \(version.version) fitted on \(version.summary.observations) observations.\(note)")
        case .tooFewObservations:
            return try await attributionPage(viewer, error: "Nothing to fit yet: no installs were observed in the last 28 days. An app records them once its model is learned.",
                                             status: .conflict)
        case .busy:
            return try await attributionPage(viewer, error: "Another server is refitting this model now; look again in a minute.", status: .conflict)
        case .notDue:
            return try await attributionPage(viewer)  // a forced refit is always due
        }
    }
}
#endif
