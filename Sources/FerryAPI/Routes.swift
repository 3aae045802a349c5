/// Paths of the Ferry API, shared by the SDK and the server so they never drift apart.
package enum FerryRoutes {
    /// `POST` creates, `GET` lists.
    package static let links = "/v1/links"
    /// `GET`, `PATCH`, `DELETE` one link.
    package static func link(id: String) -> String { "\(links)/\(id)" }
    /// `GET`: the link data behind a slug, for a Universal Link the app was opened with.
    package static func resolve(slug: String) -> String { "\(links)/resolve/\(slug)" }
    /// `GET ?url=…`: the link data behind a whole link URL (a Firebase Dynamic Links long link `https://domain/?link=…`).
    package static let resolveURL = "\(links)/resolve"
    /// The header the resolve calls carry the opening install's id in (rather than in the URL, which proxies and logs
    /// keep); the server also reads the older `installID` query parameter.
    package static let installIDHeader = "X-Ferry-Install-ID"
    /// `POST`: match a first launch to the click that led to the install.
    package static let attributionMatch = "/v1/attribution/match"
    /// `POST`: check a publishable key and fetch the app's settings.
    package static let sdkValidate = "/v1/sdk/validate"
    /// `POST`: bind an install's attribution to the app's user id.
    package static let attributionUser = "/v1/attribution/user"
    /// `POST`: the token a signed-in person's clicks carry (`ferry_user`), for a user id (secret key).
    package static let attributionUserTokens = "/v1/attribution/user-tokens"
    /// `POST`: record SDK events.
    package static let events = "/v1/events"
    /// `GET`: an app's statistics (secret key).
    package static let stats = "/v1/stats"
    /// `GET`: one link's statistics (secret key).
    package static func linkStats(id: String) -> String { "\(links)/\(id)/stats" }
    /// `GET`: a QR code of a link's short URL (secret key).
    package static func linkQR(id: String) -> String { "\(links)/\(id)/qr" }
    /// `GET`: where a link sends each kind of visitor, and what is wrong with its setup (secret key).
    package static func linkDebug(id: String) -> String { "\(links)/\(id)/debug" }
    /// `GET`: clicks of a date range as CSV (secret key).
    package static let exportClicks = "/v1/exports/clicks"
    /// `GET`: answered installs of a date range as CSV (secret key).
    package static let exportAttributions = "/v1/exports/attributions"
    /// `POST` creates, `GET` lists an app's webhooks (secret key).
    package static let webhooks = "/v1/webhooks"
    /// `GET` lists an app's link domains, `POST` asks for a new one (secret key; adding needs a live key).
    package static let domains = "/v1/domains"
    /// `DELETE` drops one of an app's domains, or a pending one; `PATCH` sets its path prefix (live secret key).
    package static func domain(_ name: String) -> String { "\(domains)/\(name)" }
    /// `POST`: checks the proof of control of a pending domain and makes it serve links (live secret key).
    package static func verifyDomain(_ name: String) -> String { "\(domains)/\(name)/verify" }
    /// `GET`: the app's audit log, newest first, as JSON pages or CSV (secret key, `audit:read`).
    package static let auditLog = "/v1/audit-log"
    /// Apple's association file.
    package static let appleAppSiteAssociation = "/.well-known/apple-app-site-association"
    /// Android's Digital Asset Links file.
    package static let assetLinks = "/.well-known/assetlinks.json"
}

/// The query parameters Firebase Dynamic Links documents for long links (`https://domain/?link=…&apn=…`), in the order
/// a canonical long link lists them: the server reads each into the link, and FerryKit leaves them out of the params
/// it lays over a long link's data.
package enum LongLinkParameters {
    /// Every parameter, in canonical order.
    package static let all = [
        "link", "apn", "afl", "amv", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl", "st", "sd", "si",
        "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "gclid", "at", "ct", "mt", "pt",
    ]
}
