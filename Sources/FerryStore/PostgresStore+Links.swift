#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import PostgresNIO

extension PostgresStore {
    package func createLink(_ link: Link) async throws {
        do {
            try await execute("""
                INSERT INTO links (id, app_id, environment, domain, slug, destination, ios_url, android_url, params,
                    utm_source, utm_medium, utm_campaign, utm_content, utm_term, campaign, referrer,
                    social_title, social_description, social_image_url, expires_at, disabled, routing, long_link, created_at, updated_at)
                VALUES (\(link.id), \(link.appID), \(link.environment.rawValue), \(link.domain), \(link.slug), \(link.destination),
                    \(link.iosURL), \(link.androidURL), \(JSONText.encode(link.params)), \(link.utm.source), \(link.utm.medium),
                    \(link.utm.campaign), \(link.utm.content), \(link.utm.term), \(link.campaign), \(link.referrer), \(link.social.title),
                    \(link.social.description), \(link.social.imageURL), \(link.expiresAt?.timeIntervalSince1970), \(link.disabled),
                    \(LinkRoutingSchema.encode(link.routing)), \(link.longLink), \(link.createdAt.timeIntervalSince1970), \(link.updatedAt.timeIntervalSince1970))
                """)
        } catch where Self.uniqueViolation(error) != nil {
            throw StoreConflict(field: "slug", message: "slug '\(link.slug)' is already taken on \(link.domain)")
        }
    }

    package func updateLink(_ link: Link) async throws -> Bool {
        try await !all("""
            UPDATE links SET destination = \(link.destination), ios_url = \(link.iosURL), android_url = \(link.androidURL),
                params = \(JSONText.encode(link.params)), utm_source = \(link.utm.source), utm_medium = \(link.utm.medium),
                utm_campaign = \(link.utm.campaign), utm_content = \(link.utm.content), utm_term = \(link.utm.term),
                campaign = \(link.campaign), referrer = \(link.referrer), social_title = \(link.social.title),
                social_description = \(link.social.description), social_image_url = \(link.social.imageURL),
                expires_at = \(link.expiresAt?.timeIntervalSince1970), disabled = \(link.disabled),
                routing = \(LinkRoutingSchema.encode(link.routing)), updated_at = \(link.updatedAt.timeIntervalSince1970)
            WHERE id = \(link.id) AND app_id = \(link.appID) RETURNING id
            """) { _ in () }.isEmpty
    }

    package func deleteLink(id: String, appID: String) async throws -> Bool {
        try await !all("DELETE FROM links WHERE id = \(id) AND app_id = \(appID) RETURNING id") { _ in () }.isEmpty
    }

    package func link(id: String, appID: String) async throws -> Link? {
        try await first("SELECT * FROM links WHERE id = \(id) AND app_id = \(appID)", Link.init(row:))
    }

    package func link(domain: String, slug: String) async throws -> Link? {
        try await first("SELECT * FROM links WHERE domain = \(domain) AND slug = \(slug)", Link.init(row:))
    }

    package func listLinks(appID: String, environment: APIEnvironment, limit: Int, after: Int64?) async throws -> LinkPage {
        let rows = try await all("""
            SELECT * FROM links WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND seq < \(after ?? Int64.max)
            ORDER BY seq DESC LIMIT \(limit + 1)
            """) { row in (try Link(row: row), try row["seq"].decode(Int64.self)) }
        return LinkPage(links: rows.prefix(limit).map(\.0), nextCursor: rows.count > limit ? rows[limit - 1].1 : nil)
    }

    package func searchLinks(appID: String, environment: APIEnvironment, matching text: String, limit: Int) async throws -> [Link] {
        let pattern = containsPattern(text)
        return try await all("""
            SELECT * FROM links WHERE app_id = \(appID) AND environment = \(environment.rawValue)
                AND (lower(slug) LIKE \(pattern) ESCAPE '\\' OR lower(destination) LIKE \(pattern) ESCAPE '\\'
                    OR lower(COALESCE(campaign, '')) LIKE \(pattern) ESCAPE '\\')
            ORDER BY seq DESC LIMIT \(limit)
            """, Link.init(row:))
    }

    package func ipadBundleIDs(appID: String, limit: Int) async throws -> [String] {
        let routings = try await all("""
            SELECT DISTINCT routing FROM links WHERE app_id = \(appID) AND routing IS NOT NULL AND routing LIKE \(LinkRoutingSchema.namesIPadBundleID)
            LIMIT \(limit * 20)
            """) { row in try row["routing"].decode(String.self) }
        return LinkRoutingSchema.ipadBundleIDs(routings, limit: limit)
    }
}
#endif
