#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryStore
import Foundation
import GRDB
import Testing

/// Rows put in by SQL rather than by the store's own writes, so that what is read back is the decoding alone: NULLs
/// where a write would put a value, JSON with escapes, values the server no longer knows. The statements are the same
/// text on SQLite and PostgreSQL, and each store must read them as the same models, whether it reads by name (the
/// PostgreSQL rows, GRDB's rows) or by position (SQLite's links and match candidates).
extension StoreConformanceTests {
    static let rows = [
        #"""
        INSERT INTO apps (id, name, ios_team_id, ios_bundle_ids, ios_app_store_id, ios_url_scheme, android_package, android_sha256,
            fallback_url, social_title, social_description, social_image_url, attribution_window, copy_to_open, created_at)
        VALUES ('app_r', 'Rows', 'TEAM123456', '["com.example.one","com.example.\"two\""]', NULL, 'example', NULL, '[]',
            'https://example.com/fallback', NULL, 'Ünïcode — text', NULL, 3600.5, TRUE, 1700000000.125)
        """#,
        "INSERT INTO domains (host, app_id, position) VALUES ('b.example.com', 'app_r', 1), ('a.example.com', 'app_r', 0)",
        """
        INSERT INTO api_keys (id, app_id, kind, environment, hash, hint, created_at, revoked_at)
        VALUES ('key_r', 'app_r', 'secret', 'test', 'hash_r', 'fs_test_…abcd', 1700000001.5, 1700000002.25)
        """,
        #"""
        INSERT INTO links (id, app_id, environment, domain, slug, destination, ios_url, android_url, params, utm_source, utm_medium,
            utm_campaign, utm_content, utm_term, campaign, referrer, social_title, social_description, social_image_url, expires_at,
            disabled, created_at, updated_at)
        VALUES ('lnk_r', 'app_r', 'test', 'a.example.com', 'rows', 'https://example.com/dest?x=1', NULL, 'myapp://open',
            '{"k":"v \"quoted\"","z":""}', 'src', NULL, 'camp', NULL, 'term', 'Campaign', NULL, 'Title', NULL,
            'https://example.com/i.png', 1800000000.75, TRUE, 1700000003.5, 1700000004.5)
        """#,
        """
        INSERT INTO clicks (id, link_id, app_id, environment, created_at, ip_hash, network_hash, user_agent, platform, referer, query,
            accept_language, os_version, apple_device)
        VALUES ('clk_r', 'lnk_r', 'app_r', 'staging', 1700000005.5, 'address', NULL, 'UA/1.0', 'beos', NULL, 'a=b', NULL, '17.4', 'ipad'),
            ('clk_e1', 'lnk_r', 'app_r', 'test', 1700000006.5, NULL, 'network', NULL, 'ios', NULL, NULL, 'de-DE,de;q=0.9', NULL, NULL),
            ('clk_e2', 'lnk_r', 'app_r', 'test', 1700000007.5, 'address', 'network', NULL, 'ios', NULL, NULL, 'de-DE', '18.1', 'iphone')
        """,
        """
        INSERT INTO click_signals (click_id, app_id, received_at, platform, screen_width, screen_height, screen_scale, time_zone,
            time_zone_offset, languages, fingerprint)
        VALUES ('clk_e2', 'app_r', 1700000008.5, 'ios', 390, 844, 3.0, 'Europe/Paris', 3600, '["fr-FR","en"]', NULL)
        """,
        """
        INSERT INTO attributions (app_id, environment, install_id, click_id, link_id, match_type, confidence, created_at)
        VALUES ('app_r', 'test', 'inst_1', 'clk_e2', 'lnk_r', 'probabilistic', 0.875, 1700000010.5),
            ('app_r', 'test', 'inst_2', NULL, NULL, NULL, NULL, 1700000011.5)
        """,
        """
        INSERT INTO user_bindings (app_id, environment, user_id, install_id, attribution_seq, authority, created_at)
        VALUES ('app_r', 'test', 'user_1', 'inst_1', (SELECT seq FROM attributions WHERE install_id = 'inst_1'), 'device', 1700000012.5),
            ('app_r', 'test', 'user_2', 'inst_9', NULL, 'server', 1700000013.5)
        """,
        """
        INSERT INTO webhooks (id, app_id, environment, url, secret, events, created_at)
        VALUES ('wh_r', 'app_r', 'test', 'https://hooks.example.com/x', 'whsec', '["install.attributed"]', 1700000020.5)
        """,
        """
        INSERT INTO webhook_deliveries (id, webhook_id, app_id, event, payload, attempts, next_attempt_at, delivered_at, failed_at,
            last_status, last_error, created_at)
        VALUES ('dl_1', 'wh_r', 'app_r', 'install.attributed', '{"a":1}', 2, NULL, NULL, 1700000030.5, 500, 'boom', 1700000025.5),
            ('dl_2', 'wh_r', 'app_r', 'some.retired.event', '{}', 0, 1700000040.25, NULL, NULL, NULL, NULL, 1700000026.5)
        """,
        "INSERT INTO domain_claims (app_id, domain, token, created_at) VALUES ('app_r', 'c.example.com', 'tok', 1700000060.5)",
        "INSERT INTO dashboard_sessions (hash, key_hash, created_at, expires_at) VALUES ('sess_hash', 'hash_r', 1700000070.5, 1700000080.5)",
    ]

    /// Runs statements in `store` as they are written.
    static func execute(_ statements: [String], in store: any FerryDatabase) async throws {
        switch store {
        case let store as SQLiteStore:
            try await store.writer.write { db in
                for statement in statements { try db.execute(sql: statement) }
            }
        case let store as PostgresStore:
            for statement in statements { try await store.execute("\(unescaped: statement)") }
        default:
            Issue.record("no way to run SQL in \(type(of: store))")
        }
    }

    @Test(arguments: StoreBackend.available) func everyStoreReadsTheSameRowsAsTheSameModels(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await Self.execute(Self.rows, in: store)
            func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

            let app = App(
                id: "app_r", name: "Rows", domains: ["a.example.com", "b.example.com"],
                ios: IOSSettings(teamID: "TEAM123456", bundleIDs: ["com.example.one", #"com.example."two""#], appStoreID: nil, urlScheme: "example"),
                android: AndroidSettings(packageName: nil, sha256Fingerprints: []), fallbackURL: "https://example.com/fallback",
                social: SocialMetadata(title: nil, description: "Ünïcode — text", imageURL: nil),
                attribution: AttributionSettings(window: 3600.5, copyToOpen: true), createdAt: at(1700000000.125))
            #expect(try await store.app(id: "app_r") == app)
            #expect(try await store.app(forDomain: "b.example.com") == app)

            #expect(try await store.key(hash: "hash_r") == APIKeyRecord(
                id: "key_r", appID: "app_r", kind: .secret, environment: .test, hash: "hash_r", hint: "fs_test_…abcd",
                createdAt: at(1700000001.5), revokedAt: at(1700000002.25)))

            let link = Link(
                id: "lnk_r", appID: "app_r", environment: .test, domain: "a.example.com", slug: "rows", destination: "https://example.com/dest?x=1",
                iosURL: nil, androidURL: "myapp://open", params: ["k": #"v "quoted""#, "z": ""],
                utm: UTMParameters(source: "src", medium: nil, campaign: "camp", content: nil, term: "term"), campaign: "Campaign", referrer: nil,
                social: SocialMetadata(title: "Title", description: nil, imageURL: "https://example.com/i.png"), expiresAt: at(1800000000.75),
                disabled: true, createdAt: at(1700000003.5), updatedAt: at(1700000004.5))
            #expect(try await store.link(domain: "a.example.com", slug: "rows") == link)
            #expect(try await store.link(id: "lnk_r", appID: "app_r") == link)
            let page = try await store.listLinks(appID: "app_r", environment: .test, limit: 1, after: nil)
            #expect(page.links == [link])
            #expect(page.nextCursor == nil)
            #expect(try await store.listLinks(appID: "app_r", environment: .test, filter: LinkFilter(text: "campaign"), limit: 5, after: nil).links == [link])

            // An environment and a platform the server no longer knows read as the defaults.
            #expect(try await store.click(id: "clk_r") == Click(
                id: "clk_r", linkID: "lnk_r", appID: "app_r", environment: .live, createdAt: at(1700000005.5), ipHash: "address", networkHash: nil,
                userAgent: "UA/1.0", platform: .other, referer: nil, query: "a=b", acceptLanguage: nil, osVersion: "17.4", appleDevice: "ipad"))

            // Without a page report the languages come from Accept-Language; with one, from the page.
            #expect(try await store.unconsumedClick(id: "clk_e1", appID: "app_r", environment: .test, since: at(0)) == ClickEvidence(
                clickID: "clk_e1", linkID: "lnk_r", createdAt: at(1700000006.5), networkHash: "network", languages: ["de-DE", "de"]))
            let reported = ClickEvidence(
                clickID: "clk_e2", linkID: "lnk_r", createdAt: at(1700000007.5), addressHash: "address", networkHash: "network",
                osVersion: "18.1", appleDevice: "iphone", screenWidth: 390, screenHeight: 844, screenScale: 3, timeZone: "Europe/Paris",
                timeZoneOffsetSeconds: 3600, languages: ["fr-FR", "en"])
            // clk_e2 is attributed, so only the first is still unconsumed.
            #expect(try await store.unconsumedClick(id: "clk_e2", appID: "app_r", environment: .test, since: at(0)) == nil)

            let matched = AttributionRecord(appID: "app_r", environment: .test, installID: "inst_1", clickID: "clk_e2", linkID: "lnk_r",
                                            matchType: .probabilistic, confidence: 0.875, createdAt: at(1700000010.5))
            #expect(try await store.attribution(appID: "app_r", environment: .test, installID: "inst_1") == matched)
            #expect(try await store.attribution(appID: "app_r", environment: .test, installID: "inst_2") == AttributionRecord(
                appID: "app_r", environment: .test, installID: "inst_2", clickID: nil, linkID: nil, matchType: nil, confidence: nil,
                createdAt: at(1700000011.5)))
            #expect(try await store.userBinding(appID: "app_r", environment: .test, userID: "user_1") == UserBinding(
                userID: "user_1", installID: "inst_1", attribution: matched, authority: .device))
            // A binding that copied no attribution reads as the install's organic answer as of the binding.
            #expect(try await store.userBinding(appID: "app_r", environment: .test, userID: "user_2") == UserBinding(
                userID: "user_2", installID: "inst_9",
                attribution: AttributionRecord(appID: "app_r", environment: .test, installID: "inst_9", clickID: nil, linkID: nil, matchType: nil,
                                               confidence: nil, createdAt: at(1700000013.5)),
                authority: .server))

            let webhook = Webhook(id: "wh_r", appID: "app_r", environment: .test, url: "https://hooks.example.com/x", secret: "whsec",
                                  events: [.installAttributed], createdAt: at(1700000020.5))
            #expect(try await store.webhooks(appID: "app_r", environment: .test) == [webhook])
            #expect(try await store.deliveries(webhookID: "wh_r", appID: "app_r", limit: 10) == [
                WebhookDelivery(id: "dl_2", webhookID: "wh_r", appID: "app_r", event: .linkClicked, payload: "{}", attempts: 0,
                                nextAttemptAt: at(1700000040.25), createdAt: at(1700000026.5)),
                WebhookDelivery(id: "dl_1", webhookID: "wh_r", appID: "app_r", event: .installAttributed, payload: #"{"a":1}"#, attempts: 2,
                                nextAttemptAt: at(0), failedAt: at(1700000030.5), lastStatus: 500, lastError: "boom", createdAt: at(1700000025.5)),
            ])
            // The webhook joined to a claimed delivery is read under its `w_` aliases.
            let claimed = try await store.claimDeliveries(now: at(1700000050), lease: 30, limit: 10, excludingApps: [])
            #expect(claimed.map(\.delivery.id) == ["dl_2"])
            #expect(claimed.map(\.webhook) == [webhook])

            #expect(try await store.domainClaims(appID: "app_r") == [
                DomainClaim(appID: "app_r", domain: "c.example.com", token: "tok", createdAt: at(1700000060.5)),
            ])
            #expect(try await store.session(hash: "sess_hash") == DashboardSessionRecord(
                hash: "sess_hash", keyHash: "hash_r", createdAt: at(1700000070.5), expiresAt: at(1700000080.5)))

            // A match reads the page's report with the click (by position on SQLite).
            let candidates = try await store.candidates(CandidateQuery(
                appID: "app_r", environment: .test,
                install: InstallEvidence(addressHash: nil, networkHash: "network", signals: DeviceSignals(), at: at(1700000100)), window: 3600),
                platform: .iOS)
            #expect(candidates.clicks.map(\.clickID) == ["clk_e1"], "clk_e2 is consumed")
            try await Self.execute(["DELETE FROM user_bindings", "DELETE FROM attributions"], in: store)
            #expect(try await store.unconsumedClick(id: "clk_e2", appID: "app_r", environment: .test, since: at(0)) == reported)
            let freed = try await store.candidates(CandidateQuery(
                appID: "app_r", environment: .test,
                install: InstallEvidence(addressHash: nil, networkHash: "network", signals: DeviceSignals(), at: at(1700000100)), window: 3600),
                platform: .iOS)
            #expect(freed.clicks.first { $0.clickID == "clk_e2" } == reported)
        }
    }

    /// SQLite reads the candidates' columns by position: the select list must name them in the order they are read.
    @Test func theEvidenceSelectListNamesItsColumnsInTheOrderTheyAreRead() {
        let selected = EvidenceColumn.list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(selected.map { String($0.drop { $0 != "." }.dropFirst()) } == EvidenceColumn.allCases.map(\.columnName))
        #expect(LinkColumn.list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == LinkColumn.allCases.map(\.columnName))
    }
}
#endif
