#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// The links pages: the list, one link with its statistics, and the forms that create and change links.
extension DashboardController {
    // MARK: Pages

    func linksPage(_ request: Request, _ viewer: Viewer) async throws -> Response {
        let query = request.uri.queryParameters
        let search = (query["q"].map(String.init) ?? "").trimmingCharacters(in: .whitespaces)
        // `made=app`: only the share links installs of the app made with its publishable key.
        let madeInApp = query["made"] == "app"
        let links: [Link]
        var next: Int64?
        if !search.isEmpty {
            links = try await self.links.search(String(search.prefix(200)), app: viewer.app, environment: viewer.environment, limit: 100)
        } else {
            let cursor = query["cursor"].flatMap { Int64(String($0)) }
            let page = try await self.links.page(app: viewer.app, environment: viewer.environment, filter: LinkFilter(createdInApp: madeInApp ? true : nil),
                                                 limit: 50, after: cursor)
            links = page.links
            next = page.nextCursor
        }
        let range = StatsRange(fromDay: StatsRollup.day(of: admin.now()) - 29, toDay: StatsRollup.day(of: admin.now()))
        let totals = try await reports.stats(app: viewer.app, environment: viewer.environment, range: range).totals
        let body = render("links", [
            "query": (search.isEmpty ? nil : search) as Any, "hasLinks": !links.isEmpty, "next": next.map(String.init) as Any,
            "madeInApp": madeInApp && search.isEmpty, "filter": madeInApp && search.isEmpty ? "&made=app" : "", "csrf": viewer.csrf,
            "clientLinks": viewer.app.clientLinks,
            "totals": ["clicks": totals.clicks, "uniqueVisitors": totals.uniqueVisitors, "installs": totals.installs, "filteredClicks": totals.filteredClicks],
            "links": links.map { link in
                ["id": link.id, "url": link.shortURL(in: viewer.app), "destination": link.destination, "campaign": Self.campaign(of: link) ?? "",
                 "status": status(link), "created": Self.day(link.createdAt), "createdInApp": link.createdInApp] as [String: Any]
            },
        ])
        let deleted = query["deleted"].flatMap { Int(String($0.prefix(12))) }
        return html(title: "Links", body: body, viewer: viewer,
                    notice: deleted.map { "\($0) link\($0 == 1 ? "" : "s") made in the app \($0 == 1 ? "was" : "were") deleted." })
    }

    func link(_ context: FerryRequestContext, _ viewer: Viewer) async throws -> Link {
        let id = context.parameters.get("id") ?? ""
        guard let link = try await links.existing(id, app: viewer.app, environment: viewer.environment) else {
            throw Detour(response: html(status: .notFound, title: "Not found", body: "<h1>No such link</h1><p><a href=\"/dashboard\">All links</a></p>", viewer: viewer))
        }
        return link
    }

    func linkPage(_ viewer: Viewer, _ link: Link) async throws -> Response {
        let today = StatsRollup.day(of: admin.now())
        let range = StatsRange(fromDay: today - 29, toDay: today)
        let report = try await reports.stats(app: viewer.app, environment: viewer.environment, link: link, range: range)
        func rows(_ counts: [String: Int]) -> [String: Any] {
            let sorted = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(10).map { ["label": $0.key, "count": $0.value] as [String: Any] }
            return ["hasRows": !sorted.isEmpty, "rows": sorted]
        }
        let breakdowns: [[String: Any]] = [
            ["name": "Platforms"].merging(rows(report.platforms)) { $1 },
            ["name": "Campaigns"].merging(rows(report.utmCampaigns)) { $1 },
            ["name": "Sources"].merging(rows(report.utmSources)) { $1 },
            ["name": "Referrers"].merging(rows(report.referrers)) { $1 },
            ["name": "Left out"].merging(rows(Dictionary(report.filtered.map { (Self.filteredLabel($0.key), $0.value) }, uniquingKeysWith: +))) { $1 },
        ]
        let totals = report.totals
        let body = render("link", [
            "id": link.id, "slug": link.slug, "url": link.shortURL(in: viewer.app), "destination": link.destination, "campaign": Self.campaign(of: link) as Any,
            "longLink": link.longLink != nil, "createdInApp": link.createdInApp, "hasRouting": !link.routing.isEmpty, "routing": Self.routingRows(link.routing),
            "status": status(link), "created": Self.day(link.createdAt), "csrf": viewer.csrf,
            "toggle": link.disabled ? "enable" : "disable", "toggleLabel": link.disabled ? "Enable" : "Disable",
            "totals": ["clicks": totals.clicks, "uniqueVisitors": totals.uniqueVisitors, "installs": totals.installs,
                       "deterministicInstalls": totals.deterministicInstalls, "probabilisticInstalls": totals.probabilisticInstalls, "opens": totals.opens,
                       "filteredClicks": totals.filteredClicks],
            "chart": StatsChart.svg(days: report.days), "breakdowns": breakdowns,
        ])
        return html(title: link.slug, body: body, viewer: viewer)
    }

    /// What the dashboard calls each kind of click left out of the figures.
    static func filteredLabel(_ kind: String) -> String {
        switch ClickTraffic(rawValue: kind) {
        case .bot: "Bots and link previews"
        case .prefetch: "Browser prefetches"
        case .scanner: "Email security scanners"
        case .person, nil: kind
        }
    }

    func linkForm(_ viewer: Viewer, link: Link?, error: String?, values: QueryString? = nil) -> Response {
        func value(_ name: String, _ stored: String?) -> String { values?.value(of: name) ?? stored ?? "" }
        let chosenDomain = values?.value(of: "domain") ?? viewer.app.domains.first
        let body = render("linkForm", [
            "heading": link == nil ? "New link" : "Edit \(link!.slug)", "creating": link == nil, "csrf": viewer.csrf,
            "action": link.map { "/dashboard/links/\($0.id)" } ?? "/dashboard/links",
            "cancel": link.map { "/dashboard/links/\($0.id)" } ?? "/dashboard", "button": link == nil ? "Create link" : "Save",
            "domains": viewer.app.domains.map { ["name": $0, "selected": $0 == chosenDomain] as [String: Any] },
            "slug": value("slug", nil), "destination": value("destination", link?.destination), "iosURL": value("iosURL", link?.iosURL),
            "androidURL": value("androidURL", link?.androidURL), "campaign": value("campaign", link?.campaign),
            "utmSource": value("utmSource", link?.utm.source), "utmMedium": value("utmMedium", link?.utm.medium),
            "utmCampaign": value("utmCampaign", link?.utm.campaign), "title": value("title", link?.social.title),
            "imageURL": value("imageURL", link?.social.imageURL), "description": value("description", link?.social.description),
            "params": value("params", link.map { $0.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n") }),
            "iosFallbackURL": value("iosFallbackURL", link?.routing.iosFallbackURL),
            "ipadFallbackURL": value("ipadFallbackURL", link?.routing.ipadFallbackURL),
            "ipadBundleID": value("ipadBundleID", link?.routing.ipadBundleID), "appStoreID": value("appStoreID", link?.routing.appStoreID),
            "iosMinimumVersion": value("iosMinimumVersion", link?.routing.iosMinimumVersion),
            "androidFallbackURL": value("androidFallbackURL", link?.routing.androidFallbackURL),
            "androidMinimumVersionCode": value("androidMinimumVersionCode", link?.routing.androidMinimumVersionCode.map(String.init)),
            "otherPlatformFallbackURL": value("otherPlatformFallbackURL", link?.routing.otherPlatformFallbackURL),
            "skipPreviewPage": values.map { $0.value(of: "skipPreviewPage") == "1" } ?? (link?.routing.skipPreviewPage == true),
        ])
        return html(status: error == nil ? .ok : .badRequest, title: link == nil ? "New link" : "Edit link", body: body, viewer: viewer, error: error)
    }

    /// The link fields of a form; nil for empty ones. Params come one `key=value` per line.
    static func fields(_ form: QueryString) throws(ValidationError) -> (request: CreateLinkRequest, params: [String: String]) {
        func text(_ name: String) -> String? {
            let value = form.value(of: name)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return value.isEmpty ? nil : value
        }
        var params: [String: String] = [:]
        for line in (form.value(of: "params") ?? "").split(whereSeparator: \.isNewline) where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let eq = line.firstIndex(of: "="), eq != line.startIndex else { throw ValidationError(field: "params", "params must be one key=value per line") }
            params[String(line[..<eq]).trimmingCharacters(in: .whitespaces)] = String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
        }
        let utm = UTMParameters(source: text("utmSource"), medium: text("utmMedium"), campaign: text("utmCampaign"))
        let social = SocialMetadata(title: text("title"), description: text("description"), imageURL: text("imageURL"))
        var versionCode: Int?
        if let code = text("androidMinimumVersionCode") {
            guard let number = Int(code) else {
                throw ValidationError(field: "routing.androidMinimumVersionCode", "the lowest Android version code must be a whole number")
            }
            versionCode = number
        }
        let routing = LinkRouting(
            iosFallbackURL: text("iosFallbackURL"), ipadFallbackURL: text("ipadFallbackURL"), ipadBundleID: text("ipadBundleID"),
            appStoreID: text("appStoreID"), iosMinimumVersion: text("iosMinimumVersion"), androidFallbackURL: text("androidFallbackURL"),
            androidMinimumVersionCode: versionCode, otherPlatformFallbackURL: text("otherPlatformFallbackURL"),
            skipPreviewPage: form.value(of: "skipPreviewPage") == "1" ? true : nil
        )
        let request = CreateLinkRequest(domain: text("domain"), slug: text("slug"), destination: text("destination") ?? "", iosURL: text("iosURL"),
                                        androidURL: text("androidURL"), params: params.isEmpty ? nil : params, utm: utm.isEmpty ? nil : utm,
                                        campaign: text("campaign"), social: social.isEmpty ? nil : social,
                                        routing: routing.isEmpty ? nil : routing)
        return (request, params)
    }

    /// The routing fields a link sets, labelled for its page.
    static func routingRows(_ routing: LinkRouting) -> [[String: String]] {
        let rows: [(String, String?)] = [
            ("iPhone without the app", routing.iosFallbackURL), ("iPad without the app", routing.ipadFallbackURL),
            ("iPad app", routing.ipadBundleID), ("App Store id", routing.appStoreID), ("Lowest iOS app version", routing.iosMinimumVersion),
            ("Android without the app", routing.androidFallbackURL),
            ("Lowest Android version code", routing.androidMinimumVersionCode.map(String.init)),
            ("Desktops and other platforms", routing.otherPlatformFallbackURL),
            ("Preview page", routing.skipPreviewPage == true ? "skipped" : nil),
            ("App Store campaign", routing.appStoreAnalytics.map { $0.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&") }),
        ]
        return rows.compactMap { label, value in value.map { ["label": label, "value": $0] } }
    }

    func createLink(_ viewer: Viewer, _ form: QueryString) async throws -> Response {
        do {
            let (request, _) = try Self.fields(form)
            let link = try await links.create(request, app: viewer.app, environment: viewer.environment, by: viewer.actor)
            return redirect("/dashboard/links/\(link.id)")
        } catch let error as ValidationError {
            return linkForm(viewer, link: nil, error: error.message, values: form)
        } catch let conflict as StoreConflict {
            return linkForm(viewer, link: nil, error: conflict.message, values: form)
        }
    }

    func updateLink(_ viewer: Viewer, _ link: Link, _ form: QueryString) async throws -> Response {
        do {
            let (request, params) = try Self.fields(form)
            var update = UpdateLinkRequest()
            update.destination = .set(request.destination)
            update.iosURL = request.iosURL.map { .set($0) } ?? .clear
            update.androidURL = request.androidURL.map { .set($0) } ?? .clear
            update.campaign = request.campaign.map { .set($0) } ?? .clear
            update.utm = request.utm.map { .set($0) } ?? .clear
            update.social = request.social.map { .set($0) } ?? .clear
            update.params = params.isEmpty ? .clear : .set(params)
            // The form has no App Store campaign tokens: those set through the API are kept.
            var routing = request.routing ?? LinkRouting()
            routing.appStoreAnalytics = link.routing.appStoreAnalytics
            update.routing = routing.isEmpty ? .clear : .set(routing)
            guard try await links.change(link, update, by: viewer.actor) != nil else { return redirect("/dashboard") }
            return redirect("/dashboard/links/\(link.id)")
        } catch let error as ValidationError {
            return linkForm(viewer, link: link, error: error.message, values: form)
        }
    }

    func setDisabled(_ viewer: Viewer, _ link: Link, _ disabled: Bool) async throws -> Response {
        var update = UpdateLinkRequest()
        update.disabled = .set(disabled)
        _ = try await links.change(link, update, by: viewer.actor)
        return redirect("/dashboard/links/\(link.id)")
    }

    /// Deletes the share links installs of the app made, all of them or those older than the form's `days`, and shows
    /// what is left of them.
    func deleteLinksMadeInApp(_ viewer: Viewer, _ form: QueryString) async throws -> Response {
        let text = (form.value(of: "days") ?? "").trimmingCharacters(in: .whitespaces)
        var before = admin.now()
        if !text.isEmpty {
            guard text.utf8.count <= 5, let days = Int(text), (0...36_500).contains(days) else {
                return html(status: .badRequest, title: "Links", body: "<h1>Links</h1><p><a href=\"/dashboard?made=app\">Back to the links made in the app</a></p>",
                            viewer: viewer, error: "Older than: a whole number of days from 0 to 36500, or empty for all.")
            }
            before = before.addingTimeInterval(-Double(days) * 86_400)
        }
        let deleted = try await links.deleteCreatedInApp(app: viewer.app, environment: viewer.environment, before: before, by: viewer.actor)
        return redirect("/dashboard?made=app&deleted=\(deleted)")
    }
}
#endif
