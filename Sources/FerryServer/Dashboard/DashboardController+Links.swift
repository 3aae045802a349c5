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

    /// The list's filters as its form names them: text, state, campaign, domain, and the days made (`from` and `to`,
    /// both included).
    static let listFilterFields = ["q", "status", "campaign", "domain", "from", "to"]

    /// The filters of the links list, read from its query or a form that carries them.
    struct ListFilter {
        /// What the store selects.
        var filter: LinkFilter
        /// The form's values that are not empty, as given.
        var values: [String: String]
        /// Only the links made in the app (`made=app`).
        var madeInApp: Bool

        /// Whether anything narrows the list.
        var narrows: Bool { !values.isEmpty || madeInApp }

        /// The filters as query pairs (`&name=value`…), for the next page's link.
        var query: String {
            var pairs = Self.ordered(values).map { "&\($0.name)=\(QueryString.encode($0.value))" }
            if madeInApp { pairs.append("&made=app") }
            return pairs.joined()
        }

        /// The filters as hidden form fields.
        var hiddenFields: [[String: String]] {
            Self.ordered(values).map { ["name": $0.name, "value": $0.value] } + (madeInApp ? [["name": "made", "value": "app"]] : [])
        }

        static func ordered(_ values: [String: String]) -> [(name: String, value: String)] {
            DashboardController.listFilterFields.compactMap { name in values[name].map { (name, $0) } }
        }
    }

    /// The filters `value` gives (a query's or a form's), judged at `now`; a value that is not one refuses the whole,
    /// naming the field as the form labels it.
    static func listFilter(_ value: (String) -> String?, now: Date) throws(ValidationError) -> ListFilter {
        var values: [String: String] = [:]
        for name in listFilterFields {
            if let raw = value(name)?.trimmingCharacters(in: .whitespaces), !raw.isEmpty { values[name] = raw }
        }
        let madeInApp = value("made") == "app"
        var filter = try LinkFilterQuery.parse({ name in name.hasPrefix("created") ? nil : values[name] },
                                               createdInApp: madeInApp ? true : nil, now: now)
        func day(_ name: String, _ label: String) throws(ValidationError) -> Date? {
            guard let text = values[name] else { return nil }
            guard text.utf8.count == 10, let day = LinkFilterQuery.day(text) else {
                throw ValidationError(field: name, "\(label) must be a day such as 2026-11-01")
            }
            return day
        }
        filter.createdFrom = try day("from", "Made from")
        filter.createdBefore = try day("to", "Made to").map { $0.addingTimeInterval(86_400) }  // the whole of the last day
        return ListFilter(filter: filter, values: values, madeInApp: madeInApp)
    }

    func linksPage(_ request: Request, _ viewer: Viewer) async throws -> Response {
        let query = request.uri.queryParameters
        let now = admin.now()
        var links: [Link] = []
        var next: Int64?
        var problem: String?
        var list = ListFilter(filter: LinkFilter(now: now), values: [:], madeInApp: false)
        do {
            list = try Self.listFilter({ query[$0[...]].map(String.init) }, now: now)
        } catch {
            // The form again as it was sent, saying what to change; no links until it selects some.
            problem = error.message
            list.values = Self.listFilterFields.reduce(into: [:]) { values, name in
                if let raw = query[name[...]], !raw.isEmpty { values[name] = String(raw.prefix(200)) }
            }
        }
        if problem == nil {
            let cursor = query["cursor"].flatMap { Int64(String($0.prefix(20))) }
            let page = try await self.links.page(app: viewer.app, environment: viewer.environment, filter: list.filter, limit: 50, after: cursor)
            links = page.links
            next = page.nextCursor
        }
        let range = StatsRange(fromDay: StatsRollup.day(of: now) - 29, toDay: StatsRollup.day(of: now))
        let totals = try await reports.stats(app: viewer.app, environment: viewer.environment, range: range).totals
        let chosen = list.values
        let statuses: [[String: Any]] = [("", "Any state")] .map { ["value": $0.0, "label": $0.1, "selected": chosen["status"] == nil] }
            + LinkFilter.Status.allCases.map { ["value": $0.rawValue, "label": $0.rawValue.capitalized, "selected": chosen["status"] == $0.rawValue] }
        let domains: [[String: Any]] = [["value": "", "label": "Any domain", "selected": chosen["domain"] == nil]]
            + viewer.app.domains.map { ["value": $0, "label": $0, "selected": chosen["domain"]?.lowercased() == $0] }
        let body = render("links", [
            "q": chosen["q"] as Any, "campaign": chosen["campaign"] as Any, "from": chosen["from"] as Any, "to": chosen["to"] as Any,
            "statuses": statuses, "domains": domains, "narrowed": list.narrows, "filtered": !chosen.isEmpty,
            "hasLinks": !links.isEmpty, "next": next.map(String.init) as Any, "filter": list.query, "hidden": list.hiddenFields,
            "madeInApp": list.madeInApp, "csrf": viewer.csrf, "mayEdit": viewer.may(.editLinks), "clientLinks": viewer.app.clientLinks,
            "totals": ["clicks": totals.clicks, "uniqueVisitors": totals.uniqueVisitors, "installs": totals.installs, "filteredClicks": totals.filteredClicks],
            "bulkLimit": Self.bulkLimit,
            "links": links.map { link in
                ["id": link.id, "url": link.shortURL(in: viewer.app), "destination": link.destination, "campaign": Self.campaign(of: link) ?? "",
                 "status": status(link), "created": Self.day(link.createdAt), "createdInApp": link.createdInApp] as [String: Any]
            },
        ])
        return html(status: problem == nil ? .ok : .badRequest, title: "Links", body: body, viewer: viewer, error: problem, notice: Self.listNotice(query))
    }

    /// What the list says after a change that brought the viewer back to it: links deleted, disabled or enabled.
    static func listNotice(_ query: Hummingbird.Parameters) -> String? {
        func count(_ name: String) -> Int? { query[name[...]].flatMap { Int(String($0.prefix(12))) }.map { max(0, $0) } }
        func links(_ count: Int, _ what: String) -> String { "\(count) link\(count == 1 ? "" : "s")\(what) \(count == 1 ? "was" : "were")" }
        if let deleted = count("deleted") { return links(deleted, " made in the app") + " deleted." }
        for verb in ["disabled", "enabled"] {
            guard let changed = count(verb) else { continue }
            return links(changed, "") + " \(verb)." + (query["more"] == "1" ? " More links match: disable them again to go on (\(bulkLimit) at a time)." : "")
        }
        return nil
    }

    /// Most links one bulk change touches: the selected ones of a page, or the first that match the filters.
    static let bulkLimit = 1_000

    /// Disables or enables the links ticked in the list (`id`, repeated), or with `change=disable-matching` every link
    /// that meets the filters the form carries (at most `bulkLimit`). Each change is its own audit event; the list is
    /// shown again, with the same filters, saying what was done.
    func bulkChange(_ viewer: Viewer, _ form: QueryString) async throws -> Response {
        let change = form.value(of: "change") ?? ""
        let now = admin.now()
        var chosen: [Link] = []
        var more = false
        let disable: Bool
        switch change {
        case "disable", "enable":
            disable = change == "disable"
            let ids = form.values(of: "id")
            guard !ids.isEmpty else {
                return html(status: .badRequest, title: "Links", body: Self.backToLinks, viewer: viewer, error: "Tick the links to \(change) first.")
            }
            guard ids.count <= Self.bulkLimit else {
                return html(status: .badRequest, title: "Links", body: Self.backToLinks, viewer: viewer, error: "At most \(Self.bulkLimit) links at once.")
            }
            for id in Set(ids) {
                if let link = try await links.existing(id, app: viewer.app, environment: viewer.environment) { chosen.append(link) }
            }
        case "disable-matching":
            disable = true
            let list: ListFilter
            do { list = try Self.listFilter({ form.value(of: $0) }, now: now) } catch {
                return html(status: .badRequest, title: "Links", body: Self.backToLinks, viewer: viewer, error: error.message)
            }
            guard list.narrows else {
                return html(status: .badRequest, title: "Links", body: Self.backToLinks, viewer: viewer,
                            error: "Choose a filter first: disabling every link of the app at once is not offered.")
            }
            var filter = list.filter
            if filter.status == nil { filter.status = .active }  // the disabled stay as they are; the expired answer nothing anyway
            var cursor: Int64?
            repeat {
                let page = try await links.page(app: viewer.app, environment: viewer.environment, filter: filter, limit: 200, after: cursor)
                chosen += page.links.filter { !$0.disabled }
                cursor = page.nextCursor
            } while cursor != nil && chosen.count < Self.bulkLimit
            more = chosen.count > Self.bulkLimit || cursor != nil
            chosen = Array(chosen.prefix(Self.bulkLimit))
        default:
            return html(status: .badRequest, title: "Links", body: Self.backToLinks, viewer: viewer, error: "change must be disable, enable or disable-matching")
        }
        var changed = 0
        for link in chosen where link.disabled != disable {
            var update = UpdateLinkRequest()
            update.disabled = .set(disable)
            if try await links.change(link, update, by: viewer.actor) != nil { changed += 1 }
        }
        // Back to the list with the same filters (those of a refused filter are dropped), saying what was done.
        let kept = (try? Self.listFilter({ form.value(of: $0) }, now: now))?.query ?? ""
        return redirect("/dashboard?\(disable ? "disabled" : "enabled")=\(changed)\(more ? "&more=1" : "")" + kept)
    }

    static let backToLinks = "<h1>Links</h1><p><a href=\"/dashboard\">Back to the links</a></p>"

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

    /// How a link will look and where it sends each visitor, for the form: what bots build the preview card from (the
    /// link's title, description and image, else the app's), and the edge's answer for each kind of visitor.
    struct LinkPreview {
        var values: [String: Any]
        /// The origin the card's image comes from, which the page's policy then allows.
        var imageOrigin: String?
    }

    func preview(of link: Link, _ viewer: Viewer) async -> LinkPreview {
        let card = ClickRouter().previewPage(link: link, app: viewer.app)
        let report = await debugger.report(for: link, app: viewer.app)
        let origin = card.imageURL.flatMap(Self.imageOrigin)
        let host = URLComponents(string: card.destination)?.host ?? card.destination
        let answers: [LinkDebugAnswer: String] = [.app: "opens the app", .redirect: "redirect", .interstitial: "page, then", .preview: "preview page", .status: "status page"]
        return LinkPreview(values: [
            "title": card.title, "description": card.description as Any, "imageURL": card.imageURL as Any, "showsImage": origin != nil,
            "site": host, "siteName": card.siteName, "shortURL": card.shortURL,
            "cases": report.cases.map { item in
                ["label": item.label, "answer": answers[item.answer] ?? item.answer.rawValue, "url": item.url ?? "—", "reason": item.reason] as [String: Any]
            },
            "warnings": report.warnings.map { ["message": $0.message, "severity": $0.severity] },
            "hasWarnings": !report.warnings.isEmpty,
        ], imageOrigin: origin)
    }

    /// The origin of an image URL (`https://cdn.example.com:8443`), when it is plainly one: a web scheme, a host of
    /// letters, digits, dots and hyphens, a numeric port. Nothing else goes into the page's policy.
    static func imageOrigin(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = parts.host?.lowercased(), !host.isEmpty, host.utf8.count <= 253,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else { return nil }
        return "\(scheme)://\(host)" + (parts.port.map { ":\($0)" } ?? "")
    }

    /// The form again with the preview of what it holds, nothing stored; a value the rules refuse is said as saving
    /// would say it.
    func previewLink(_ viewer: Viewer, _ link: Link?, _ form: QueryString) async -> Response {
        let draft: Link
        do {
            let (request, params) = try Self.fields(form)
            if let link {
                draft = try LinkRules.apply(Self.update(of: link, request: request, params: params), to: link, now: admin.now())
            } else {
                let context = LinkRules.Context(app: viewer.app, environment: viewer.environment, id: "preview", generatedSlug: "…", now: admin.now())
                draft = try LinkRules.makeLink(from: request, context: context)
            }
        } catch {
            return linkForm(viewer, link: link, error: error.message, values: form)
        }
        return linkForm(viewer, link: link, error: nil, values: form, preview: await preview(of: draft, viewer))
    }

    func linkForm(_ viewer: Viewer, link: Link?, error: String?, values: QueryString? = nil, preview: LinkPreview? = nil) -> Response {
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
            "preview": preview?.values as Any,
        ])
        return html(status: error == nil ? .ok : .badRequest, title: link == nil ? "New link" : "Edit link", body: body, viewer: viewer, error: error,
                    imagesFrom: preview?.imageOrigin)
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
            guard try await links.change(link, Self.update(of: link, request: request, params: params), by: viewer.actor) != nil else {
                return redirect("/dashboard")
            }
            return redirect("/dashboard/links/\(link.id)")
        } catch let error as ValidationError {
            return linkForm(viewer, link: link, error: error.message, values: form)
        }
    }

    /// The change an edit form makes to a link: every field it shows, as it shows them.
    static func update(of link: Link, request: CreateLinkRequest, params: [String: String]) -> UpdateLinkRequest {
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
        return update
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
