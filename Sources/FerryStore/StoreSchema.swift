#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation

// The columns of Ferry's tables and how a row of each becomes a model, the same on SQLite and PostgreSQL. The
// statements stay in each store (their placeholders, conflict clauses and types differ); what a row means is here.
// Times are seconds since 1970 (REAL, DOUBLE PRECISION), lists and maps JSON text, booleans SQLite's 0/1 or
// PostgreSQL's BOOLEAN.

// MARK: Apps and keys

/// The columns of `apps`.
enum AppColumn: Int, StoreColumn {
    case id, name, iosTeamID, iosBundleIDs, iosAppStoreID, iosURLScheme, androidPackage, androidSHA256, fallbackURL
    case socialTitle, socialDescription, socialImageURL, attributionWindow, copyToOpen, createdAt, allowedURLPatterns, pathPrefixes
    case clientLinks, minConfidence, attributionModel

    var columnName: String {
        switch self {
        case .id: "id"
        case .name: "name"
        case .iosTeamID: "ios_team_id"
        case .iosBundleIDs: "ios_bundle_ids"
        case .iosAppStoreID: "ios_app_store_id"
        case .iosURLScheme: "ios_url_scheme"
        case .androidPackage: "android_package"
        case .androidSHA256: "android_sha256"
        case .fallbackURL: "fallback_url"
        case .socialTitle: "social_title"
        case .socialDescription: "social_description"
        case .socialImageURL: "social_image_url"
        case .attributionWindow: "attribution_window"
        case .copyToOpen: "copy_to_open"
        case .createdAt: "created_at"
        case .allowedURLPatterns: "allowed_url_patterns"
        case .pathPrefixes: "path_prefixes"
        case .clientLinks: "client_links"
        case .minConfidence: "min_confidence"
        case .attributionModel: "attribution_model"
        }
    }
}

extension App {
    /// An `apps` row; its domains are rows of `domains`, read apart.
    init(row: some StoreRow, domains: [String]) throws {
        let row = row.columns(AppColumn.self)
        try self.init(
            id: row[.id], name: row[.name], domains: domains,
            ios: IOSSettings(teamID: row[.iosTeamID], bundleIDs: JSONText.decode(row[.iosBundleIDs] as String) ?? [],
                             appStoreID: row[.iosAppStoreID], urlScheme: row[.iosURLScheme]),
            android: AndroidSettings(packageName: row[.androidPackage], sha256Fingerprints: JSONText.decode(row[.androidSHA256] as String) ?? []),
            fallbackURL: row[.fallbackURL],
            social: SocialMetadata(title: row[.socialTitle], description: row[.socialDescription], imageURL: row[.socialImageURL]),
            attribution: AttributionSettings(window: row[.attributionWindow], copyToOpen: row[.copyToOpen], minConfidence: row[.minConfidence],
                                             model: AttributionSettings.Model(rawValue: row[.attributionModel]) ?? .fixed),
            allowedURLPatterns: JSONText.decode(row[.allowedURLPatterns] as String) ?? [],
            clientLinks: row[.clientLinks],
            pathPrefixes: JSONText.decode(row[.pathPrefixes] as String) ?? [:],
            createdAt: Date(timeIntervalSince1970: row[.createdAt])
        )
    }
}

/// The columns of `api_keys`.
enum KeyColumn: Int, StoreColumn {
    case id, appID, kind, environment, hash, hint, createdAt, revokedAt, scopes

    var columnName: String {
        switch self {
        case .id: "id"
        case .appID: "app_id"
        case .kind: "kind"
        case .environment: "environment"
        case .hash: "hash"
        case .hint: "hint"
        case .createdAt: "created_at"
        case .revokedAt: "revoked_at"
        case .scopes: "scopes"
        }
    }
}

extension APIKeyRecord {
    /// An `api_keys` row.
    init(row: some StoreRow) throws {
        let row = row.columns(KeyColumn.self)
        guard let kind = APIKeyKind(rawValue: try row[.kind]), let environment = APIEnvironment(rawValue: try row[.environment]) else {
            throw StoreCorruption(message: "api_keys row has an unknown kind or environment")
        }
        try self.init(
            id: row[.id], appID: row[.appID], kind: kind, environment: environment, hash: row[.hash], hint: row[.hint],
            createdAt: Date(timeIntervalSince1970: row[.createdAt]),
            revokedAt: (row[.revokedAt] as Double?).map(Date.init(timeIntervalSince1970:)),
            scopes: (row[.scopes] as String?).map(Self.scopes(stored:))
        )
    }

    /// The scopes a key was stored with. A name this build does not know (written by a newer one) is left out: the
    /// key stays limited, to what this build can tell it may do.
    package static func scopes(stored text: String) -> Set<APIKeyScope> {
        Set(text.split(separator: " ").compactMap { APIKeyScope(rawValue: String($0)) })
    }

    /// The `scopes` column of a key: nil for a key without scopes.
    package var storedScopes: String? { scopes.map(APIKeyScope.text) }
}

/// `api_keys.scopes`: what a secret key is limited to, names separated by spaces; NULL for a key that may do
/// everything its kind can (every key made before scopes existed).
enum KeyScopesSchema {
    static let statements = ["ALTER TABLE api_keys ADD COLUMN scopes TEXT"]
}

// MARK: Links

/// The columns of `links`, in the order of ``list``: SQLite reads a link by position (a column found by name costs a
/// lowercased copy of every name it is compared with, and a link has two dozen: a fifth of an edge cache miss).
enum LinkColumn: Int, StoreColumn {
    case id, appID, environment, domain, slug, destination, iosURL, androidURL, params
    case utmSource, utmMedium, utmCampaign, utmContent, utmTerm, campaign, referrer
    case socialTitle, socialDescription, socialImageURL, expiresAt, disabled, createdAt, updatedAt, routing, longLink, seq
    case createdInApp

    /// `id, app_id, …, updated_at, seq`.
    static let list = selectList()

    var columnName: String {
        switch self {
        case .id: "id"
        case .appID: "app_id"
        case .environment: "environment"
        case .domain: "domain"
        case .slug: "slug"
        case .destination: "destination"
        case .iosURL: "ios_url"
        case .androidURL: "android_url"
        case .params: "params"
        case .utmSource: "utm_source"
        case .utmMedium: "utm_medium"
        case .utmCampaign: "utm_campaign"
        case .utmContent: "utm_content"
        case .utmTerm: "utm_term"
        case .campaign: "campaign"
        case .referrer: "referrer"
        case .socialTitle: "social_title"
        case .socialDescription: "social_description"
        case .socialImageURL: "social_image_url"
        case .expiresAt: "expires_at"
        case .disabled: "disabled"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        case .routing: "routing"
        case .longLink: "long_link"
        case .seq: "seq"
        case .createdInApp: "created_in_app"
        }
    }
}

extension Link {
    /// A `links` row.
    init(row: some StoreRow) throws {
        let row = row.columns(LinkColumn.self)
        guard let environment = APIEnvironment(rawValue: try row[.environment]) else {
            throw StoreCorruption(message: "links row has an unknown environment")
        }
        try self.init(
            id: row[.id], appID: row[.appID], environment: environment, domain: row[.domain], slug: row[.slug],
            destination: row[.destination], iosURL: row[.iosURL], androidURL: row[.androidURL],
            params: JSONText.decode(row[.params] as String) ?? [:],
            utm: UTMParameters(source: row[.utmSource], medium: row[.utmMedium], campaign: row[.utmCampaign], content: row[.utmContent],
                               term: row[.utmTerm]),
            campaign: row[.campaign], referrer: row[.referrer],
            social: SocialMetadata(title: row[.socialTitle], description: row[.socialDescription], imageURL: row[.socialImageURL]),
            expiresAt: (row[.expiresAt] as Double?).map(Date.init(timeIntervalSince1970:)),
            disabled: row[.disabled],
            routing: (row[.routing] as String?).flatMap { JSONText.decode($0) } ?? LinkRouting(),
            longLink: row[.longLink],
            createdInApp: row[.createdInApp],
            createdAt: Date(timeIntervalSince1970: row[.createdAt]),
            updatedAt: Date(timeIntervalSince1970: row[.updatedAt])
        )
    }
}

/// The columns per-link routing and long links added to `links`, and the allowlist added to `apps`: the same
/// statements on SQLite and PostgreSQL.
enum LinkRoutingSchema {
    static let statements = [
        "ALTER TABLE links ADD COLUMN routing TEXT",
        "ALTER TABLE links ADD COLUMN long_link TEXT",
        "ALTER TABLE apps ADD COLUMN allowed_url_patterns TEXT NOT NULL DEFAULT '[]'",
        // The association file asks for the iPad bundle ids of an app's links: only links with routing are read.
        "CREATE INDEX links_app_routed ON links(app_id) WHERE routing IS NOT NULL",
    ]

    /// Matches a stored routing that names an iPad bundle id (`encode` writes sorted keys, no spaces, nulls kept).
    static let namesIPadBundleID = #"%"ipadBundleID":"%"#

    /// The distinct iPad bundle ids of stored routings, in order of first appearance, at most `limit`.
    static func ipadBundleIDs(_ routings: [String], limit: Int) -> [String] {
        var ids: [String] = []
        for text in routings {
            guard let id = (JSONText.decode(text) as LinkRouting?)?.ipadBundleID, !ids.contains(id) else { continue }
            ids.append(id)
            if ids.count == limit { break }
        }
        return ids
    }

    /// A link's routing as stored: nil (no column value) when the link follows its app.
    static func encode(_ routing: LinkRouting) -> String? {
        routing.isEmpty ? nil : JSONText.encode(routing)
    }
}

/// What client links (links made in the app with a publishable key) added: the app's switch, the mark on its links,
/// and the digest of the request that made each, by which the same request returns the same link.
enum ClientLinksSchema {
    /// `bool`: SQLite's `INTEGER` (0/1) or PostgreSQL's `BOOLEAN`, with its false literal.
    static func statements(bool: String, false no: String) -> [String] {
        [
            "ALTER TABLE apps ADD COLUMN client_links \(bool) NOT NULL DEFAULT \(no)",
            "ALTER TABLE links ADD COLUMN created_in_app \(bool) NOT NULL DEFAULT \(no)",
            "ALTER TABLE links ADD COLUMN request_digest TEXT",
            "CREATE UNIQUE INDEX links_request_digest ON links(app_id, request_digest) WHERE request_digest IS NOT NULL",
            // The listing filtered to the links made in the app, and their bulk deletion, read only those.
            "CREATE INDEX links_created_in_app ON links(app_id, environment, seq) WHERE created_in_app",
        ]
    }
}

/// The app's default minimum confidence of probabilistic matches (NULL: the matcher's own threshold). The schema
/// holds it to a confidence; the rules (`AttributionRules.validateMinConfidence`) to the range a request may ask for.
enum MinConfidenceSchema {
    /// `real`: SQLite's `REAL` or PostgreSQL's `DOUBLE PRECISION`.
    static func statements(real: String) -> [String] {
        ["ALTER TABLE apps ADD COLUMN min_confidence \(real) CHECK (min_confidence BETWEEN 0 AND 1)"]
    }
}

/// Re-installs: the installation each answer was given to (`installation_id`: the same install id with another one
/// is a re-install, answered in a row of its own, so an install id has one answer per installation), the browser a click's page ran in (`browser_hash`, a keyed hash of the id the interstitial keeps in
/// the browser's storage, forgotten with the page's other signals), and which browsers led which install to the app
/// (`browser_installs`, from its deterministic matches, kept `AttributionRules.browserLinkRetention`).
enum ReinstallSchema {
    /// `real`: SQLite's `REAL` or PostgreSQL's `DOUBLE PRECISION`. The unique constraint on the install id alone is
    /// dropped before (SQLite rebuilds the table without it; PostgreSQL drops it by name).
    static func statements(real: String) -> [String] {
        [
            "ALTER TABLE attributions ADD COLUMN installation_id TEXT",
            "CREATE UNIQUE INDEX attributions_installation ON attributions(app_id, environment, install_id, COALESCE(installation_id, ''))",
            "ALTER TABLE click_signals ADD COLUMN browser_hash TEXT",
            "CREATE INDEX click_signals_browser ON click_signals(app_id, browser_hash, received_at) WHERE browser_hash IS NOT NULL",
            """
            CREATE TABLE browser_installs (
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
                install_id TEXT NOT NULL,
                browser_hash TEXT NOT NULL,
                linked_at \(real) NOT NULL,
                PRIMARY KEY (app_id, environment, install_id, browser_hash)
            )
            """,
            "CREATE INDEX browser_installs_linked ON browser_installs(linked_at)",
        ]
    }
}

/// Clicks that carry a signed-in person's pseudonym (`UserClickToken`), and observations a later user binding may
/// label: the raw observation (`pending`, which names its clicks and hashed addresses) is kept beside the anonymised
/// one only until the binding may come (`AttributionObservationRecord.pendingHorizon`), under a keyed hash of the
/// install id (`install_key`).
enum UserClicksSchema {
    static func statements() -> [String] {
        [
            "ALTER TABLE clicks ADD COLUMN user_token TEXT",
            "CREATE INDEX clicks_app_user ON clicks(app_id, user_token, created_at) WHERE user_token IS NOT NULL",
            "ALTER TABLE attribution_observations ADD COLUMN install_key TEXT",
            "ALTER TABLE attribution_observations ADD COLUMN pending TEXT",
            """
            CREATE INDEX attribution_observations_pending ON attribution_observations(app_id, environment, install_key)
            WHERE pending IS NOT NULL
            """,
        ]
    }
}

/// Who made each click (`ClickTraffic`): only a person's click is counted and attributed. Clicks stored before were
/// bots' when their platform was, and people's otherwise; the roll-up's bot clicks of those days leave the people's
/// figures for `filtered` (their referrers and campaigns, almost always none, stay where they were counted).
enum ClickTrafficSchema {
    /// The condition of clicks that can lead to an install, as the partial indexes of SQLite hold it (queries repeat
    /// it: `CandidateQuery.attributableSQL`).
    static let attributable = "platform IN ('ios', 'android') AND traffic = 'person'"

    /// `indexes`: SQLite's partial indexes by address and network are made again for the new condition (PostgreSQL's
    /// hold every click).
    static func statements(indexes: Bool) -> [String] {
        [
            "ALTER TABLE clicks ADD COLUMN traffic TEXT NOT NULL DEFAULT 'person'",
            "UPDATE clicks SET traffic = 'bot' WHERE platform = 'bot'",
            """
            INSERT INTO stats_daily (app_id, environment, link_id, day, metric, dimension, count)
            SELECT app_id, environment, link_id, day, 'filtered', 'bot', count FROM stats_daily WHERE metric = 'platform' AND dimension = 'bot'
            """,
            // A day's bot clicks leave its clicks: those counted with defaults implied (no referrer, no campaign, as
            // bots' are) leave them under that dimension, where the implied values are worked out from.
            """
            INSERT INTO stats_daily (app_id, environment, link_id, day, metric, dimension, count)
            SELECT b.app_id, b.environment, b.link_id, b.day, 'clicks',
                COALESCE((SELECT MAX(d.dimension) FROM stats_daily d WHERE d.app_id = b.app_id AND d.environment = b.environment
                    AND d.link_id = b.link_id AND d.day = b.day AND d.metric = 'clicks'), 'implied'),
                -b.count
            FROM stats_daily b WHERE b.metric = 'platform' AND b.dimension = 'bot'
            \(StatsSchema.upsertTail)
            """,
            "DELETE FROM stats_daily WHERE metric = 'platform' AND dimension = 'bot'",
        ] + (indexes ? [
            "DROP INDEX clicks_app_address",
            "DROP INDEX clicks_app_network",
            "CREATE INDEX clicks_app_address ON clicks(app_id, ip_hash, created_at) WHERE \(attributable)",
            "CREATE INDEX clicks_app_network ON clicks(app_id, network_hash, created_at) WHERE \(attributable)",
        ] : [])
    }
}

// MARK: Clicks

/// The columns of `clicks`.
enum ClickColumn: Int, StoreColumn {
    case id, linkID, appID, environment, createdAt, ipHash, networkHash, userAgent, platform, referer, query, acceptLanguage
    case osVersion, appleDevice, userToken, traffic

    var columnName: String {
        switch self {
        case .id: "id"
        case .linkID: "link_id"
        case .appID: "app_id"
        case .environment: "environment"
        case .createdAt: "created_at"
        case .ipHash: "ip_hash"
        case .networkHash: "network_hash"
        case .userAgent: "user_agent"
        case .platform: "platform"
        case .referer: "referer"
        case .query: "query"
        case .acceptLanguage: "accept_language"
        case .osVersion: "os_version"
        case .appleDevice: "apple_device"
        case .userToken: "user_token"
        case .traffic: "traffic"
        }
    }
}

extension Click {
    /// A `clicks` row (an environment or platform the server no longer knows reads as `live`, `other`).
    init(row: some StoreRow) throws {
        let row = row.columns(ClickColumn.self)
        try self.init(
            id: row[.id], linkID: row[.linkID], appID: row[.appID], environment: APIEnvironment(rawValue: row[.environment]) ?? .live,
            createdAt: Date(timeIntervalSince1970: row[.createdAt]), ipHash: row[.ipHash], networkHash: row[.networkHash],
            userAgent: row[.userAgent], platform: ClientPlatform(rawValue: row[.platform]) ?? .other,
            referer: row[.referer], query: row[.query], acceptLanguage: row[.acceptLanguage],
            osVersion: row[.osVersion], appleDevice: row[.appleDevice], userToken: row[.userToken],
            traffic: ClickTraffic(rawValue: row[.traffic]) ?? .person
        )
    }
}

/// A click joined with its page's signals (`clicks c LEFT JOIN click_signals s`, or the other way round), in the order
/// of ``list``: SQLite reads these by position, as a match reads hundreds of them.
enum EvidenceColumn: Int, StoreColumn {
    case clickID, linkID, createdAt, ipHash, networkHash, osVersion, appleDevice, acceptLanguage
    case screenWidth, screenHeight, screenScale, timeZone, timeZoneOffset, languages

    /// The select list (a constant: the only text spliced into the candidate queries).
    static let list = """
        c.id, c.link_id, c.created_at, c.ip_hash, c.network_hash, c.os_version, c.apple_device, c.accept_language,
        s.screen_width, s.screen_height, s.screen_scale, s.time_zone, s.time_zone_offset, s.languages
        """

    var columnName: String {
        switch self {
        case .clickID: "id"
        case .linkID: "link_id"
        case .createdAt: "created_at"
        case .ipHash: "ip_hash"
        case .networkHash: "network_hash"
        case .osVersion: "os_version"
        case .appleDevice: "apple_device"
        case .acceptLanguage: "accept_language"
        case .screenWidth: "screen_width"
        case .screenHeight: "screen_height"
        case .screenScale: "screen_scale"
        case .timeZone: "time_zone"
        case .timeZoneOffset: "time_zone_offset"
        case .languages: "languages"
        }
    }
}

extension ClickEvidence {
    /// A row of ``EvidenceColumn/list``: the languages the page reported, else those of the click's Accept-Language.
    init(row: some StoreRow, languages lists: inout LanguageLists) throws {
        let row = row.columns(EvidenceColumn.self)
        var languages = lists.decoded(json: try row[.languages])
        if languages.isEmpty, let accept: String = try row[.acceptLanguage] {
            languages = lists.tags(acceptLanguage: accept)
        }
        try self.init(
            clickID: row[.clickID], linkID: row[.linkID], createdAt: Date(timeIntervalSince1970: row[.createdAt]),
            addressHash: row[.ipHash], networkHash: row[.networkHash], osVersion: row[.osVersion], appleDevice: row[.appleDevice],
            screenWidth: row[.screenWidth], screenHeight: row[.screenHeight], screenScale: row[.screenScale],
            timeZone: row[.timeZone], timeZoneOffsetSeconds: row[.timeZoneOffset], languages: languages
        )
    }
}

/// Language lists as read from rows, each distinct text parsed once per query: the clicks a match weighs share a
/// handful of them (`["en-US","en"]` many times over).
struct LanguageLists {
    private var fromJSON: [String: [String]] = [:]
    private var fromHeader: [String: [String]] = [:]

    mutating func decoded(json text: String?) -> [String] {
        guard let text else { return [] }
        if let known = fromJSON[text] { return known }
        let list: [String] = JSONText.decode(text) ?? []
        fromJSON[text] = list
        return list
    }

    mutating func tags(acceptLanguage text: String) -> [String] {
        if let known = fromHeader[text] { return known }
        let list = AcceptLanguage.tags(text)
        fromHeader[text] = list
        return list
    }
}

// MARK: Attribution

/// The columns of `attributions` that make a record.
enum AttributionColumn: Int, StoreColumn {
    case appID, environment, installID, clickID, linkID, matchType, confidence, createdAt, installationID

    var columnName: String {
        switch self {
        case .appID: "app_id"
        case .environment: "environment"
        case .installID: "install_id"
        case .clickID: "click_id"
        case .linkID: "link_id"
        case .matchType: "match_type"
        case .confidence: "confidence"
        case .createdAt: "created_at"
        case .installationID: "installation_id"
        }
    }
}

extension AttributionRecord {
    /// An `attributions` row.
    init(row: some StoreRow) throws {
        let row = row.columns(AttributionColumn.self)
        try self.init(
            appID: row[.appID], environment: APIEnvironment(rawValue: row[.environment]) ?? .live, installID: row[.installID],
            clickID: row[.clickID], linkID: row[.linkID], matchType: (row[.matchType] as String?).flatMap(MatchType.init(rawValue:)),
            confidence: row[.confidence], createdAt: Date(timeIntervalSince1970: row[.createdAt]), installationID: row[.installationID]
        )
    }
}

/// The columns of `user_bindings` that make a binding.
enum BindingColumn: Int, StoreColumn {
    case userID, installID, attributionSeq, authority, createdAt

    var columnName: String {
        switch self {
        case .userID: "user_id"
        case .installID: "install_id"
        case .attributionSeq: "attribution_seq"
        case .authority: "authority"
        case .createdAt: "created_at"
        }
    }
}

extension UserBinding {
    /// The `attributions` row a `user_bindings` row copied, if any.
    static func attributionSeq(row: some StoreRow) throws -> Int64? {
        try row.columns(BindingColumn.self)[.attributionSeq]
    }

    /// A `user_bindings` row with the attribution it copied (the row ``attributionSeq(row:)`` names); without one, the
    /// install's organic answer as of the binding.
    init(row: some StoreRow, attribution: AttributionRecord?, appID: String, environment: APIEnvironment) throws {
        let row = row.columns(BindingColumn.self)
        let installID: String = try row[.installID]
        try self.init(
            userID: row[.userID], installID: installID,
            attribution: attribution ?? AttributionRecord(appID: appID, environment: environment, installID: installID, clickID: nil, linkID: nil,
                                                          matchType: nil, confidence: nil, createdAt: Date(timeIntervalSince1970: row[.createdAt])),
            authority: UserBinding.Authority(rawValue: row[.authority]) ?? .device
        )
    }
}

// MARK: Webhooks

/// The columns of `webhooks`.
enum WebhookColumn: Int, StoreColumn {
    case id, appID, environment, url, secret, events, createdAt

    var columnName: String {
        switch self {
        case .id: "id"
        case .appID: "app_id"
        case .environment: "environment"
        case .url: "url"
        case .secret: "secret"
        case .events: "events"
        case .createdAt: "created_at"
        }
    }
}

extension Webhook {
    /// A `webhooks` row; `prefix` reads one joined under aliases (`w_id`, `w_app_id`…).
    init(row: some StoreRow, prefix: String = "") throws {
        let row = row.columns(WebhookColumn.self, prefix: prefix)
        try self.init(
            id: row[.id], appID: row[.appID], environment: APIEnvironment(rawValue: row[.environment]) ?? .live, url: row[.url],
            secret: row[.secret], events: JSONText.decode(row[.events] as String) ?? [], createdAt: Date(timeIntervalSince1970: row[.createdAt])
        )
    }
}

/// The columns of `webhook_deliveries`.
enum DeliveryColumn: Int, StoreColumn {
    case id, webhookID, appID, event, payload, attempts, nextAttemptAt, deliveredAt, failedAt, lastStatus, lastError, createdAt

    var columnName: String {
        switch self {
        case .id: "id"
        case .webhookID: "webhook_id"
        case .appID: "app_id"
        case .event: "event"
        case .payload: "payload"
        case .attempts: "attempts"
        case .nextAttemptAt: "next_attempt_at"
        case .deliveredAt: "delivered_at"
        case .failedAt: "failed_at"
        case .lastStatus: "last_status"
        case .lastError: "last_error"
        case .createdAt: "created_at"
        }
    }
}

extension WebhookDelivery {
    /// A `webhook_deliveries` row (one no longer due, with no next attempt, reads as due in 1970).
    init(row: some StoreRow) throws {
        let row = row.columns(DeliveryColumn.self)
        try self.init(
            id: row[.id], webhookID: row[.webhookID], appID: row[.appID], event: WebhookEventType(rawValue: row[.event]) ?? .linkClicked,
            payload: row[.payload], attempts: row[.attempts],
            nextAttemptAt: Date(timeIntervalSince1970: (row[.nextAttemptAt] as Double?) ?? 0),
            deliveredAt: (row[.deliveredAt] as Double?).map(Date.init(timeIntervalSince1970:)),
            failedAt: (row[.failedAt] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastStatus: row[.lastStatus], lastError: row[.lastError], createdAt: Date(timeIntervalSince1970: row[.createdAt])
        )
    }
}

// MARK: Tenancy

/// The columns of `domain_claims`.
enum ClaimColumn: Int, StoreColumn {
    case appID, domain, token, createdAt

    var columnName: String {
        switch self {
        case .appID: "app_id"
        case .domain: "domain"
        case .token: "token"
        case .createdAt: "created_at"
        }
    }
}

extension DomainClaim {
    /// A `domain_claims` row.
    init(row: some StoreRow) throws {
        let row = row.columns(ClaimColumn.self)
        try self.init(appID: row[.appID], domain: row[.domain], token: row[.token], createdAt: Date(timeIntervalSince1970: row[.createdAt]))
    }
}

/// The columns of `dashboard_sessions`.
enum SessionColumn: Int, StoreColumn {
    case hash, keyHash, createdAt, expiresAt

    var columnName: String {
        switch self {
        case .hash: "hash"
        case .keyHash: "key_hash"
        case .createdAt: "created_at"
        case .expiresAt: "expires_at"
        }
    }
}

extension DashboardSessionRecord {
    /// A `dashboard_sessions` row.
    init(row: some StoreRow) throws {
        let row = row.columns(SessionColumn.self)
        try self.init(hash: row[.hash], keyHash: row[.keyHash], createdAt: Date(timeIntervalSince1970: row[.createdAt]),
                      expiresAt: Date(timeIntervalSince1970: row[.expiresAt]))
    }
}
#endif
