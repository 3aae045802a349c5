import FerryAPI
import Foundation

/// A Firebase Dynamic Links long link: `https://DOMAIN/?link=https%3A%2F%2Fexample.com%2Fitem&apn=…&ibi=…`, a link
/// written out whole in the URL rather than stored under a slug. Apps built such links by hand, so they live on in
/// code, emails and QR codes. Pure: the query and the app decide everything.
///
/// Each parameter keeps FDL's meaning: `link` (the deep link, required, http or https) is the destination and what
/// the app receives; `apn` and `ibi` name the app on each platform (they must be this app's: a domain serves one app),
/// and without them the platform's visitors go to the web as FDL sent them (`afl`/`ifl`, else `link`); `ipbi` must be
/// one of the app's bundle ids; `afl`, `ifl`, `ipfl`, `ofl`, `isi`, `imv`, `amv`, `efr` and `at`/`ct`/`mt`/`pt`
/// become the link's routing; `st`, `sd`, `si` its preview; `utm_*` its campaign parameters; `gclid` a param handed
/// to the app; `ius` is noted only (the app's own URL scheme serves "Open in app").
///
/// Anyone can write a long link on an app's domain, so the deep link and every fallback must be allowed by the
/// app's `URLAllowlist`, or the visitor gets a 400 page naming the parameter: never a redirect elsewhere.
package struct LongLink: Sendable, Hashable {
    /// The parameters FDL documents for long links, in the order the canonical query lists them.
    package static let parameters = LongLinkParameters.all
    /// The longest long link query read, in bytes.
    package static let maxQueryBytes = 16 * 1024

    /// The decoded value of each FDL parameter present.
    package let values: [String: String]
    /// The parameters present, in `parameters` order, each re-encoded: the same link written two ways (parameters in
    /// another order, other parameters added, other percent-encoding) has one canonical query.
    package let canonicalQuery: String

    /// Whether a request's query is a long link's: it has a `link` parameter.
    package static func isLongLink(query: String?) -> Bool {
        guard let query, !query.isEmpty else { return false }
        return query.hasPrefix("link=") || query.contains("&link=")
    }

    /// Reads a long link's query (without `?`).
    /// - Throws: `LongLinkRefusal` for a query that is too long, repeats a parameter, holds text that is not UTF-8 or
    ///   has control characters, or has no `link`.
    package init(query: String) throws(LongLinkRefusal) {
        guard query.utf8.count <= Self.maxQueryBytes else {
            throw LongLinkRefusal(parameter: nil, "the link is longer than \(Self.maxQueryBytes / 1024) KiB")
        }
        let parsed = QueryString(query, maxItems: 200, maxBytes: Self.maxQueryBytes)
        guard parsed.decodesAsUTF8 else { throw LongLinkRefusal(parameter: nil, "the link holds percent-escapes that are not UTF-8 text") }
        var values: [String: String] = [:]
        let known = Set(Self.parameters)
        for item in parsed.items {
            let name = QueryString.decode(Substring(item.name))
            guard known.contains(name) else { continue }
            guard values[name] == nil else { throw LongLinkRefusal(parameter: name, "the parameter '\(name)' appears more than once") }
            let value = QueryString.decode(Substring(item.value ?? ""))
            guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }) else {
                throw LongLinkRefusal(parameter: name, "the parameter '\(name)' holds control characters")
            }
            if !value.isEmpty { values[name] = value }
        }
        guard values["link"] != nil else { throw LongLinkRefusal(parameter: "link", "the link has no deep link: 'link' is required") }
        self.values = values
        var canonical = QueryString("")
        for name in Self.parameters { if let value = values[name] { canonical.set(name, value) } }
        canonicalQuery = canonical.encoded
    }

    /// The link this long link stands for on one of the app's domains, checked as the API checks a link and against
    /// the app's allowlist.
    /// - Throws: `LongLinkRefusal` naming the parameter at fault.
    package func link(app: App, domain: String, id: String, slug: String, now: Date) throws(LongLinkRefusal) -> Link {
        let request = try request(app: app)
        let allowlist: URLAllowlist
        do { allowlist = try URLAllowlist(app: app) } catch {
            throw LongLinkRefusal(parameter: nil, "this app's URL patterns cannot be read: \(error.message)")
        }
        for (name, url) in [("link", request.destination), ("ifl", values["ifl"]), ("ipfl", values["ipfl"]), ("afl", values["afl"]), ("ofl", values["ofl"])] {
            guard let url, !allowlist.allows(url) else { continue }
            throw LongLinkRefusal(
                parameter: name,
                allowlist.hasPatterns
                    ? "'\(name)' leads somewhere this app's URL patterns do not allow"
                    : "'\(name)' leads off this app's own sites, and the app has no URL patterns allowing other places"
            )
        }
        var link = Link(
            id: id, appID: app.id, environment: .live, domain: domain, slug: slug, destination: request.destination,
            params: request.params ?? [:], utm: request.utm ?? UTMParameters(), social: request.social ?? SocialMetadata(),
            routing: request.routing ?? LinkRouting(), longLink: canonicalQuery, createdAt: now, updatedAt: now
        )
        do { try LinkRules.validateContent(&link) } catch {
            throw LongLinkRefusal(parameter: Self.parameter(forField: error.field), error.message)
        }
        return link
    }

    /// The request for a short link with this long link's meaning, for one of the app's domains (Firebase's REST API
    /// makes short links from long links): checked for FDL's own rules (the app's names, whole numbers, `efr`), not yet
    /// against the app's allowlist nor Ferry's link rules.
    /// - Throws: `LongLinkRefusal` naming the parameter at fault.
    package func request(app: App) throws(LongLinkRefusal) -> CreateLinkRequest {
        let deepLink = values["link"] ?? ""
        do { try URLRules.validateWebURL(deepLink, field: "link") } catch {
            throw LongLinkRefusal(parameter: "link", "the deep link must be an http or https URL")
        }
        if let apn = values["apn"], apn != app.android.packageName {
            throw LongLinkRefusal(parameter: "apn", "'\(apn.prefix(160))' is not the Android app of this domain")
        }
        if let ibi = values["ibi"], !app.ios.bundleIDs.contains(ibi) {
            throw LongLinkRefusal(parameter: "ibi", "'\(ibi.prefix(160))' is not an iOS app of this domain")
        }
        if let ipbi = values["ipbi"], !app.ios.bundleIDs.contains(ipbi) {
            throw LongLinkRefusal(parameter: "ipbi", "'\(ipbi.prefix(160))' is not an iOS app of this domain")
        }
        var routing = LinkRouting(
            iosFallbackURL: values["ifl"], ipadFallbackURL: values["ipfl"], ipadBundleID: values["ipbi"], appStoreID: values["isi"],
            iosMinimumVersion: values["imv"], androidFallbackURL: values["afl"], otherPlatformFallbackURL: values["ofl"]
        )
        if let amv = values["amv"] {
            guard let code = Int(amv) else { throw LongLinkRefusal(parameter: "amv", "the minimum version code must be a whole number") }
            routing.androidMinimumVersionCode = code
        }
        if let efr = values["efr"] {
            switch efr {
            case "1", "true": routing.skipPreviewPage = true
            case "0", "false": break
            default: throw LongLinkRefusal(parameter: "efr", "efr must be 1 or 0")
            }
        }
        // Without its app on a platform, FDL sent that platform's visitors to the web: the fallback, else the deep link.
        if values["apn"] == nil { routing.androidFallbackURL = routing.androidFallbackURL ?? deepLink }
        if values["ibi"] == nil { routing.iosFallbackURL = routing.iosFallbackURL ?? deepLink }
        let analytics = AppStoreAnalytics(affiliateToken: values["at"], campaignToken: values["ct"], mediaType: values["mt"], providerToken: values["pt"])
        routing.appStoreAnalytics = analytics.isEmpty ? nil : analytics
        let utm = UTMParameters(
            source: values["utm_source"], medium: values["utm_medium"], campaign: values["utm_campaign"], content: values["utm_content"],
            term: values["utm_term"]
        )
        let social = SocialMetadata(title: values["st"], description: values["sd"], imageURL: values["si"])
        return CreateLinkRequest(
            destination: deepLink, params: values["gclid"].map { ["gclid": $0] }, utm: utm.isEmpty ? nil : utm,
            social: social.isEmpty ? nil : social, routing: routing.isEmpty ? nil : routing
        )
    }

    /// The FDL parameter a field of Ferry's link rules comes from.
    static func parameter(forField field: String?) -> String? {
        let names: [String: String] = [
            "destination": "link", "routing.iosFallbackURL": "ifl", "routing.ipadFallbackURL": "ipfl", "routing.ipadBundleID": "ipbi",
            "routing.appStoreID": "isi", "routing.iosMinimumVersion": "imv", "routing.androidFallbackURL": "afl",
            "routing.androidMinimumVersionCode": "amv", "routing.otherPlatformFallbackURL": "ofl", "social.title": "st",
            "social.description": "sd", "social.imageURL": "si", "utm.source": "utm_source", "utm.medium": "utm_medium",
            "utm.campaign": "utm_campaign", "utm.content": "utm_content", "utm.term": "utm_term", "params.gclid": "gclid",
            "routing.appStoreAnalytics.affiliateToken": "at", "routing.appStoreAnalytics.campaignToken": "ct",
            "routing.appStoreAnalytics.mediaType": "mt", "routing.appStoreAnalytics.providerToken": "pt",
        ]
        return field.flatMap { names[$0] }
    }
}

/// Why a long link is not followed: answered with a 400 page that names the parameter.
package struct LongLinkRefusal: Error, Sendable, Hashable {
    /// The FDL parameter at fault, when one is.
    package var parameter: String?
    /// A sentence for people.
    package var message: String

    /// Creates a refusal.
    package init(parameter: String?, _ message: String) {
        self.parameter = parameter
        self.message = message
    }

    /// The page a visitor gets.
    package var page: StatusPage {
        StatusPage(status: 400, title: "This link cannot be opened", message: "This link is not valid: \(message). Check that it was copied completely, or tell whoever shared it.")
    }
}
