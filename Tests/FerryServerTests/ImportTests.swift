#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import Testing

/// `ferry import firebase`: the real command on a real database file.
@Suite("Importing a Firebase Dynamic Links export")
struct ImportTests {
    static let export = """
        \u{FEFF}Short link,Deep link (link),Android package name (apn),Android fallback link (afl),Android minimum package version code (amv),\
        iOS bundle ID (ibi),iOS fallback link (ifl),iOS custom scheme (ius),iOS iPad fallback link (ipfl),iOS iPad bundle ID (ipbi),\
        iOS app store ID (isi),iOS minimum version (imv),Enable forced redirect? (efr),Desktop fallback link (ofl),Social title (st),\
        Social description (sd),Social image link (si),UTM source (utm_source),UTM medium (utm_medium),UTM campaign (utm_campaign),\
        UTM term (utm_term),UTM content (utm_content),iTunes Connect at,iTunes Connect ct,iTunes Connect mt,iTunes Connect pt,Archived?,Link name,Creation timestamp\r
        https://example.page.link/Summer,https://example.com/summer,com.example.android,,,com.example.app,,,,,1234567890,,false,,"Summer, at last",\
        Deals,https://example.com/s.png,newsletter,email,summer,,,,,,,false,Summer sale,2023-06-01T10:00:00Z\r
        https://example.page.link/old,https://example.com/old,,,,,,,,,,,,,,,,,,,,,,,,,true,Old,2021-01-01 00:00:00\r
        https://example.page.link/bad,javascript:alert(1),,,,,,,,,,,,,,,,,,,,,,,,,false,Bad,\r
        https://example.page.link/a/b,https://example.com/ab,,,,,,,,,,,,,,,,,,,,,,,,,false,Nested,\r

        """

    @Test func linksAreCreatedOnceWithTheirAgeAndSkipsAreExplained() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let file = fixture.directory.appendingPathComponent("links.csv")
        try Self.export.write(to: file, atomically: true, encoding: .utf8)
        let arguments = ["import", "firebase", file.path, "--database", "sqlite:\(fixture.path)", "--app", fixture.app.id, "--domain", "go.example.com"]

        let dry = try await FerryProcess.run(arguments + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("4 rows: 2 would be created, 0 already there, 2 skipped"), "\(dry.stdout)")
        #expect(try await fixture.store.link(domain: "go.example.com", slug: "summer") == nil, "a dry run writes nothing")

        let first = try await FerryProcess.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("4 rows: 2 created, 0 already there, 2 skipped"), "\(first.stdout)")
        #expect(first.stdout.contains("invalid_destination") && first.stdout.contains("line 4"), "\(first.stdout)")
        #expect(first.stdout.contains("invalid_slug") && first.stdout.contains("line 5"), "\(first.stdout)")
        let summer = try #require(try await fixture.store.link(domain: "go.example.com", slug: "summer"))
        #expect(summer.destination == "https://example.com/summer")
        #expect(summer.social.title == "Summer, at last")
        #expect(summer.utm.source == "newsletter" && summer.utm.campaign == "summer")
        #expect(summer.createdAt == ISO8601DateFormatter().date(from: "2023-06-01T10:00:00Z"), "the link keeps its age")
        let old = try #require(try await fixture.store.link(domain: "go.example.com", slug: "old"))
        #expect(old.disabled, "an archived link is disabled")

        let again = try await FerryProcess.run(arguments)
        #expect(again.stdout.contains("4 rows: 0 created, 2 already there, 2 skipped"), "running it twice changes nothing: \(again.stdout)")
        #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 100, after: nil).links.count == 2)

        // Without --domain, page.link hosts are not the app's: every row says so, nothing is written.
        let foreign = try await FerryProcess.run(Array(arguments.dropLast(2)))
        #expect(foreign.stdout.contains("0 created") && foreign.stdout.contains("skipped 3 × foreign_domain") && foreign.stdout.contains("pass --domain"), "\(foreign.stdout)")

        let missing = try await FerryProcess.run(["import", "firebase", "/nonexistent.csv", "--database", "sqlite:\(fixture.path)", "--app", fixture.app.id])
        #expect(missing.status != 0 && missing.stderr.contains("cannot read"))
        let broken = fixture.directory.appendingPathComponent("broken.csv")
        try "Short link,Deep link\n\"https://x.page.link/a,https://example.com\n".write(to: broken, atomically: true, encoding: .utf8)
        let unreadable = try await FerryProcess.run(["import", "firebase", broken.path, "--database", "sqlite:\(fixture.path)", "--app", fixture.app.id])
        #expect(unreadable.status != 0 && unreadable.stderr.contains("line"), "\(unreadable.stderr)")
    }
}
#endif
