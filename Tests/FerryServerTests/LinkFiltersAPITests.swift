#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /v1/links` filtered: by state, campaign, domain, creation time and text; wrong values refused by name.
@Suite("Links API: filters", .takesTurns)
struct LinkFiltersAPITests {
    @Test func theListingTakesEachFilterAndRefusesWhatIsNotOne() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let admin = fixture.admin
        _ = try await admin.createLink(CreateLinkRequest(slug: "spring-a", destination: "https://example.com/a", campaign: "spring"), app: fixture.app, environment: .live)
        var expired = CreateLinkRequest(slug: "old-one", destination: "https://example.com/old", campaign: "spring")
        expired.expiresAt = Date().addingTimeInterval(-60)
        _ = try await admin.createLink(expired, app: fixture.app, environment: .live)
        var off = CreateLinkRequest(slug: "off-one", destination: "https://example.com/off")
        off.disabled = true
        _ = try await admin.createLink(off, app: fixture.app, environment: .live)
        var other = CreateLinkRequest(slug: "elsewhere", destination: "https://example.com/else")
        other.domain = "links.example.com"
        other.utm = UTMParameters(campaign: "winter")
        _ = try await admin.createLink(other, app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            func slugs(_ query: String) async throws -> [String] {
                let response = try await client.execute(uri: "/v1/links?\(query)", method: .get, headers: headers(key: fixture.secret))
                #expect(response.status == .ok, "\(query): \(response.text)")
                return try response.decode(LinkListResponse.self).data.map(\.slug)
            }
            #expect(try await slugs("") == ["elsewhere", "off-one", "old-one", "spring-a"])
            #expect(try await slugs("status=active") == ["elsewhere", "spring-a"])
            #expect(try await slugs("status=expired") == ["old-one"])
            #expect(try await slugs("status=disabled") == ["off-one"])
            #expect(try await slugs("campaign=spring") == ["old-one", "spring-a"])
            #expect(try await slugs("campaign=winter") == ["elsewhere"])
            #expect(try await slugs("domain=LINKS.example.com") == ["elsewhere"])
            #expect(try await slugs("domain=nowhere.example.org").isEmpty)
            #expect(try await slugs("q=ELSE") == ["elsewhere"])
            #expect(try await slugs("status=active&campaign=spring&domain=go.example.com") == ["spring-a"])
            let hourAgo = FerryJSON.formatDate(Date().addingTimeInterval(-3600))
            #expect(try await slugs("createdFrom=\(hourAgo)").count == 4)
            #expect(try await slugs("createdBefore=\(hourAgo)").isEmpty)
            #expect(try await slugs("createdFrom=2026-11-02T00:00:00Z&createdBefore=2026-11-01T00:00:00Z").isEmpty, "an empty range selects nothing")
            #expect(try await slugs("limit=1&status=active").count == 1)

            for (query, field) in [("status=gone", "status"), ("status=ACTIVE", "status"), ("status=", "status"), ("createdFrom=", "createdFrom"), ("createdFrom=yesterday", "createdFrom"),
                                   ("createdFrom=2026-11-01", "createdFrom"), ("createdBefore=2026-02-30T00:00:00Z", "createdBefore"),
                                   ("domain=%7F", "domain"), ("q=\(String(repeating: "x", count: 201))", "q"), ("campaign=%01", "campaign")] {
                let response = try await client.execute(uri: "/v1/links?\(query)", method: .get, headers: headers(key: fixture.secret))
                #expect(response.status == .badRequest, "\(query)")
                #expect(response.error?.field == field, "\(query): \(response.text)")
            }
        }
    }

    @Test func daysAndTimesAreReadStrictly() throws {
        #expect(LinkFilterQuery.day("2026-11-01") == FerryJSON.parseDate("2026-11-01T00:00:00Z"))
        #expect(LinkFilterQuery.day("2024-02-29") != nil && LinkFilterQuery.day("2026-02-29") == nil)
        for wrong in ["2026-1-01", "2026-11-1", "26-11-01", "2026-11-01x", "２０２６-11-01", "2026-00-10", "2026-11-00", ""] {
            #expect(LinkFilterQuery.day(wrong) == nil, "\(wrong)")
        }
        #expect(try LinkFilterQuery.moment("createdFrom", "2026-11-01T09:30:00+02:00", days: false) == FerryJSON.parseDate("2026-11-01T07:30:00Z"))
        #expect(try LinkFilterQuery.moment("createdFrom", "2026-11-01", days: true) == FerryJSON.parseDate("2026-11-01T00:00:00Z"))
        #expect(throws: ValidationError.self) { try LinkFilterQuery.moment("createdFrom", "2026-11-01", days: false) }
    }
}
#endif
