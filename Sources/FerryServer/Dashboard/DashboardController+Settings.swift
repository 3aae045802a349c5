#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// The settings page (the app's settings and its domains) and the webhooks page.
extension DashboardController {
    func settingsPage(_ viewer: Viewer, error: String?, notice: String?, values: QueryString? = nil,
                      status: HTTPResponse.Status? = nil) async throws -> Response {
        let app = viewer.app
        func value(_ name: String, _ stored: String) -> String { values?.value(of: name) ?? stored }
        let listing = try await domains.list(app: app)
        let domainRows: [[String: Any]] = listing.data.map { domain in
            var row: [String: Any] = [
                "name": domain.domain, "pending": domain.status == .pending,
                "status": (domain.status == .pending ? "waiting for proof" : domain.isDefault ? "active, default" : "active")
                    + (domain.pathPrefix.map { ", links under \($0)/" } ?? ""),
                "active": domain.status == .active, "prefix": domain.pathPrefix ?? "",
                "canMakeDefault": domain.status == .active && !domain.isDefault,
                "canRemove": domain.status == .pending || app.domains.count > 1,
            ]
            if let verification = domain.verification {
                row["dnsName"] = verification.dnsName
                row["proof"] = verification.dnsValue
                row["httpURL"] = verification.httpURL
            }
            return row
        }
        let body = render("settings", [
            "csrf": viewer.csrf, "name": value("name", app.name), "windowHours": value("attributionWindow", String(Int(app.attribution.window / 3600))),
            "minConfidence": value("minConfidence", app.attribution.minConfidence.map { String($0) } ?? ""),
            "minConfidenceRange": AttributionRules.minConfidenceRangeText,
            "canEdit": Self.mayChangeSettings(viewer), "selfService": listing.selfService, "domains": domainRows,
            "teamID": value("teamID", app.ios.teamID ?? ""),
            "bundleIDs": value("bundleIDs", app.ios.bundleIDs.joined(separator: "\n")), "appStoreID": value("appStoreID", app.ios.appStoreID ?? ""),
            "urlScheme": value("urlScheme", app.ios.urlScheme ?? ""), "androidPackage": value("androidPackage", app.android.packageName ?? ""),
            "androidFingerprints": value("androidFingerprints", app.android.sha256Fingerprints.joined(separator: "\n")),
            "fallbackURL": value("fallbackURL", app.fallbackURL ?? ""),
            "allowedURLPatterns": value("allowedURLPatterns", app.allowedURLPatterns.joined(separator: "\n")),
            "clientLinks": values.map { $0.value(of: "clientLinks") == "on" } ?? app.clientLinks,
            "modelFixed": value("attributionModel", app.attribution.model.rawValue) != AttributionSettings.Model.learned.rawValue,
            "modelLearned": value("attributionModel", app.attribution.model.rawValue) == AttributionSettings.Model.learned.rawValue,
        ])
        return html(status: status ?? (error == nil ? .ok : .badRequest), title: "Settings", body: body, viewer: viewer, error: error, notice: notice)
    }

    /// Only a live secret key changes an app's settings (a test key is for trying things out; the settings serve live
    /// links).
    static func mayChangeSettings(_ viewer: Viewer) -> Bool {
        viewer.environment == .live && viewer.may(.manageSettings)
    }

    /// The settings page after a domain change (`change` returns its notice), or with the refusal.
    func changeDomains(_ viewer: Viewer, _ form: QueryString, _ change: (String) async throws -> String) async throws -> Response {
        let domain = (form.value(of: "domain") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            let notice = try await change(domain)
            var refreshed = viewer
            if let app = try await admin.app(id: viewer.app.id) { refreshed.app = app }
            return try await settingsPage(refreshed, error: nil, notice: notice)
        } catch let refusal as ValidationError {
            return try await settingsPage(viewer, error: refusal.message, notice: nil, status: APIError(refusal).status)
        }
    }

    func saveSettings(_ viewer: Viewer, _ form: QueryString) async throws -> Response {
        guard Self.mayChangeSettings(viewer) else {
            return try await settingsPage(viewer, error: "Only a live secret key (fs_live_…) changes the app's settings.", notice: nil,
                                          status: .forbidden)
        }
        func text(_ name: String) -> String? {
            let value = form.value(of: name)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return value.isEmpty ? nil : value
        }
        func lines(_ name: String) -> [String] {
            (form.value(of: name) ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        guard let hours = Double(text("attributionWindow") ?? "24"), hours.isFinite else {
            return try await settingsPage(viewer, error: "The attribution window must be a number of hours from 1 to 168.", notice: nil, values: form)
        }
        let minConfidence = text("minConfidence")
        guard minConfidence.map({ Double($0) != nil }) ?? true else {
            return try await settingsPage(viewer, error: "The least confidence of a probable match must be a number from \(AttributionRules.minConfidenceRangeText), or empty for the default.",
                                          notice: nil, values: form)
        }
        // A form without the field (an older page) keeps the app's model.
        let model = text("attributionModel").map { AttributionSettings.Model(rawValue: $0) }
        if let model, model == nil {
            return try await settingsPage(viewer, error: "The attribution model must be fixed or learned.", notice: nil, values: form)
        }
        do {
            let app = try await domains.updateSettings(appID: viewer.app.id, by: viewer.actor) { spec in
                spec.name = text("name") ?? ""
                spec.teamID = text("teamID")
                spec.bundleIDs = lines("bundleIDs")
                spec.appStoreID = text("appStoreID")
                spec.urlScheme = text("urlScheme")
                spec.androidPackage = text("androidPackage")
                spec.androidFingerprints = lines("androidFingerprints")
                spec.fallbackURL = text("fallbackURL")
                spec.allowedURLPatterns = lines("allowedURLPatterns")
                spec.clientLinks = form.value(of: "clientLinks") == "on"
                spec.attribution.window = hours * 3600
                spec.attribution.minConfidence = minConfidence.flatMap(Double.init)
                if let model = model ?? nil { spec.attribution.model = model }
            }
            var refreshed = viewer
            refreshed.app = app
            return try await settingsPage(refreshed, error: nil, notice: "Settings saved.")
        } catch let error as ValidationError {
            return try await settingsPage(viewer, error: error.message, notice: nil, values: form)
        } catch let conflict as StoreConflict {
            return try await settingsPage(viewer, error: conflict.message, notice: nil, values: form)
        }
    }

    func addWebhook(_ viewer: Viewer, _ form: QueryString) async throws -> Response {
        let request = CreateWebhookRequest(url: form.value(of: "url")?.trimmingCharacters(in: .whitespaces) ?? "",
                                           events: WebhookEventType.allCases.filter { form.value(of: $0.rawValue) != nil })
        do {
            let webhook = try await outbox.addWebhook(request, appID: viewer.app.id, environment: viewer.environment, by: viewer.actor)
            return try await webhooksPage(viewer, error: nil, notice: "Webhook added.", secret: webhook.secret)
        } catch let error as ValidationError {
            return try await webhooksPage(viewer, error: error.message, notice: nil, secret: nil)
        }
    }

    /// The session environment's webhooks, each with its latest deliveries and what came of them.
    func webhooksPage(_ viewer: Viewer, error: String?, notice: String?, secret: String?) async throws -> Response {
        let webhooks = try await outbox.webhooks(appID: viewer.app.id, environment: viewer.environment)
        var rows: [[String: Any]] = []
        for webhook in webhooks {
            let deliveries = try await outbox.deliveries(webhookID: webhook.id, appID: viewer.app.id, environment: viewer.environment,
                                                         limit: Self.deliveriesShown) ?? []
            rows.append([
                "id": webhook.id, "url": webhook.url, "events": webhook.events.map(\.rawValue).joined(separator: ", "), "csrf": viewer.csrf,
                "created": Self.minute(webhook.createdAt), "hasDeliveries": !deliveries.isEmpty,
                "deliveries": deliveries.map { delivery -> [String: Any] in
                    let (state, outcome) = Self.outcome(of: delivery)
                    return ["queued": Self.minute(delivery.createdAt), "event": delivery.event.rawValue, "state": state, "outcome": outcome,
                            "attempts": delivery.attempts, "lastStatus": delivery.lastStatus.map(String.init) ?? "–",
                            "lastError": delivery.lastError ?? ""]
                },
            ])
        }
        let body = render("webhooks", ["csrf": viewer.csrf, "environment": viewer.environment.rawValue, "newSecret": secret as Any,
                                       "hasWebhooks": !webhooks.isEmpty, "webhooks": rows])
        return html(status: error == nil ? .ok : .badRequest, title: "Webhooks", body: body, viewer: viewer, error: error, notice: notice)
    }

    /// How many of each webhook's latest deliveries the page lists.
    static let deliveriesShown = 10

    /// A delivery's state (its badge's class) and what to say of it.
    static func outcome(of delivery: WebhookDelivery) -> (state: String, outcome: String) {
        if let delivered = delivery.deliveredAt { return ("active", "delivered \(minute(delivered))") }
        if let failed = delivery.failedAt { return ("failed", "given up \(minute(failed))") }
        return ("waiting", delivery.attempts == 0 ? "waiting" : "next try \(minute(delivery.nextAttemptAt))")
    }

    /// A time to the minute, in UTC: `2026-11-27 14:05 UTC`.
    static func minute(_ date: Date) -> String {
        let text = FerryJSON.formatDate(date)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5)) + " UTC"
    }
}
#endif
