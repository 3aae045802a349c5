#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    package func createLink(_ link: Link) async throws {
        try await write { db in try Self.insert(link, requestDigest: nil, db: db) }
    }

    package func createLink(_ link: Link, requestDigest: String, reusingSince since: Date) async throws -> (link: Link, created: Bool) {
        // One writer at a time: no other request can come between this read and the insert.
        try await write { db in
            let earlier = try db.cachedStatement(sql: "SELECT \(LinkColumn.list) FROM links WHERE app_id = ? AND request_digest = ?")
                .decodedRow(arguments: [link.appID, requestDigest], Link.init(row:))
            if let earlier {
                if earlier.createdAt >= since { return (earlier, false) }
                try db.execute(sql: "UPDATE links SET request_digest = NULL WHERE id = ?", arguments: [earlier.id])
            }
            try Self.insert(link, requestDigest: requestDigest, db: db)
            return (link, true)
        }
    }

    private static func insert(_ link: Link, requestDigest: String?, db: Database) throws {
        do {
            try db.execute(sql: """
                INSERT INTO links (id, app_id, environment, domain, slug, destination, ios_url, android_url, params,
                    utm_source, utm_medium, utm_campaign, utm_content, utm_term, campaign, referrer,
                    social_title, social_description, social_image_url, expires_at, disabled, routing, long_link, created_in_app,
                    request_digest, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [link.id, link.appID, link.environment.rawValue, link.domain, link.slug] + Self.linkContent(link)
                    + [link.longLink, link.createdInApp, requestDigest, link.createdAt.timeIntervalSince1970, link.updatedAt.timeIntervalSince1970])
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw StoreConflict(field: "slug", message: "slug '\(link.slug)' is already taken on \(link.domain)")
        }
    }

    package func deleteLinksCreatedInApp(appID: String, environment: APIEnvironment, createdBefore before: Date, limit: Int) async throws -> [LinkChanges.Place] {
        try await write { db in
            let names = try Row.fetchAll(db, sql: """
                DELETE FROM links WHERE id IN (
                    SELECT id FROM links WHERE app_id = ? AND environment = ?\(createdInAppCondition(true)) AND created_at < ?
                    ORDER BY seq LIMIT ?)
                RETURNING domain, slug
                """, arguments: [appID, environment.rawValue, before.timeIntervalSince1970, limit])
            return names.map { LinkChanges.Place(domain: $0[0], slug: $0[1]) }
        }
    }

    package func updateLink(_ link: Link) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                UPDATE links SET destination = ?, ios_url = ?, android_url = ?, params = ?, utm_source = ?, utm_medium = ?,
                    utm_campaign = ?, utm_content = ?, utm_term = ?, campaign = ?, referrer = ?, social_title = ?,
                    social_description = ?, social_image_url = ?, expires_at = ?, disabled = ?, routing = ?, updated_at = ?
                WHERE id = ? AND app_id = ?
                """, arguments: Self.linkContent(link) + [link.updatedAt.timeIntervalSince1970, link.id, link.appID])
            return db.changesCount > 0
        }
    }

    package func deleteLink(id: String, appID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM links WHERE id = ? AND app_id = ?", arguments: [id, appID])
            return db.changesCount > 0
        }
    }

    package func link(id: String, appID: String) async throws -> Link? {
        try await readHere { db in
            let statement = try db.cachedStatement(sql: "SELECT \(LinkColumn.list) FROM links WHERE id = ? AND app_id = ?")
            return try statement.decodedRow(arguments: [id, appID], Link.init(row:))
        }
    }

    package func link(domain: String, slug: String) async throws -> Link? {
        try await read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(LinkColumn.list) FROM links WHERE domain = ? AND slug = ?")
            return try statement.decodedRow(arguments: [domain, slug], Link.init(row:))
        }
    }

    /// A point read on a connection of its own, on the caller's thread. A link lookup is a few B-tree pages, and
    /// SQLite's readers never wait for its writer (WAL), so the edge can afford it on an event loop.
    package func linkImmediately(domain: String, slug: String) throws -> Link? {
        let read = try onFreeImmediateReader { reader in
            // One statement reads a consistent snapshot by itself: no transaction around it (two fewer statements).
            try reader.inDatabase { db in
                let statement = try db.cachedStatement(sql: "SELECT \(LinkColumn.list) FROM links WHERE domain = ? AND slug = ?")
                return try statement.decodedRow(arguments: [domain, slug], Link.init(row:))
            }
        }
        guard let read else { throw ImmediateReadUnavailable() }
        return read
    }

    package func listLinks(appID: String, environment: APIEnvironment, filter: LinkFilter, limit: Int, after: Int64?) async throws -> LinkPage {
        let (conditions, values) = filter.conditions
        var arguments: StatementArguments = [appID, environment.rawValue]
        for value in values {
            switch value {
            case .text(let text): arguments += [text]
            case .number(let number): arguments += [number]
            }
        }
        arguments += [after ?? Int64.max, limit + 1]
        let bound = arguments
        return try await read { db in
            let rows = try db.makeStatement(sql: """
                SELECT \(LinkColumn.list) FROM links WHERE app_id = ? AND environment = ?\(conditions) AND seq < ?
                ORDER BY seq DESC LIMIT ?
                """).decodedRows(arguments: bound) { row in
                (link: try Link(row: row), seq: try row.columns(LinkColumn.self)[.seq] as Int64)
            }
            let next: Int64? = rows.count > limit ? rows[limit - 1].seq : nil
            return LinkPage(links: rows.prefix(limit).map(\.link), nextCursor: next)
        }
    }

    package func ipadBundleIDs(appID: String, limit: Int) async throws -> [String] {
        try await read { db in
            let routings = try String.fetchAll(db, sql: """
                SELECT DISTINCT routing FROM links WHERE app_id = ? AND routing IS NOT NULL AND routing LIKE ? LIMIT ?
                """, arguments: [appID, LinkRoutingSchema.namesIPadBundleID, limit * 20])
            return LinkRoutingSchema.ipadBundleIDs(routings, limit: limit)
        }
    }

    private static func linkContent(_ link: Link) -> StatementArguments {
        [
            link.destination, link.iosURL, link.androidURL, JSONText.encode(link.params),
            link.utm.source, link.utm.medium, link.utm.campaign, link.utm.content, link.utm.term,
            link.campaign, link.referrer, link.social.title, link.social.description, link.social.imageURL,
            link.expiresAt?.timeIntervalSince1970, link.disabled, LinkRoutingSchema.encode(link.routing),
        ]
    }
}
#endif
