#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/audit-log`: the changes made to the key's app (those of its environment and those both environments
/// share), newest first, a page at a time as JSON or all of them as CSV (`format=csv`). Secret key, `audit:read`.
struct AuditController: Sendable {
    let store: any FerryDatabase
    let authenticator: KeyAuthenticator

    func register(on router: Router<FerryRequestContext>) {
        router.get(RouterPath(FerryRoutes.auditLog)) { request, _ in try await list(request) }
    }

    /// The most events one JSON page holds, and how many unless `limit` says.
    static let maxLimit = 200
    static let defaultLimit = 50
    /// How many events each page of the CSV reads.
    static let csvPage = 500

    func list(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .auditRead)
        let parameters = request.uri.queryParameters
        var query = try Self.query(parameters.map { (String($0.key), String($0.value)) })
        query.appID = auth.app.id
        query.environment = auth.key.environment
        if let format = parameters["format"], format != "json" {
            guard format == "csv" else { throw APIError(.invalidField, message: "format must be json or csv", field: "format") }
            return Self.csv(query, from: store)
        }
        let limit = query.limit
        query.limit += 1
        let events = try await store.auditEvents(query)
        let page = events.prefix(limit)
        return try JSONBody.response(AuditLogResponse(data: page.map(\.response),
                                                      nextCursor: events.count > limit ? page.last.map { String($0.id) } : nil))
    }

    /// Every event of the query as CSV, read a page at a time (the API's and the dashboard's download).
    static func csv(_ query: AuditQuery, from store: any FerryDatabase) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"audit-log.csv\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: CSV.line(AuditEvent.csvColumns)))
            var query = query
            query.limit = Self.csvPage
            while true {
                let events = try await store.auditEvents(query)
                if !events.isEmpty { try await writer.write(ByteBuffer(string: events.flatMap { $0.csvLines() }.joined())) }
                guard events.count == Self.csvPage, let last = events.last else { break }
                query.before = last.id
            }
            try await writer.finish(nil)
        })
    }

    /// The filters of a request (`objectType`, `objectID`, `actor`, `since`, `until`, `cursor`, `limit`), each checked;
    /// the app and environment are the key's. Shared with the command line.
    static func query(_ parameters: [(String, String)]) throws(APIError) -> AuditQuery {
        var query = AuditQuery(limit: defaultLimit)
        for (name, value) in parameters {
            switch name {
            case "limit":
                guard value.utf8.count <= 3, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                      let limit = Int(value), (1...maxLimit).contains(limit) else {
                    throw APIError(.invalidField, message: "limit must be a whole number from 1 to \(maxLimit)", field: "limit")
                }
                query.limit = limit
            case "cursor":
                // A cursor is a position: the page holds the events before it. Any position is one.
                guard !value.isEmpty, value.utf8.count <= 19, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                      let cursor = UInt64(value) else {
                    throw APIError(.invalidField, message: "cursor must be a value from a previous page's nextCursor (1 to 19 digits)", field: "cursor")
                }
                query.before = Int64(clamping: cursor)
            case "objectType":
                guard AuditEvent.objectTypes.contains(value) else {
                    throw APIError(.invalidField, message: "objectType must be one of \(AuditEvent.objectTypes.joined(separator: ", "))", field: "objectType")
                }
                query.objectType = value
            case "objectID":
                query.objectID = try text(value, field: "objectID", max: 260)
            case "actor":
                query.actorID = try text(value, field: "actor", max: 128)
            case "since", "until":
                guard value.utf8.count <= 64, let date = FerryJSON.parseDate(value) else {
                    throw APIError(.invalidField, message: "\(name) must be a date and time such as 2026-01-31T00:00:00Z", field: name)
                }
                if name == "since" { query.since = date } else { query.until = date }
            default:
                continue
            }
        }
        // `until` at or before `since` selects nothing, as any empty range does.
        return query
    }

    /// A filter's text: 1 to `max` characters (Unicode scalars, as the description counts them); it is only compared.
    static func text(_ value: String, field: String, max: Int) throws(APIError) -> String {
        guard (1...max).contains(value.unicodeScalars.count) else {
            throw APIError(.invalidField, message: "\(field) must be 1 to \(max) characters", field: field)
        }
        return value
    }
}
#endif
