import Foundation

/// Campaign parameters of a link, named after the `utm_*` query parameters they become.
public struct UTMParameters: Codable, Sendable, Hashable {
    /// `utm_source`: where the traffic comes from (`newsletter`, `facebook`).
    public var source: String?
    /// `utm_medium`: the channel (`email`, `social`, `cpc`).
    public var medium: String?
    /// `utm_campaign`: the campaign name.
    public var campaign: String?
    /// `utm_content`: which variant of the content.
    public var content: String?
    /// `utm_term`: paid search keywords.
    public var term: String?

    /// Creates campaign parameters.
    public init(source: String? = nil, medium: String? = nil, campaign: String? = nil, content: String? = nil, term: String? = nil) {
        self.source = source
        self.medium = medium
        self.campaign = campaign
        self.content = content
        self.term = term
    }

    /// True when no parameter is set.
    public var isEmpty: Bool { source == nil && medium == nil && campaign == nil && content == nil && term == nil }

    /// The parameters as `utm_*` query items, in the conventional order, skipping unset ones.
    public var queryItems: [(name: String, value: String)] {
        [("utm_source", source), ("utm_medium", medium), ("utm_campaign", campaign), ("utm_content", content), ("utm_term", term)]
            .compactMap { name, value in value.map { (name, $0) } }
    }
}

/// What link-unfurling bots show for a link: Open Graph and Twitter Card fields.
package struct SocialMetadata: Codable, Sendable, Hashable {
    /// The preview title.
    package var title: String?
    /// The preview description.
    package var description: String?
    /// An absolute http(s) URL of the preview image.
    package var imageURL: String?

    /// Creates preview fields.
    package init(title: String? = nil, description: String? = nil, imageURL: String? = nil) {
        self.title = title
        self.description = description
        self.imageURL = imageURL
    }

    /// True when no field is set.
    package var isEmpty: Bool { title == nil && description == nil && imageURL == nil }
}

/// The body of `POST /v1/links`.
///
/// ```json
/// {"slug": "summer", "destination": "https://example.com/sale",
///  "iosURL": "myapp://sale", "utm": {"source": "newsletter"}}
/// ```
package struct CreateLinkRequest: Codable, Sendable, Hashable {
    /// The link domain; defaults to the app's first domain.
    package var domain: String?
    /// A custom slug (`[a-z0-9_-]`, 1–64, case-insensitive); generated when absent.
    package var slug: String?
    /// The web page for visitors without the app (absolute http or https URL). Required.
    package var destination: String
    /// The deep link the iOS app opens (custom scheme or https).
    package var iosURL: String?
    /// The deep link the Android app opens (custom scheme or https).
    package var androidURL: String?
    /// Free-form data handed to the app with the link.
    package var params: [String: String]?
    /// Campaign parameters.
    package var utm: UTMParameters?
    /// A campaign name for grouping links in statistics.
    package var campaign: String?
    /// Who shared the link (a user id, a partner), for referral programmes.
    package var referrer: String?
    /// Social preview fields; the app's defaults fill what is missing.
    package var social: SocialMetadata?
    /// After this instant the link answers 404 (saying that it has expired).
    package var expiresAt: Date?
    /// A disabled link answers 404 (saying that it is no longer available).
    package var disabled: Bool?
    /// Per-link routing that overrides the app's settings (fallbacks, store ids, iPad, skipping the preview page).
    package var routing: LinkRouting?

    /// Creates a request.
    package init(
        domain: String? = nil, slug: String? = nil, destination: String, iosURL: String? = nil, androidURL: String? = nil,
        params: [String: String]? = nil, utm: UTMParameters? = nil, campaign: String? = nil, referrer: String? = nil,
        social: SocialMetadata? = nil, expiresAt: Date? = nil, disabled: Bool? = nil, routing: LinkRouting? = nil
    ) {
        self.routing = routing
        self.domain = domain
        self.slug = slug
        self.destination = destination
        self.iosURL = iosURL
        self.androidURL = androidURL
        self.params = params
        self.utm = utm
        self.campaign = campaign
        self.referrer = referrer
        self.social = social
        self.expiresAt = expiresAt
        self.disabled = disabled
    }
}

/// A change to one field of a stored value: leave it, set it, or clear it (JSON `null`).
package enum FieldUpdate<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The field was absent: keep the stored value.
    case unchanged
    /// The field had a value: store it.
    case set(Value)
    /// The field was `null`: remove the stored value.
    case clear

    /// Applies the update to a stored optional value.
    package func applied(to current: Value?) -> Value? {
        switch self {
        case .unchanged: current
        case .set(let value): value
        case .clear: nil
        }
    }
}

/// The body of `PATCH /v1/links/{id}`, with JSON merge-patch meaning: an absent field is left alone,
/// `null` clears it, a value replaces it. `domain` and `slug` cannot change: create a new link instead.
package struct UpdateLinkRequest: Codable, Sendable, Hashable {
    /// New web destination (cannot be cleared).
    package var destination: FieldUpdate<String> = .unchanged
    /// New iOS deep link.
    package var iosURL: FieldUpdate<String> = .unchanged
    /// New Android deep link.
    package var androidURL: FieldUpdate<String> = .unchanged
    /// New params (replaces the whole dictionary).
    package var params: FieldUpdate<[String: String]> = .unchanged
    /// New campaign parameters (replaces all five).
    package var utm: FieldUpdate<UTMParameters> = .unchanged
    /// New campaign name.
    package var campaign: FieldUpdate<String> = .unchanged
    /// New referrer.
    package var referrer: FieldUpdate<String> = .unchanged
    /// New social preview fields (replaces all three).
    package var social: FieldUpdate<SocialMetadata> = .unchanged
    /// New expiry.
    package var expiresAt: FieldUpdate<Date> = .unchanged
    /// Disable or enable the link (cannot be cleared).
    package var disabled: FieldUpdate<Bool> = .unchanged
    /// New per-link routing (replaces every field; `null` returns the link to the app's settings).
    package var routing: FieldUpdate<LinkRouting> = .unchanged
    /// Present only to be refused: a link's domain never changes.
    package var domain: FieldUpdate<String> = .unchanged
    /// Present only to be refused: a link's slug never changes.
    package var slug: FieldUpdate<String> = .unchanged

    /// Creates an empty update.
    package init() {}

    enum CodingKeys: String, CodingKey {
        case destination, iosURL, androidURL, params, utm, campaign, referrer, social, expiresAt, disabled, routing, domain, slug
    }

    /// Decodes absent keys as `.unchanged` and `null` as `.clear`.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func field<T: Decodable & Sendable & Hashable>(_ key: CodingKeys, _ type: T.Type) throws -> FieldUpdate<T> {
            guard c.contains(key) else { return .unchanged }
            if try c.decodeNil(forKey: key) { return .clear }
            return .set(try c.decode(T.self, forKey: key))
        }
        destination = try field(.destination, String.self)
        iosURL = try field(.iosURL, String.self)
        androidURL = try field(.androidURL, String.self)
        params = try field(.params, [String: String].self)
        utm = try field(.utm, UTMParameters.self)
        campaign = try field(.campaign, String.self)
        referrer = try field(.referrer, String.self)
        social = try field(.social, SocialMetadata.self)
        expiresAt = try field(.expiresAt, Date.self)
        disabled = try field(.disabled, Bool.self)
        routing = try field(.routing, LinkRouting.self)
        domain = try field(.domain, String.self)
        slug = try field(.slug, String.self)
    }

    /// Encodes `.set` as the value, `.clear` as `null`, and leaves `.unchanged` out.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func put<T: Encodable & Sendable & Hashable>(_ update: FieldUpdate<T>, _ key: CodingKeys) throws {
            switch update {
            case .unchanged: break
            case .set(let value): try c.encode(value, forKey: key)
            case .clear: try c.encodeNil(forKey: key)
            }
        }
        try put(destination, .destination)
        try put(iosURL, .iosURL)
        try put(androidURL, .androidURL)
        try put(params, .params)
        try put(utm, .utm)
        try put(campaign, .campaign)
        try put(referrer, .referrer)
        try put(social, .social)
        try put(expiresAt, .expiresAt)
        try put(disabled, .disabled)
        try put(routing, .routing)
        try put(domain, .domain)
        try put(slug, .slug)
    }
}

/// A link as the API returns it.
package struct LinkResponse: Codable, Sendable, Hashable {
    /// The link's id, such as `lnk_…`.
    package var id: String
    /// The full short URL, such as `https://go.example.com/summer`.
    package var url: String
    /// The link domain.
    package var domain: String
    /// The slug (lowercase).
    package var slug: String
    /// `live` or `test`, from the key that created it.
    package var environment: APIEnvironment
    /// The web destination.
    package var destination: String
    /// The iOS deep link.
    package var iosURL: String?
    /// The Android deep link.
    package var androidURL: String?
    /// Data for the app.
    package var params: [String: String]
    /// Campaign parameters.
    package var utm: UTMParameters
    /// Campaign name.
    package var campaign: String?
    /// Who shared the link.
    package var referrer: String?
    /// Social preview fields as stored on the link (without the app's defaults).
    package var social: SocialMetadata
    /// Expiry, if any.
    package var expiresAt: Date?
    /// Whether the link is disabled.
    package var disabled: Bool
    /// Per-link routing (every field null when the link follows the app's settings).
    package var routing: LinkRouting
    /// Whether the link is a long link (`https://domain/?link=…`), recorded the first time it was clicked.
    package var isLongLink: Bool
    /// Whether an install of the app made the link, with a publishable key (a share link).
    package var createdInApp: Bool
    /// When it was created.
    package var createdAt: Date
    /// When it last changed.
    package var updatedAt: Date

    /// Creates a link response.
    package init(
        id: String, url: String, domain: String, slug: String, environment: APIEnvironment, destination: String,
        iosURL: String?, androidURL: String?, params: [String: String], utm: UTMParameters, campaign: String?,
        referrer: String?, social: SocialMetadata, expiresAt: Date?, disabled: Bool, routing: LinkRouting = LinkRouting(),
        isLongLink: Bool = false, createdInApp: Bool = false, createdAt: Date, updatedAt: Date
    ) {
        self.routing = routing
        self.isLongLink = isLongLink
        self.createdInApp = createdInApp
        self.id = id
        self.url = url
        self.domain = domain
        self.slug = slug
        self.environment = environment
        self.destination = destination
        self.iosURL = iosURL
        self.androidURL = androidURL
        self.params = params
        self.utm = utm
        self.campaign = campaign
        self.referrer = referrer
        self.social = social
        self.expiresAt = expiresAt
        self.disabled = disabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension LinkResponse {
    private enum CodingKeys: String, CodingKey {
        case id, url, domain, slug, environment, destination, iosURL, androidURL, params, utm, campaign, referrer, social
        case expiresAt, disabled, routing, isLongLink, createdInApp, createdAt, updatedAt
    }

    /// Encodes every field, unset optional ones as `null`, so clients see the whole shape.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(url, forKey: .url)
        try c.encode(domain, forKey: .domain)
        try c.encode(slug, forKey: .slug)
        try c.encode(environment, forKey: .environment)
        try c.encode(destination, forKey: .destination)
        try c.encode(iosURL, forKey: .iosURL)
        try c.encode(androidURL, forKey: .androidURL)
        try c.encode(params, forKey: .params)
        try c.encode(utm, forKey: .utm)
        try c.encode(campaign, forKey: .campaign)
        try c.encode(referrer, forKey: .referrer)
        try c.encode(social, forKey: .social)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(disabled, forKey: .disabled)
        try c.encode(routing, forKey: .routing)
        try c.encode(isLongLink, forKey: .isLongLink)
        try c.encode(createdInApp, forKey: .createdInApp)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}

/// The answer of `DELETE /v1/links?createdInApp=true`.
package struct DeletedLinksResponse: Codable, Sendable, Hashable {
    /// How many links were deleted.
    package var deleted: Int

    /// Creates an answer.
    package init(deleted: Int) { self.deleted = deleted }
}

/// One page of `GET /v1/links`, newest first.
package struct LinkListResponse: Codable, Sendable, Hashable {
    /// The links on this page.
    package var data: [LinkResponse]
    /// Pass as `cursor` to get the next page; nil on the last page.
    package var nextCursor: String?

    /// Creates a page.
    package init(data: [LinkResponse], nextCursor: String?) {
        self.data = data
        self.nextCursor = nextCursor
    }

    private enum CodingKeys: String, CodingKey { case data, nextCursor }

    /// Encodes `nextCursor` as `null` on the last page.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(data, forKey: .data)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}
