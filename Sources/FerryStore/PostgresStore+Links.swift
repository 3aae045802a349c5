#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import PostgresNIO

extension PostgresStore {
    package func createLink(_ link: Link) async throws {
        try await insert(link, requestDigest: nil)
    }

    package func createLink(_ link: Link, requestDigest: String, reusingSince since: Date) async throws -> (link: Link, created: Bool) {
        let logger = logger
        return try await transaction { connection in
            // Requests with the same digest take turns, on every node: the second sees the first one's link.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.requestDigestLock), hashtext(\(requestDigest)))", logger: logger)
            let earlier = try await connection.query("""
                SELECT * FROM links WHERE app_id = \(link.appID) AND request_digest = \(requestDigest)
                """, logger: logger).collect().first.map { try Link(row: $0.makeRandomAccess()) }
            if let earlier {
                if earlier.createdAt >= since { return (earlier, false) }
                try await connection.query("UPDATE links SET request_digest = NULL WHERE id = \(earlier.id)", logger: logger)
            }
            do {
                try await connection.query(Self.insertion(link, requestDigest: requestDigest), logger: logger)
            } catch where Self.uniqueViolation(error) != nil {
                throw StoreConflict(field: "slug", message: "slug '\(link.slug)' is already taken on \(link.domain)")
            }
            return (link, true)
        }
    }

    /// The advisory lock space of request digests (`pg_advisory_xact_lock(space, hash)`): a number no other program uses.
    static let requestDigestLock: Int32 = 0x4672_6C6B

    private func insert(_ link: Link, requestDigest: String?) async throws {
        do {
            try await execute(Self.insertion(link, requestDigest: requestDigest))
        } catch where Self.uniqueViolation(error) != nil {
            throw StoreConflict(field: "slug", message: "slug '\(link.slug)' is already taken on \(link.domain)")
        }
    }

    private static func insertion(_ link: Link, requestDigest: String?) -> PostgresQuery {
        """
        INSERT INTO links (id, app_id, environment, domain, slug, destination, ios_url, android_url, params,
            utm_source, utm_medium, utm_campaign, utm_content, utm_term, campaign, referrer,
            social_title, social_description, social_image_url, expires_at, disabled, routing, long_link, created_in_app,
            request_digest, created_at, updated_at)
        VALUES (\(link.id), \(link.appID), \(link.environment.rawValue), \(link.domain), \(link.slug), \(link.destination),
            \(link.iosURL), \(link.androidURL), \(JSONText.encode(link.params)), \(link.utm.source), \(link.utm.medium),
            \(link.utm.campaign), \(link.utm.content), \(link.utm.term), \(link.campaign), \(link.referrer), \(link.social.title),
            \(link.social.description), \(link.social.imageURL), \(link.expiresAt?.timeIntervalSince1970), \(link.disabled),
            \(LinkRoutingSchema.encode(link.routing)), \(link.longLink), \(link.createdInApp), \(requestDigest),
            \(link.createdAt.timeIntervalSince1970), \(link.updatedAt.timeIntervalSince1970))
        """
    }

    package func deleteLinksCreatedInApp(appID: String, environment: APIEnvironment, createdBefore before: Date, limit: Int) async throws -> [LinkChanges.Place] {
        try await all("""
            DELETE FROM links WHERE id IN (
                SELECT id FROM links WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND created_in_app
                    AND created_at < \(before.timeIntervalSince1970)
                ORDER BY seq LIMIT \(limit))
            RETURNING domain, slug
            """) { row in LinkChanges.Place(domain: try row["domain"].decode(String.self), slug: try row["slug"].decode(String.self)) }
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

    package func listLinks(appID: String, environment: APIEnvironment, filter: LinkFilter, limit: Int, after: Int64?) async throws -> LinkPage {
        // The filter's `?` become `$3`, `$4`…, after the app and environment.
        let (conditions, values) = filter.conditions
        var bindings = PostgresBindings()
        bindings.append(appID)
        bindings.append(environment.rawValue)
        var sql = "SELECT * FROM links WHERE app_id = $1 AND environment = $2"
        var placeholder = 3
        for character in conditions {
            if character == "?" {
                sql += "$\(placeholder)"
                placeholder += 1
            } else {
                sql.append(character)
            }
        }
        for value in values {
            switch value {
            case .text(let text): bindings.append(text)
            case .number(let number): bindings.append(number)
            }
        }
        sql += " AND seq < $\(placeholder) ORDER BY seq DESC LIMIT $\(placeholder + 1)"
        bindings.append(after ?? Int64.max)
        bindings.append(Int64(limit + 1))
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let rows = try await all(query) { row in (try Link(row: row), try row["seq"].decode(Int64.self)) }
        return LinkPage(links: rows.prefix(limit).map(\.0), nextCursor: rows.count > limit ? rows[limit - 1].1 : nil)
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
