#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry import firebase`: the real command on a real database file.
@Suite("Importing a Firebase Dynamic Links export", .takesTurns)
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
        https://example.page.link/a/b/c/d/e,https://example.com/ab,,,,,,,,,,,,,,,,,,,,,,,,,false,Nested,\r

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

    // MARK: Per-link routing, hostile values and the skipped-rows report

    /// A CSV line of the export's 29 columns, cells named by their FDL code (`ofl`, `utm_source`) or, for columns
    /// without one, their header (`Short link`, `iTunes Connect at`, `Archived?`).
    static func line(_ cells: [String: String]) throws -> String {
        let header = try #require(try CSV.parse(export).first)
        let codes = header.map { title in
            title.firstIndex(of: "(").map { String(title[title.index(after: $0)...].prefix { $0 != ")" }) } ?? title
        }
        #expect(Set(cells.keys).isSubset(of: codes), "unknown column in \(cells.keys.sorted())")
        return CSV.line(codes.map { cells[$0] })
    }

    /// Every one of the 29 columns set, each to a value of its own.
    static let everyColumn = [
        "Short link": "https://example.page.link/All29", "link": "https://example.com/deep?x=1", "apn": "com.example.android",
        "afl": "https://example.com/android", "amv": "42", "ibi": "com.example.app", "ifl": "https://example.com/ios", "ius": "example",
        "ipfl": "https://example.com/ipad", "ipbi": "com.example.ipad", "isi": "555", "imv": "2.4.1", "efr": "1",
        "ofl": "https://example.com/desktop", "st": "Title", "sd": "Description", "si": "https://example.com/i.png",
        "utm_source": "src", "utm_medium": "med", "utm_campaign": "camp", "utm_term": "term", "utm_content": "cont",
        "iTunes Connect at": "AT1", "iTunes Connect ct": "CT1", "iTunes Connect mt": "8", "iTunes Connect pt": "PT1",
        "Archived?": "true", "Link name": "All columns", "Creation timestamp": "2024-03-01T08:00:00Z",
    ]

    /// Rows with a hostile value in one column each, and the column the skip must name.
    static let hostileRows: [(cells: [String: String], column: String)] = [
        (["ifl": "javascript:alert(document.cookie)"], "(from ifl)"),
        (["ipfl": "https://example.com/a\r\nSet-Cookie: x=1"], "(from ipfl)"),
        (["afl": "data:text/html,<script>alert(1)</script>"], "(from afl)"),
        (["ofl": "ftp://example.com/file"], "(ofl)"),
        (["ipbi": "<script>alert(1)</script>"], "(from ipbi)"),
        (["isi": "12345678901234567890"], "(from isi)"),
        (["imv": String(repeating: "9", count: 10_000)], "(from imv)"),
        (["amv": "99999999999"], "(from amv)"),
        (["iTunes Connect ct": String(repeating: "c", count: 10_000)], "(from iTunes Connect ct)"),
        (["iTunes Connect pt": "pt\u{1B}[2J"], "(from iTunes Connect pt)"),
        (["si": "javascript:alert(1)"], "(from si)"),
        (["link": "https://example.com/" + String(repeating: "x", count: 10_000)], "deep link"),
    ]

    /// The export: the full row, a row naming no app, the hostile rows, a row whose values are noted but kept out.
    static func routingExport() throws -> String {
        var text = try #require(export.split(separator: "\r\n", maxSplits: 1).first).description + "\r\n"
        text += try line(everyColumn)                                                                            // line 2
        text += try line(["Short link": "https://example.page.link/web", "link": "https://example.com/web"])     // line 3
        for (index, row) in hostileRows.enumerated() {                                                           // lines 4…16
            text += try line(row.cells.merging(["Short link": "https://example.page.link/h\(index)", "link": "https://example.com/h"]) { old, _ in old })
        }
        text += try line([                                                                                       // line 17
            "Short link": "https://example.page.link/noted", "link": "https://example.com/n", "apn": "com.example.android",
            "ibi": "com.example.app", "amv": "<script>", "efr": "\u{1B}[31mmaybe", "Archived?": "perhaps\r\nnot",
        ])
        return text
    }

    /// The routing export imported into a fresh store of each kind: every value lands in its field, read back from
    /// the store; hostile rows are skips naming their column, listed in full in the report; a dry run writes nothing
    /// and a second run creates nothing.
    @Test(arguments: TenantIsolationTests.backends)
    func everyColumnLandsInItsFieldAndHostileRowsAreReported(backend: String) async throws {
        let (stores, close) = try await TenantIsolationTests.open(backend, count: 1)
        let store = stores[0]
        let admin = FerryAdmin(store: store)
        var spec = FerryAdmin.AppSpec(name: "Example", domains: ["go.example.com"])
        spec.teamID = "ABCDE12345"
        spec.bundleIDs = ["com.example.app"]
        spec.appStoreID = "1234567890"
        spec.urlScheme = "example"
        spec.androidPackage = "com.example.android"
        let app = try await admin.createApp(spec)
        let importer = FirebaseImporter(admin: admin)
        let csv = try Self.routingExport()
        let options = FirebaseLinkImport.Options(domain: "go.example.com")
        func links() async throws -> [Link] { try await store.listLinks(appID: app.id, environment: .live, limit: 100, after: nil).links }

        let dry = try await importer.run(csv: csv, app: app, environment: .live, options: options, dryRun: true, by: nil)
        #expect((dry.rows, dry.created, dry.skippedCount) == (15, 3, 12))
        #expect(try await links().isEmpty, "a dry run writes nothing")

        var done: [Int] = []
        let first = try await importer.run(csv: csv, app: app, environment: .live, options: options, by: .commandLine(environment: ["USER": "ops"])) { count, total in
            done.append(count)
            #expect(total == 15)
        }
        #expect(done == Array(1...15), "progress is reported once a row")
        #expect((first.rows, first.created, first.alreadyThere, first.skippedCount) == (15, 3, 0, 12))

        // Every column of the full row, read back from the store.
        let all = try #require(try await store.link(domain: "go.example.com", slug: "all29"))
        #expect(all.appID == app.id && all.environment == .live)
        #expect(all.destination == "https://example.com/deep?x=1")
        #expect(all.iosURL == nil && all.androidURL == nil)
        #expect(all.params == ["fdl_name": "All columns"])
        #expect(all.utm == UTMParameters(source: "src", medium: "med", campaign: "camp", content: "cont", term: "term"))
        #expect(all.social == SocialMetadata(title: "Title", description: "Description", imageURL: "https://example.com/i.png"))
        #expect(all.disabled)
        #expect(all.createdAt == Date(timeIntervalSince1970: 1_709_280_000))
        #expect(all.routing.iosFallbackURL == "https://example.com/ios")
        #expect(all.routing.ipadFallbackURL == "https://example.com/ipad")
        #expect(all.routing.ipadBundleID == "com.example.ipad")
        #expect(all.routing.appStoreID == "555")
        #expect(all.routing.iosMinimumVersion == "2.4.1")
        #expect(all.routing.androidFallbackURL == "https://example.com/android")
        #expect(all.routing.androidMinimumVersionCode == 42)
        #expect(all.routing.otherPlatformFallbackURL == "https://example.com/desktop")
        #expect(all.routing.skipPreviewPage == true)
        #expect(all.routing.appStoreAnalytics == AppStoreAnalytics(affiliateToken: "AT1", campaignToken: "CT1", mediaType: "8", providerToken: "PT1"))
        #expect(all.data.iosMinimumVersion == "2.4.1" && all.data.androidMinimumVersionCode == 42, "the app is handed the minimum versions")

        // A row naming no app sends phones where FDL did: the deep link.
        let web = try #require(try await store.link(domain: "go.example.com", slug: "web"))
        #expect(web.routing == LinkRouting(iosFallbackURL: "https://example.com/web", androidFallbackURL: "https://example.com/web"))
        // Values that are not what their column holds are noted, not stored.
        let noted = try #require(try await store.link(domain: "go.example.com", slug: "noted"))
        #expect(noted.routing == LinkRouting() && !noted.disabled)
        #expect(first.notes.keys.contains { $0.hasPrefix("Android minimum package version code (amv) '<script>'") })
        #expect(first.notes.keys.contains { $0.hasPrefix("Enable forced redirect (efr) '\\u{1B}[31mmaybe'") })
        #expect(first.notes.keys.contains { $0.hasPrefix("Archived? value 'perhaps\\r\\nnot'") })

        // Every hostile row is skipped, names its column, and is in the report with its short link.
        #expect(first.skipped.map(\.line) == [4, 5] + Array(7...16), "line 5 holds a line break")
        for (row, hostile) in zip(first.skipped, Self.hostileRows) {
            #expect(row.message.contains(hostile.column), "line \(row.line): \(row.message)")
            #expect(row.message.count < 600 && !row.message.unicodeScalars.contains { $0.properties.generalCategory == .control })
        }
        let report = try CSV.parse(first.skippedReport)
        #expect(report.first == ["line", "short_link", "code", "message"])
        #expect(report.dropFirst().map { $0[0] } == first.skipped.map { String($0.line) })
        #expect(report.dropFirst().map { $0[1] } == (0..<12).map { "https://example.page.link/h\($0)" })
        #expect(report.dropFirst().map { $0[2] } == first.skipped.map(\.code))
        #expect(report.dropFirst().map { $0[3] } == first.skipped.map(\.message))
        #expect(first.skippedByCode.map(\.code) == ["invalid_destination", "invalid_link"])

        // Nothing stored holds a value the API would refuse.
        for link in try await links() {
            #expect(try LinkRules.validateRouting(link.routing) == link.routing)
            try URLRules.validateWebURL(link.destination, field: "destination")
        }

        // Again: nothing created, nothing changed.
        let again = try await importer.run(csv: csv, app: app, environment: .live, options: options, by: nil)
        #expect((again.created, again.alreadyThere, again.skippedCount) == (0, 3, 12))
        #expect(try await links().count == 3)
        #expect(try await store.link(domain: "go.example.com", slug: "all29") == all)
        await close()
    }

    /// A link an earlier importer made from a row with a desktop fallback (ofl as destination, the deep link in
    /// params.fdl_link) is the row's link: counted as already there, not as a slug holding another link.
    @Test(arguments: TenantIsolationTests.backends)
    func aLinkImportedWithTheEarlierMappingIsAlreadyThere(backend: String) async throws {
        let (stores, close) = try await TenantIsolationTests.open(backend, count: 1)
        let admin = FerryAdmin(store: stores[0])
        let app = try await admin.createApp(.init(name: "Example", domains: ["go.example.com"]))
        let earlier = try await admin.createLink(
            CreateLinkRequest(slug: "promo", destination: "https://example.com/desktop", params: ["fdl_link": "https://example.com/p"]),
            app: app, environment: .live
        )
        let csv = try #require(Self.export.split(separator: "\r\n", maxSplits: 1).first).description + "\r\n" + (try Self.line([
            "Short link": "https://example.page.link/promo", "link": "https://example.com/p", "ofl": "https://example.com/desktop",
        ]))
        let summary = try await FirebaseImporter(admin: admin).run(
            csv: csv, app: app, environment: .live, options: .init(domain: "go.example.com"), by: nil
        )
        #expect((summary.created, summary.alreadyThere, summary.skippedCount) == (0, 1, 0))
        #expect(summary.notes.keys.contains { $0.contains("imported before with the desktop fallback (ofl) as destination") })
        #expect(try await stores[0].link(domain: "go.example.com", slug: "promo") == earlier, "left as it is")
        await close()
    }

    /// The command line: the summary keeps 5 rows a reason, `--skipped-report` writes every one, the progress bar
    /// stays off a stderr that is not a terminal, and an unwritable report stops the import before it starts.
    @Test func theSkippedReportListsEverySkippedRow() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let header = try #require(Self.export.split(separator: "\r\n", maxSplits: 1).first).description + "\r\n"
        var text = header + (try Self.line(Self.everyColumn))
        for index in 0..<12 {
            text += try Self.line(["Short link": "https://example.page.link/bad\(index)", "link": "https://example.com/", "ifl": "javascript:alert(\(index))"])
        }
        let file = fixture.directory.appendingPathComponent("links.csv")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let report = fixture.directory.appendingPathComponent("skipped.csv")
        let arguments = ["import", "firebase", file.path, "--database", "sqlite:\(fixture.path)", "--app", fixture.app.id, "--domain", "go.example.com"]

        let unwritable = try await FerryProcess.run(arguments + ["--skipped-report", fixture.directory.path + "/missing/skipped.csv"])
        #expect(unwritable.status != 0 && unwritable.stderr.contains("cannot write"), "\(unwritable.stderr)")
        #expect(try await fixture.store.link(domain: "go.example.com", slug: "all29") == nil, "nothing is imported")

        let dry = try await FerryProcess.run(arguments + ["--dry-run", "--skipped-report", report.path])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(try CSV.parse(String(contentsOf: report, encoding: .utf8)).count == 13, "a dry run reports what it would skip")
        #expect(try await fixture.store.link(domain: "go.example.com", slug: "all29") == nil, "a dry run writes no link")

        let run = try await FerryProcess.run(arguments + ["--skipped-report", report.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("13 rows: 1 created, 0 already there, 12 skipped"), "\(run.stdout)")
        #expect(run.stdout.contains("skipped 12 × invalid_link") && run.stdout.contains("  … and 7 more\n"), "\(run.stdout)")
        #expect(run.stdout.components(separatedBy: "(from ifl)").count - 1 == 5, "the summary keeps 5 rows a reason: \(run.stdout)")
        #expect(run.stdout.contains("every skipped row (12): \(report.path)"), "\(run.stdout)")
        #expect(!run.stderr.contains("█") && !run.stderr.contains("\r"), "no progress bar on a pipe: \(run.stderr.debugDescription)")
        let rows = try CSV.parse(String(contentsOf: report, encoding: .utf8))
        #expect(rows.first == ["line", "short_link", "code", "message"])
        #expect(rows.dropFirst().map { $0[0] } == (3...14).map(String.init))
        #expect(rows.dropFirst().map { $0[1] } == (0..<12).map { "https://example.page.link/bad\($0)" })
        #expect(rows.dropFirst().allSatisfy { $0[2] == "invalid_link" && $0[3].hasSuffix("(from ifl)") })
        let link = try #require(try await fixture.store.link(domain: "go.example.com", slug: "all29"))
        #expect(link.routing.iosFallbackURL == "https://example.com/ios" && link.routing.appStoreID == "555")

        let again = try await FerryProcess.run(arguments)
        #expect(again.stdout.contains("13 rows: 0 created, 1 already there, 12 skipped"), "\(again.stdout)")
        #expect(again.stdout.contains("  … and 7 more (--skipped-report FILE lists every skipped row)"), "\(again.stdout)")
        #expect(try await fixture.store.link(domain: "go.example.com", slug: "all29") == link)
    }
}
#endif
