import FerryAPI
import Foundation

/// Turns API requests into stored links, checking every field against Ferry's bounds.
package enum LinkRules {
    /// Most params a link may carry.
    package static let maxParams = 50
    // Lengths are counted in characters as JSON Schema counts them (Unicode scalars), so that the API description's
    // `maxLength` is the rule itself.
    /// Longest param name, in characters.
    package static let maxParamKeyLength = 128
    /// Longest param value, in characters.
    package static let maxParamValueLength = 1024
    /// Largest params dictionary, keys and values together, in characters.
    package static let maxParamsTotalLength = 16 * 1024
    /// Longest short text (campaign, referrer, each UTM field), in characters.
    package static let maxShortTextLength = 256
    /// Longest social title, in characters.
    package static let maxTitleLength = 300
    /// Longest social description, in characters.
    package static let maxDescriptionLength = 1000

    /// Everything a new link needs beyond the request.
    package struct Context: Sendable {
        /// The app the key belongs to.
        package var app: App
        /// The key's environment.
        package var environment: APIEnvironment
        /// The new link's id.
        package var id: String
        /// A fresh random slug, used when the request has none.
        package var generatedSlug: String
        /// Now.
        package var now: Date

        /// Creates a context.
        package init(app: App, environment: APIEnvironment, id: String, generatedSlug: String, now: Date) {
            self.app = app
            self.environment = environment
            self.id = id
            self.generatedSlug = generatedSlug
            self.now = now
        }
    }

    /// Validates a create request and builds the link it describes.
    package static func makeLink(from request: CreateLinkRequest, context: Context) throws(ValidationError) -> Link {
        let domain: String
        if let requested = request.domain {
            let normalized = try DomainName.validate(requested)
            // Well formed, but not the app's: as a link of another app, it does not exist for this key.
            guard context.app.domains.contains(normalized) else {
                throw ValidationError(code: .notFound, field: "domain", "domain '\(normalized)' is not one of this app's link domains")
            }
            domain = normalized
        } else {
            guard let first = context.app.domains.first else {
                throw ValidationError(code: .conflict, field: "domain", "this app has no link domain; add one with 'ferry app update'")
            }
            domain = first
        }
        let slug = try request.slug.map { s throws(ValidationError) in try Slug.validateCustom(s) } ?? context.generatedSlug
        // Any expiry is kept: one in the past makes a link that is expired at once, as a PATCH to it does.
        var link = Link(
            id: context.id, appID: context.app.id, environment: context.environment, domain: domain, slug: slug,
            destination: request.destination, iosURL: request.iosURL, androidURL: request.androidURL,
            params: request.params ?? [:], utm: request.utm ?? UTMParameters(), campaign: request.campaign,
            referrer: request.referrer, social: request.social ?? SocialMetadata(), expiresAt: request.expiresAt,
            disabled: request.disabled ?? false, routing: request.routing ?? LinkRouting(), createdAt: context.now, updatedAt: context.now
        )
        try validateContent(&link)
        return link
    }

    /// Applies a merge-patch to a stored link, validating the result.
    package static func apply(_ update: UpdateLinkRequest, to link: Link, now: Date) throws(ValidationError) -> Link {
        if update.domain != .unchanged { throw ValidationError(field: "domain", "a link's domain cannot change; create a new link") }
        if update.slug != .unchanged { throw ValidationError(field: "slug", "a link's slug cannot change; create a new link") }
        var next = link
        switch update.destination {
        case .unchanged: break
        case .set(let value): next.destination = value
        case .clear: throw ValidationError(field: "destination", "destination is required and cannot be null")
        }
        switch update.disabled {
        case .unchanged: break
        case .set(let value): next.disabled = value
        case .clear: throw ValidationError(field: "disabled", "disabled must be true or false")
        }
        next.iosURL = update.iosURL.applied(to: link.iosURL)
        next.androidURL = update.androidURL.applied(to: link.androidURL)
        next.params = update.params.applied(to: link.params) ?? [:]
        next.utm = update.utm.applied(to: link.utm) ?? UTMParameters()
        next.campaign = update.campaign.applied(to: link.campaign)
        next.referrer = update.referrer.applied(to: link.referrer)
        next.social = update.social.applied(to: link.social) ?? SocialMetadata()
        next.expiresAt = update.expiresAt.applied(to: link.expiresAt)
        next.routing = update.routing.applied(to: link.routing) ?? LinkRouting()
        next.updatedAt = now
        try validateContent(&next)
        return next
    }

    /// Checks the fields every link has, whether new or changed.
    static func validateContent(_ link: inout Link) throws(ValidationError) {
        try URLRules.validateWebURL(link.destination, field: "destination")
        if let ios = link.iosURL { try URLRules.validateAppURL(ios, field: "iosURL") }
        if let android = link.androidURL { try URLRules.validateAppURL(android, field: "androidURL") }
        try validateParams(link.params)
        try checkText(link.utm.source, field: "utm.source", max: maxShortTextLength)
        try checkText(link.utm.medium, field: "utm.medium", max: maxShortTextLength)
        try checkText(link.utm.campaign, field: "utm.campaign", max: maxShortTextLength)
        try checkText(link.utm.content, field: "utm.content", max: maxShortTextLength)
        try checkText(link.utm.term, field: "utm.term", max: maxShortTextLength)
        try checkText(link.campaign, field: "campaign", max: maxShortTextLength)
        try checkText(link.referrer, field: "referrer", max: maxShortTextLength)
        try validateSocial(link.social, field: "social")
        link.routing = try validateRouting(link.routing)
    }

    /// The longest fallback URL of a link's routing, as for a preview image: four of them full still leave room in
    /// a request body for the link's other fields.
    package static let maxFallbackURLLength = 2048
    /// The longest `iosMinimumVersion`.
    package static let maxVersionLength = 32
    /// The highest Android version code Google Play accepts.
    package static let maxAndroidVersionCode = 2_100_000_000

    /// Checks per-link routing, returning it with the App Store id in its canonical form (digits only).
    package static func validateRouting(_ routing: LinkRouting, field: String = "routing") throws(ValidationError) -> LinkRouting {
        var routing = routing
        for (name, url) in routing.urls {
            if url.utf8.count > maxFallbackURLLength {
                throw ValidationError(field: "\(field).\(name)", "\(field).\(name) must be at most \(maxFallbackURLLength) characters")
            }
            try URLRules.validateWebURL(url, field: "\(field).\(name)")
        }
        if let bundle = routing.ipadBundleID {
            routing.ipadBundleID = try AppRules.validateBundleID(bundle, field: "\(field).ipadBundleID")
        }
        if let store = routing.appStoreID {
            do { routing.appStoreID = try AppRules.validateAppStoreID(store) } catch {
                throw ValidationError(field: "\(field).appStoreID", error.message)
            }
        }
        if let version = routing.iosMinimumVersion {
            guard (1...maxVersionLength).contains(version.utf8.count),
                  version.utf8.allSatisfy({ URLRules.isDigit($0) || URLRules.isLetter($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
            else {
                throw ValidationError(
                    field: "\(field).iosMinimumVersion",
                    "\(field).iosMinimumVersion must be a version such as 2.4.1 (letters, digits, '.' and '-', at most \(maxVersionLength))"
                )
            }
        }
        if let code = routing.androidMinimumVersionCode, !(0...maxAndroidVersionCode).contains(code) {
            throw ValidationError(field: "\(field).androidMinimumVersionCode", "\(field).androidMinimumVersionCode must be 0 to \(maxAndroidVersionCode)")
        }
        if let analytics = routing.appStoreAnalytics {
            let tokens = [
                ("affiliateToken", analytics.affiliateToken), ("campaignToken", analytics.campaignToken),
                ("mediaType", analytics.mediaType), ("providerToken", analytics.providerToken),
            ]
            for case let (name, value?) in tokens {
                try checkText(value, field: "\(field).appStoreAnalytics.\(name)", max: maxShortTextLength)
            }
            if analytics.isEmpty { routing.appStoreAnalytics = nil }
        }
        return routing
    }

    /// Checks preview fields (also used for an app's defaults).
    package static func validateSocial(_ social: SocialMetadata, field: String) throws(ValidationError) {
        try checkText(social.title, field: "\(field).title", max: maxTitleLength)
        try checkText(social.description, field: "\(field).description", max: maxDescriptionLength, allowNewlines: true)
        if let image = social.imageURL {
            if image.utf8.count > 2048 { throw ValidationError(field: "\(field).imageURL", "\(field).imageURL must be at most 2048 characters") }
            try URLRules.validateWebURL(image, field: "\(field).imageURL")
        }
    }

    static func validateParams(_ params: [String: String]) throws(ValidationError) {
        if params.count > maxParams { throw ValidationError(field: "params", "params may have at most \(maxParams) entries") }
        var total = 0
        for (key, value) in params.sorted(by: { $0.key < $1.key }) {
            let field = "params.\(key.prefix(64))"
            if key.isEmpty || key.unicodeScalars.count > maxParamKeyLength {
                throw ValidationError(field: "params", "param names must be 1 to \(maxParamKeyLength) characters")
            }
            if key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) {
                throw ValidationError(field: "params", "param names must not contain spaces or control characters")
            }
            if value.unicodeScalars.count > maxParamValueLength {
                throw ValidationError(field: field, "param values must be at most \(maxParamValueLength) characters")
            }
            if value.unicodeScalars.contains("\u{0}") {
                throw ValidationError(field: field, "param values must not contain NUL characters")
            }
            total += key.unicodeScalars.count + value.unicodeScalars.count
        }
        if total > maxParamsTotalLength { throw ValidationError(field: "params", "params may total at most \(maxParamsTotalLength) characters") }
    }

    /// Bounded single-line text (newlines optionally allowed), no other control characters; `max` counts characters
    /// (Unicode scalars, as JSON Schema's `maxLength` does).
    package static func checkText(_ text: String?, field: String, max: Int, allowNewlines: Bool = false) throws(ValidationError) {
        guard let text else { return }
        if text.unicodeScalars.count > max { throw ValidationError(field: field, "\(field) must be at most \(max) characters") }
        for scalar in text.unicodeScalars where scalar.properties.generalCategory == .control {
            if allowNewlines && (scalar == "\n" || scalar == "\r" || scalar == "\t") { continue }
            throw ValidationError(field: field, "\(field) must not contain control characters")
        }
    }
}
