import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

/// Builders for Firebase Dynamic Links exports.
private enum FDL {
    /// The header in Google's wording, the 29 documented fields in order.
    static let header = [
        "Short link", "Deep link (link)", "Android package name (apn)", "Android fallback link (afl)",
        "Android minimum package version code (amv)", "iOS bundle ID (ibi)", "iOS fallback link (ifl)", "iOS custom scheme (ius)",
        "iOS iPad fallback link (ipfl)", "iOS iPad bundle ID (ipbi)", "iOS app store ID (isi)", "iOS minimum version (imv)",
        "Enable forced redirect? (efr)", "Desktop fallback link (ofl)", "Social title (st)", "Social description (sd)",
        "Social image link (si)", "UTM source (utm_source)", "UTM medium (utm_medium)", "UTM campaign (utm_campaign)",
        "UTM term (utm_term)", "UTM content (utm_content)", "iTunes Connect at", "iTunes Connect ct", "iTunes Connect mt",
        "iTunes Connect pt", "Archived?", "Link name", "Creation timestamp",
    ]

    /// The parameter codes, in the same order, to name cells in tests.
    static let codes = [
        "short", "link", "apn", "afl", "amv", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl", "st", "sd", "si",
        "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "at", "ct", "mt", "pt", "archived", "name", "created",
    ]

    /// The usual app settings of a row of this app's export.
    static let appFields = ["apn": "com.acme.android", "ibi": "com.acme.app", "isi": "1234567890", "ius": "acme"]

    /// A quoted-as-needed CSV line (CRLF) of the 29 fields, cells named by code.
    static func line(_ cells: [String: String], withAppFields: Bool = true) -> String {
        let all = withAppFields ? appFields.merging(cells) { $1 } : cells
        precondition(Set(all.keys).isSubset(of: codes), "unknown code in \(all.keys)")
        return codes.map { quote(all[$0] ?? "") }.joined(separator: ",") + "\r\n"
    }

    static func quote(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A whole file: BOM, Google's header, the rows.
    static func file(_ rows: [[String: String]]) -> String {
        "\u{FEFF}" + header.joined(separator: ",") + "\r\n" + rows.map { line($0) }.joined()
    }

    /// The app the links are imported into.
    static func app(
        domains: [String] = ["go.acme.com", "acme.link"],
        ios: IOSSettings = IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.acme.app"], appStoreID: "1234567890", urlScheme: "acme"),
        android: AndroidSettings = AndroidSettings(packageName: "com.acme.android"),
        fallbackURL: String? = "https://acme.com/get-the-app"
    ) -> App {
        App(
            id: "app_fdl", name: "Acme", domains: domains, ios: ios, android: android, fallbackURL: fallbackURL,
            createdAt: Date(timeIntervalSince1970: 1_767_225_600)
        )
    }

    static func rows(_ text: String, app: App = app(), domain: String? = nil) throws -> [FirebaseLinkImport.Row] {
        try FirebaseLinkImport.rows(csv: text, app: app, options: .init(domain: domain))
    }

    /// The single row of a one-row file.
    static func row(_ cells: [String: String], app: App = app(), domain: String? = nil) throws -> FirebaseLinkImport.Row {
        let rows = try rows(file([cells]), app: app, domain: domain)
        try #require(rows.count == 1)
        return rows[0]
    }

    /// The error a file throws, if any.
    static func error(_ text: String, app: App = app(), domain: String? = nil) -> FirebaseLinkImport.ImportError? {
        do {
            _ = try FirebaseLinkImport.rows(csv: text, app: app, options: .init(domain: domain))
            return nil
        } catch {
            return error
        }
    }
}

/// The realistic sample: Google's header, a BOM, CRLF, quoted fields with commas, quotes and a line break.
private let sampleExport: String = {
    var text = "\u{FEFF}" + FDL.header.joined(separator: ",") + "\r\n"
    // Line 2 (two lines: the description holds a line break): every field set.
    text += "https://go.acme.com/summer,https://acme.com/sale?id=42&ref=fdl,com.acme.android,,12,com.acme.app,,acme,,,"
        + "1234567890,1.2,1,https://acme.com/desktop,\"Summer sale, 50% off\",\"Everything must go,\r\n\"\"really\"\"\","
        + "https://acme.com/s.png,newsletter,email,summer,shoes,hero,at1,ct1,8,pt1,false,\"Summer, main link\",2023-05-01T12:34:56.789Z\r\n"
    text += FDL.line(["short": "https://acme.page.link/m9Mm", "link": "https://acme.com/p/1", "created": "1683000000"])  // 4
    text += FDL.line(["short": "https://go.acme.com/nodeep", "st": "No deep link"])                                   // 5
    text += FDL.line(["short": "https://go.acme.com/a/b/c/d/e", "link": "https://acme.com/x"])                      // 6
    text += FDL.line(["short": "https://go.acme.com/" + String(repeating: "x", count: 65), "link": "https://acme.com/x"])  // 7
    text += FDL.line(["short": "https://go.acme.com/api", "link": "https://acme.com/x"])                              // 8
    text += FDL.line(["short": "https://go.acme.com/Summer", "link": "https://acme.com/other"])                       // 9
    text += FDL.line(["short": "https://go.acme.com/old", "link": "https://acme.com/old", "archived": "TRUE"])        // 10
    text += FDL.line(["short": "https://go.acme.com/when", "link": "https://acme.com/when", "created": "last Tuesday"])  // 11
    text += FDL.line(["short": "https://go.acme.com/js", "link": "javascript:alert(document.cookie)"])              // 12
    text += FDL.line(["short": "", "link": "https://acme.com/orphan"])                                                // 13
    text += FDL.line(["short": "https://acme.page.link/M9MM", "link": "https://acme.com/p/2"])                         // 14
    return text
}()

@Suite("FirebaseLinkImport", .takesTurns)
struct FirebaseLinkImportTests {
    typealias Import = FirebaseLinkImport

    // MARK: The sample file

    @Test func sampleFileGivesOneOutcomePerRowWithItsLine() throws {
        let rows = try FDL.rows(sampleExport)
        let summary = rows.map { row in "\(row.line) \(row.skipReason?.code.rawValue ?? "create")" }
        #expect(summary == [
            "2 create", "4 foreign_domain", "5 missing_deep_link", "6 invalid_slug", "7 invalid_slug", "8 reserved_slug",
            "9 duplicate_in_file", "10 create", "11 create", "12 invalid_destination", "13 missing_short_link", "14 foreign_domain",
        ])
        #expect(rows[1].shortLink == "https://acme.page.link/m9Mm")
        #expect(rows.allSatisfy { $0.request != nil || $0.notes.isEmpty }, "a skipped row carries its reason, not notes")
        #expect(rows[10].shortLink == "")
    }

    @Test func aFullRowMapsEveryField() throws {
        let row = try #require(try FDL.rows(sampleExport).first)
        let request = try #require(row.request)
        #expect(request == CreateLinkRequest(
            domain: "go.acme.com", slug: "summer", destination: "https://acme.com/sale?id=42&ref=fdl",
            params: ["fdl_name": "Summer, main link"],
            utm: UTMParameters(source: "newsletter", medium: "email", campaign: "summer", content: "hero", term: "shoes"),
            social: SocialMetadata(title: "Summer sale, 50% off", description: "Everything must go,\r\n\"really\"", imageURL: "https://acme.com/s.png"),
            routing: LinkRouting(
                iosMinimumVersion: "1.2", androidMinimumVersionCode: 12, otherPlatformFallbackURL: "https://acme.com/desktop",
                skipPreviewPage: true,
                appStoreAnalytics: AppStoreAnalytics(affiliateToken: "at1", campaignToken: "ct1", mediaType: "8", providerToken: "pt1")
            )
        ))
        let created = try #require(row.createdAt)
        #expect(abs(created.timeIntervalSince1970 - 1_682_944_496.789) < 0.0005)
        #expect(row.notes == ["the link name is kept as params.fdl_name: Ferry links have no name"])
    }

    @Test func withoutADesktopFallbackTheDeepLinkIsTheDestinationAndNothingIsAdded() throws {
        let row = try FDL.row(["short": "https://go.acme.com/p42", "link": "https://acme.com/p/42"])
        #expect(row.request == CreateLinkRequest(domain: "go.acme.com", slug: "p42", destination: "https://acme.com/p/42"))
        #expect(row.createdAt == nil)
        #expect(row.notes.isEmpty, "a faithful import has no notes: \(row.notes)")
    }

    @Test func aDesktopFallbackEqualToTheDeepLinkChangesNothing() throws {
        let row = try FDL.row(["short": "https://go.acme.com/same", "link": "https://acme.com/p", "ofl": "https://acme.com/p"])
        #expect(row.request == CreateLinkRequest(domain: "go.acme.com", slug: "same", destination: "https://acme.com/p"))
    }

    @Test func anHTTPDeepLinkBehindADesktopFallbackStaysTheDestination() throws {
        let row = try FDL.row(["short": "https://go.acme.com/plain", "link": "http://acme.com/p", "ofl": "https://acme.com/d"])
        let request = try #require(row.request)
        #expect(request.destination == "http://acme.com/p", "the app receives the deep link, as with FDL")
        #expect(request.iosURL == nil && request.androidURL == nil && request.params == nil)
        #expect(request.routing == LinkRouting(otherPlatformFallbackURL: "https://acme.com/d"))
        #expect(row.notes.isEmpty, "\(row.notes)")
    }

    // MARK: Domains

    @Test func aPageLinkDomainIsForeignWithoutADomainOption() throws {
        let row = try FDL.row(["short": "https://acme.page.link/m9Mm", "link": "https://acme.com/p/1"])
        let reason = try #require(row.skipReason)
        #expect(reason.code == .foreignDomain)
        #expect(reason.message.contains("acme.page.link") && reason.message.contains("--domain"))
        #expect(reason.description.hasPrefix("foreign_domain: "))
    }

    @Test func theDomainOptionPutsEveryLinkOnThatDomain() throws {
        let rows = try FDL.rows(sampleExport, domain: "ACME.link")
        let pageLink = rows[1]
        #expect(pageLink.request?.domain == "acme.link")
        #expect(pageLink.request?.slug == "m9mm")
        #expect(pageLink.createdAt == Date(timeIntervalSince1970: 1_683_000_000))
        #expect(rows[0].request?.domain == "acme.link", "hosts of the app's own domains move too")
        // M9MM and m9Mm are one Ferry slug: the second is a duplicate.
        let second = try #require(rows.last?.skipReason)
        #expect(second.code == .duplicateInFile)
        #expect(second.message.contains("line 4") && second.message.contains("case-insensitive"))
        #expect(second.message.contains("'m9Mm'") && second.message.contains("'M9MM'"))
    }

    @Test func aDomainOptionThatIsNotTheAppsIsAnError() {
        #expect(FDL.error(sampleExport, domain: "acme.page.link")?.code == .invalidDomain)
        #expect(FDL.error(sampleExport, domain: "not a domain")?.code == .invalidDomain)
    }

    @Test func aShortLinkHostWithAPortOrOnASubdomainStandsForTheAppsDomain() throws {
        let port = try FDL.row(["short": "https://go.acme.com:443/p", "link": "https://acme.com/p"])
        #expect(port.request?.domain == "go.acme.com")
        let sub = try FDL.row(["short": "https://promo.go.acme.com/p", "link": "https://acme.com/p"])
        #expect(sub.request?.domain == "go.acme.com")
        #expect(sub.notes.contains { $0.contains("subdomain") })
        let lookAlike = try FDL.row(["short": "https://evilgo.acme.com/p", "link": "https://acme.com/p"])
        #expect(lookAlike.skipReason?.code == .foreignDomain)
    }

    @Test(arguments: [
        ("go.acme.com/bare", "bare"), ("HTTPS://GO.ACME.COM/Upper", "upper"), ("https://go.acme.com/trail/", "trail"),
        ("https://go.acme.com/link/prefixed", "prefixed"), ("https://go.acme.com/q?d=1", "q"),
    ])
    func shortLinksAreReadTolerantly(short: String, slug: String) throws {
        let row = try FDL.row(["short": short, "link": "https://acme.com/p"])
        #expect(row.request?.slug == slug, "\(short): \(row.outcome)")
        #expect(row.request?.domain == "go.acme.com")
    }

    @Test func aShortLinkThatIsNotAWebURLIsInvalid() throws {
        for short in ["ftp://go.acme.com/x", "https://user@go.acme.com/x", "https:///x"] {
            let row = try FDL.row(["short": short, "link": "https://acme.com/p"])
            #expect(row.skipReason?.code == .invalidShortLink, "\(short)")
        }
    }

    // MARK: Slugs

    @Test(arguments: [
        ("https://go.acme.com/a/b/c/d/e", Import.SkipReason.Code.invalidSlug, "5 segments"),
        ("https://go.acme.com/" + String(repeating: "x", count: 65), .invalidSlug, "at most 64"),
        ("https://go.acme.com/sale.html", .invalidSlug, "letters a-z"),
        ("https://go.acme.com/caf%C3%A9", .invalidSlug, "letters a-z"),
        ("https://go.acme.com/", .invalidSlug, "no path"),
        ("https://go.acme.com/api", .reservedSlug, "'api' is reserved"),
        ("https://go.acme.com/Dashboard", .reservedSlug, "'dashboard' is reserved"),
        ("https://go.acme.com/link", .reservedSlug, "'link' is reserved"),
    ])
    func badSlugsAreSkippedWithTheReason(short: String, code: Import.SkipReason.Code, words: String) throws {
        let row = try FDL.row(["short": short, "link": "https://acme.com/p"])
        let reason = try #require(row.skipReason)
        #expect(reason.code == code)
        #expect(reason.message.contains(words), "\(reason.message)")
    }

    @Test func aSlugOfExactly64CharactersIsKept() throws {
        let slug = String(repeating: "a", count: 64)
        #expect(try FDL.row(["short": "https://go.acme.com/" + slug, "link": "https://acme.com/p"]).request?.slug == slug)
    }

    // MARK: Duplicates

    @Test func slugsDifferingOnlyInCaseAreOneLink() throws {
        let rows = try FDL.rows(sampleExport)
        let reason = try #require(rows[6].skipReason)
        #expect(reason.code == .duplicateInFile)
        #expect(reason.message == "line 2 already imports https://go.acme.com/summer as https://go.acme.com/summer; "
            + "Ferry slugs are case-insensitive, so 'summer' and 'Summer' are the same slug")
    }

    @Test func theSameShortLinkTwiceKeepsTheFirst() throws {
        let text = FDL.file([
            ["short": "https://go.acme.com/twice", "link": "https://acme.com/1"],
            ["short": "https://go.acme.com/twice", "link": "https://acme.com/2"],
        ])
        let rows = try FDL.rows(text)
        #expect(rows[0].request?.destination == "https://acme.com/1")
        #expect(rows[1].skipReason?.code == .duplicateInFile)
    }

    @Test func twoHostsMovedOntoOneDomainCollide() throws {
        let text = FDL.file([
            ["short": "https://acme.page.link/promo", "link": "https://acme.com/1"],
            ["short": "https://go.acme.com/promo", "link": "https://acme.com/2"],
        ])
        let rows = try FDL.rows(text, domain: "go.acme.com")
        #expect(rows[0].request != nil)
        #expect(rows[1].skipReason?.message.contains("both hosts were put on go.acme.com") == true)
    }

    @Test func aSkippedRowDoesNotClaimItsSlug() throws {
        let text = FDL.file([
            ["short": "https://go.acme.com/retry", "link": "https://acme.com/1", "si": "not a url"],
            ["short": "https://go.acme.com/retry", "link": "https://acme.com/2"],
        ])
        let rows = try FDL.rows(text)
        #expect(rows[0].skipReason?.code == .invalidLink)
        #expect(rows[1].request?.destination == "https://acme.com/2")
    }

    // MARK: Rows refused by Ferry's rules

    @Test func aMissingDeepLinkIsSkipped() throws {
        let rows = try FDL.rows(sampleExport)
        #expect(rows[2].skipReason == Import.SkipReason(.missingDeepLink, "the row has no deep link (link): Ferry needs a destination"))
    }

    @Test func aJavaScriptDeepLinkIsRefused() throws {
        let rows = try FDL.rows(sampleExport)
        let reason = try #require(rows[9].skipReason)
        #expect(reason.code == .invalidDestination)
        #expect(reason.message.contains("javascript:alert") && reason.message.contains("http or https"))
        // Behind a desktop fallback too: the app would receive it.
        let behind = try FDL.row(["short": "https://go.acme.com/js2", "link": "javascript:alert(1)", "ofl": "https://acme.com/"])
        #expect(behind.skipReason?.code == .invalidDestination)
    }

    @Test func aBadDesktopFallbackIsNamedInTheReason() throws {
        let row = try FDL.row(["short": "https://go.acme.com/d", "link": "https://acme.com/p", "ofl": "data:text/html,hi"])
        let reason = try #require(row.skipReason)
        #expect(reason.code == .invalidDestination)
        #expect(reason.message.hasPrefix("the desktop fallback link (ofl) cannot be a destination"))
    }

    @Test(arguments: [
        (["si": "not a url"], "(from si)"),
        (["utm_source": String(repeating: "s", count: 257)], "(from utm_source)"),
        (["st": String(repeating: "t", count: 301)], "(from st)"),
        (["st": "two\nlines"], "control characters"),
    ])
    func otherFieldsRefusedByTheRulesAreInvalidLinks(cells: [String: String], words: String) throws {
        var all = cells
        all["short"] = "https://go.acme.com/r"
        all["link"] = "https://acme.com/p"
        let reason = try #require(try FDL.row(all).skipReason)
        #expect(reason.code == .invalidLink)
        #expect(reason.message.hasPrefix("Ferry refuses the link: "))
        #expect(reason.message.contains(words), "\(reason.message)")
    }

    @Test func aLinkNameTooLongForAParamIsLeftOutNotFatal() throws {
        let row = try FDL.row(["short": "https://go.acme.com/n", "link": "https://acme.com/p", "name": String(repeating: "n", count: 1025)])
        #expect(row.request?.params == nil)
        #expect(row.notes.contains { $0.contains("longer than 1024 characters") })
    }

    // MARK: Archived and timestamps

    @Test func archivedRowsBecomeDisabledLinks() throws {
        let rows = try FDL.rows(sampleExport)
        #expect(rows[7].request?.disabled == true)
        for value in ["true", "TRUE", "1", "yes", "Yes"] {
            #expect(try FDL.row(["short": "https://go.acme.com/a", "link": "https://acme.com/", "archived": value]).request?.disabled == true)
        }
        for value in ["false", "FALSE", "0", "no", ""] {
            #expect(try FDL.row(["short": "https://go.acme.com/a", "link": "https://acme.com/", "archived": value]).request?.disabled == nil)
        }
        let unclear = try FDL.row(["short": "https://go.acme.com/a", "link": "https://acme.com/", "archived": "maybe"])
        #expect(unclear.request?.disabled == nil)
        #expect(unclear.notes.contains { $0.contains("'maybe' is not a boolean") })
    }

    @Test func anUnreadableTimestampLeavesTheCreationTimeToTheImport() throws {
        let row = try FDL.rows(sampleExport)[8]
        #expect(row.request != nil)
        #expect(row.createdAt == nil)
        #expect(row.notes == ["creation timestamp 'last Tuesday' was not understood: the link gets the import time"])
    }

    @Test(arguments: [
        ("2023-05-01T12:34:56Z", 1_682_944_496.0),
        ("2023-05-01T12:34:56.250Z", 1_682_944_496.25),
        ("2023-05-01T12:34:56", 1_682_944_496),
        ("2023-05-01T14:34:56+02:00", 1_682_944_496),
        ("2023-05-01T07:34:56-0500", 1_682_944_496),
        ("2023-05-01 12:34:56", 1_682_944_496),
        ("2023-05-01 12:34:56 UTC", 1_682_944_496),
        ("2023-05-01 12:34", 1_682_944_440),
        ("2023-05-01", 1_682_899_200),
        ("1682944496", 1_682_944_496),
        ("1682944496789", 1_682_944_496.789),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
    ])
    func timestampsAreReadInTheUsualForms(text: String, seconds: Double) throws {
        let date = try #require(Import.timestamp(text), "\(text)")
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005, "\(text)")
    }

    @Test(arguments: [
        "last Tuesday", "2023-13-01", "2023-02-29", "2023-05-01T25:00:00Z", "2023-05-01T12:34:56+2", "2023-05-01T12:34:56 PST",
        "05/01/2023", "2023", "-1682944496", "1e9", "2023-05-01T12:34:56.Z", "4102444800",
    ])
    func unreadableTimestampsAreNil(text: String) {
        #expect(Import.timestamp(text) == nil, "\(text)")
    }

    // MARK: Notes about what does not carry over

    @Test func valuesThatDifferFromTheAppsSettingsAreNoted() throws {
        let row = try FDL.row([
            "short": "https://go.acme.com/x", "link": "https://acme.com/p", "apn": "com.other.android", "ibi": "com.other.app",
            "isi": "999", "ius": "other",
        ])
        #expect(row.request?.routing == LinkRouting(appStoreID: "999"), "the link's own App Store ID is kept on the link")
        #expect(row.notes == [
            "Android package (apn) 'com.other.android' is not the app's ('com.acme.android'): Ferry uses the app's",
            "iOS bundle ID (ibi) 'com.other.app' is not one of the app's bundle IDs (com.acme.app): the app's association file decides which apps open the link",
            "iOS custom scheme (ius) 'other' is not the app's URL scheme ('acme'): Ferry's \"Open in app\" uses the app's",
        ])
    }

    @Test func fallbacksForPhonesWithoutTheAppAreKeptOnTheLink() throws {
        let row = try FDL.row([
            "short": "https://go.acme.com/f", "link": "https://acme.com/p", "ifl": "https://acme.com/ios", "afl": "https://acme.com/android",
            "ipfl": "https://acme.com/ipad",
        ])
        #expect(row.request?.routing == LinkRouting(
            iosFallbackURL: "https://acme.com/ios", ipadFallbackURL: "https://acme.com/ipad", androidFallbackURL: "https://acme.com/android"
        ))
        #expect(row.notes.isEmpty, "visitors land where FDL sent them: \(row.notes)")
    }

    @Test func landingsThatStillDifferAreNoted() throws {
        // An app without store settings sends phones to a web page: noted where FDL sent them to a store…
        let bare = FDL.app(ios: IOSSettings(), android: AndroidSettings(), fallbackURL: nil)
        let stores = try FDL.row(["short": "https://go.acme.com/s", "link": "https://acme.com/p", "ius": "", "isi": ""], app: bare)
        #expect(stores.request?.routing == nil)
        #expect(stores.notes == [
            "iOS bundle ID (ibi) 'com.acme.app' is not one of the app's bundle IDs (it has none): the app's association file decides which apps open the link",
            "iPhones without the app went to the App Store with FDL; Ferry's page leads them to a web page",
            "Android phones without the app went to the Play Store with FDL; Ferry sends them to a web page",
        ])
        // …not where the row's own App Store ID (isi) sends iPhones to the store as FDL did…
        let withISI = try FDL.row(["short": "https://go.acme.com/s", "link": "https://acme.com/p", "ius": "", "apn": ""], app: bare)
        #expect(withISI.request?.routing == LinkRouting(appStoreID: "1234567890", androidFallbackURL: "https://acme.com/p"))
        #expect(withISI.notes == [
            "iOS bundle ID (ibi) 'com.acme.app' is not one of the app's bundle IDs (it has none): the app's association file decides which apps open the link",
        ])
        // …and for iPads with a bundle ID of their own (ipbi) on a row that sends iPhones to a web page.
        let ipad = try FDL.row(["short": "https://go.acme.com/t", "link": "https://acme.com/p", "ibi": "", "ipbi": "com.acme.ipad"])
        #expect(ipad.request?.routing == LinkRouting(iosFallbackURL: "https://acme.com/p", ipadBundleID: "com.acme.ipad"))
        #expect(ipad.notes == ["iPads without the app went to the App Store with FDL; Ferry's page leads them to a web page"])
    }

    @Test func aRowWithoutTheAppSendsPhonesWhereFDLDid() throws {
        // No ibi, no apn: FDL opened the fallback or, without one, the deep link, never a store.
        let plain = try FDL.row(["short": "https://go.acme.com/w", "link": "https://acme.com/p", "apn": "", "ibi": ""])
        #expect(plain.request?.routing == LinkRouting(iosFallbackURL: "https://acme.com/p", androidFallbackURL: "https://acme.com/p"))
        #expect(plain.notes.isEmpty, "\(plain.notes)")
        let fallbacks = try FDL.row([
            "short": "https://go.acme.com/w", "link": "https://acme.com/p", "apn": "", "ibi": "",
            "ifl": "https://acme.com/i", "afl": "https://acme.com/a",
        ])
        #expect(fallbacks.request?.routing == LinkRouting(iosFallbackURL: "https://acme.com/i", androidFallbackURL: "https://acme.com/a"))
        // With the app named, phones go to the store as with FDL: nothing to set.
        #expect(try FDL.row(["short": "https://go.acme.com/w", "link": "https://acme.com/p"]).request?.routing == nil)
        // A file without the ibi and apn columns says nothing of where FDL sent phones: nothing is set, nothing noted.
        let text = "Short link,Deep link (link),Social title (st)\r\nhttps://go.acme.com/w,https://acme.com/p,Hi\r\n"
        let unknown = try #require(try FDL.rows(text).first)
        #expect(unknown.request?.routing == nil)
        #expect(unknown.notes.isEmpty, "\(unknown.notes)")
    }

    @Test func theAppsOwnAppStoreIDSetsNothing() throws {
        for isi in ["1234567890", "id1234567890"] {
            #expect(try FDL.row(["short": "https://go.acme.com/i", "link": "https://acme.com/p", "isi": isi]).request?.routing == nil, "\(isi)")
        }
        let other = try FDL.row(["short": "https://go.acme.com/i", "link": "https://acme.com/p", "isi": "id987"])
        #expect(other.request?.routing == LinkRouting(appStoreID: "987"))
        let noApp = FDL.app(ios: IOSSettings(bundleIDs: ["com.acme.app"]))
        let first = try FDL.row(["short": "https://go.acme.com/i", "link": "https://acme.com/p"], app: noApp)
        #expect(first.request?.routing == LinkRouting(appStoreID: "1234567890"), "an app without an App Store ID takes the row's")
    }

    @Test(arguments: [
        ("1", true), ("true", true), ("TRUE", true), ("yes", true), ("0", nil), ("false", nil), ("", nil),
    ] as [(String, Bool?)])
    func forcedRedirectSkipsThePreviewPage(efr: String, skip: Bool?) throws {
        let row = try FDL.row(["short": "https://go.acme.com/e", "link": "https://acme.com/p", "efr": efr])
        #expect(row.request?.routing?.skipPreviewPage == skip)
        #expect(row.notes.isEmpty)
    }

    @Test func valuesThatAreNotWhatTheColumnHoldsAreNotedNotSkipped() throws {
        let row = try FDL.row(["short": "https://go.acme.com/n", "link": "https://acme.com/p", "amv": "1.2.3", "efr": "maybe"])
        #expect(row.request != nil && row.request?.routing == nil)
        #expect(row.notes == [
            "Android minimum package version code (amv) '1.2.3' is not a whole number: no minimum version is kept",
            "Enable forced redirect (efr) 'maybe' is not a boolean: visitors see Ferry's pages as usual",
        ])
    }

    @Test func quotedValuesAreBoundedAndTheirControlCharactersEscaped() throws {
        let row = try FDL.row([
            "short": "https://go.acme.com/q", "link": "https://acme.com/p", "apn": "com.evil\r\n\u{1B}[2J\u{202E}", "efr": String(repeating: "x", count: 10_000),
        ])
        #expect(row.notes.contains("Android package (apn) 'com.evil\\r\\n\\u{1B}[2J\\u{202E}' is not the app's ('com.acme.android'): Ferry uses the app's"))
        #expect(row.notes.allSatisfy { $0.count < 300 && !$0.unicodeScalars.contains { $0.properties.generalCategory == .control } }, "\(row.notes)")
        #expect(Import.printable("plain, 'text' é") == "plain, 'text' é")
    }

    // MARK: Every column, and hostile values in each

    @Test func everyDocumentedColumnLandsInItsField() throws {
        let cells = [
            "short": "https://go.acme.com/All29", "link": "https://acme.com/deep?x=1", "apn": "com.acme.android",
            "afl": "https://acme.com/android", "amv": "42", "ibi": "com.acme.app", "ifl": "https://acme.com/ios", "ius": "acme",
            "ipfl": "https://acme.com/ipad", "ipbi": "com.acme.ipad", "isi": "555", "imv": "2.4.1", "efr": "1",
            "ofl": "https://acme.com/desktop", "st": "Title", "sd": "Description", "si": "https://acme.com/i.png",
            "utm_source": "src", "utm_medium": "med", "utm_campaign": "camp", "utm_term": "term", "utm_content": "cont",
            "at": "AT1", "ct": "CT1", "mt": "8", "pt": "PT1", "archived": "true", "name": "All columns", "created": "2024-03-01T08:00:00Z",
        ]
        #expect(Set(cells.keys) == Set(FDL.codes), "every one of the 29 columns is set")
        let row = try FDL.row(cells)
        #expect(row.request == CreateLinkRequest(
            domain: "go.acme.com", slug: "all29", destination: "https://acme.com/deep?x=1", params: ["fdl_name": "All columns"],
            utm: UTMParameters(source: "src", medium: "med", campaign: "camp", content: "cont", term: "term"),
            social: SocialMetadata(title: "Title", description: "Description", imageURL: "https://acme.com/i.png"), disabled: true,
            routing: LinkRouting(
                iosFallbackURL: "https://acme.com/ios", ipadFallbackURL: "https://acme.com/ipad", ipadBundleID: "com.acme.ipad",
                appStoreID: "555", iosMinimumVersion: "2.4.1", androidFallbackURL: "https://acme.com/android",
                androidMinimumVersionCode: 42, otherPlatformFallbackURL: "https://acme.com/desktop", skipPreviewPage: true,
                appStoreAnalytics: AppStoreAnalytics(affiliateToken: "AT1", campaignToken: "CT1", mediaType: "8", providerToken: "PT1")
            )
        ))
        #expect(row.createdAt == Date(timeIntervalSince1970: 1_709_280_000))
        #expect(row.notes == ["the link name is kept as params.fdl_name: Ferry links have no name"])
    }

    /// Values an export should never hold, in any column.
    static let hostileValues = [
        "<script>alert(1)</script>", "javascript:alert(document.cookie)", "https://acme.com/a\r\nSet-Cookie: x=1",
        "data:text/html,<script>alert(1)</script>", "ftp://acme.com/file", "\u{1B}[2J\u{202E}txt",
        "https://acme.com/" + String(repeating: "x", count: 10_000), String(repeating: "\u{1F600}", count: 2_500),
    ]

    @Test(arguments: FDL.codes)
    func hostileValuesAreSkipsOrNotesNamingTheColumn(code: String) throws {
        let column = try #require(Import.Column(rawValue: FDL.codes.firstIndex(of: code) ?? -1))
        let base = ["short": "https://go.acme.com/h", "link": "https://acme.com/p"]
        for value in Self.hostileValues {
            let row = try FDL.row(base.merging([code: value]) { $1 })
            let shown = "\(code) = \(value.prefix(40).debugDescription)"
            if let reason = row.skipReason {
                let names = column == .shortLink
                    ? [.invalidShortLink, .invalidSlug, .reservedSlug, .foreignDomain].contains(reason.code)
                    : reason.message.contains("(from \(column.code))") || reason.message.contains(column == .deepLink ? "deep link" : "(\(column.code))")
                #expect(names, "the reason names the column: \(shown): \(reason.message)")
                #expect(reason.message.count < 600, "\(shown)")
                #expect(!reason.message.unicodeScalars.contains(where: Import.isUnprintable), "\(shown): \(reason.message.debugDescription)")
                continue
            }
            let request = try #require(row.request, "\(shown)")
            // Whatever is created passes the API's rules, so nothing the API would refuse is stored…
            let context = LinkRules.Context(app: FDL.app(), environment: .live, id: "lnk_h", generatedSlug: "zzzzzzz", now: Date())
            _ = try LinkRules.makeLink(from: request, context: context)
            // …and the value is either kept as it is, as text, or noted with its column named.
            let kept = Self.strings(of: request).contains(value)
            let noted = row.notes.contains { $0.localizedCaseInsensitiveContains(column.code) || $0.localizedCaseInsensitiveContains(column.label) }
            #expect(kept || noted, "\(shown): kept nowhere and not noted: \(row.notes)")
            #expect(row.notes.allSatisfy { $0.count < 600 && !$0.unicodeScalars.contains(where: Import.isUnprintable) }, "\(shown): \(row.notes)")
        }
    }

    /// Every text a request carries.
    static func strings(of request: CreateLinkRequest) -> [String] {
        let routing = request.routing ?? LinkRouting()
        let analytics = routing.appStoreAnalytics ?? AppStoreAnalytics()
        let utm = request.utm ?? UTMParameters()
        let social = request.social ?? SocialMetadata()
        let optional: [String?] = [
            request.destination, request.iosURL, request.androidURL, request.campaign, request.referrer,
            utm.source, utm.medium, utm.campaign, utm.content, utm.term, social.title, social.description, social.imageURL,
            routing.iosFallbackURL, routing.ipadFallbackURL, routing.ipadBundleID, routing.appStoreID, routing.iosMinimumVersion,
            routing.androidFallbackURL, routing.otherPlatformFallbackURL,
            analytics.affiliateToken, analytics.campaignToken, analytics.mediaType, analytics.providerToken,
        ]
        return optional.compactMap { $0 } + (request.params ?? [:]).values
    }

    // MARK: File shapes

    @Test func aHeaderlessFileUsesTheDocumentedOrder() throws {
        let text = FDL.line(["short": "https://go.acme.com/h1", "link": "https://acme.com/1", "utm_source": "mail", "archived": "1"])
            + FDL.line(["short": "https://go.acme.com/h2", "link": "https://acme.com/2"])
        let rows = try FDL.rows(text)
        #expect(rows.map(\.line) == [1, 2])
        #expect(rows[0].request == CreateLinkRequest(
            domain: "go.acme.com", slug: "h1", destination: "https://acme.com/1", utm: UTMParameters(source: "mail"), disabled: true
        ))
        #expect(rows[1].request?.slug == "h2")
    }

    @Test func unknownExtraColumnsAndOtherHeaderSpellingsAreTolerated() throws {
        let text = "Team,created,LINK,st,short_link,Notes,utm_source,archived\n"
            + "growth,2023-05-01,https://acme.com/e,\"Hello, world\",https://go.acme.com/extra,\"a, b\",ads,no\n"
            + "growth,,https://acme.com/f,,https://go.acme.com/short\n"
        let rows = try FDL.rows(text)
        #expect(rows.count == 2)
        #expect(rows[0].request == CreateLinkRequest(
            domain: "go.acme.com", slug: "extra", destination: "https://acme.com/e", utm: UTMParameters(source: "ads"),
            social: SocialMetadata(title: "Hello, world")
        ))
        #expect(rows[0].createdAt == Date(timeIntervalSince1970: 1_682_899_200))
        #expect(rows[1].request?.slug == "short", "a short row has empty cells at its end")
    }

    @Test func headersAreRecognisedByWordsOrCode() {
        typealias Column = Import.Column
        #expect(Column(header: "Deep link (link)") == .deepLink)
        #expect(Column(header: "deeplink") == .deepLink)
        #expect(Column(header: "link") == .deepLink)
        #expect(Column(header: "Short Dynamic Link") == .shortLink)
        #expect(Column(header: "Enable forced redirect? (efr)") == .efr)
        #expect(Column(header: "UTM campaign (utm_campaign)") == .utmCampaign)
        #expect(Column(header: "Archived?") == .archived)
        #expect(Column(header: "Link name") == .name)
        #expect(Column(header: " Creation Timestamp ") == .created)
        #expect(Column(header: "Something (ofl)") == .ofl)
        #expect(Column(header: "Team") == nil)
        #expect(Column(header: "") == nil)
        // Every spelling names one column.
        let aliases = Column.allCases.flatMap(\.aliases)
        #expect(Set(aliases).count == aliases.count)
        #expect(FDL.header.compactMap(Column.init(header:)) == Column.allCases)
    }

    @Test func brokenCSVIsAnErrorWithItsLine() {
        let text = FDL.file([["short": "https://go.acme.com/ok", "link": "https://acme.com/"]])
            + "https://go.acme.com/broken,\"https://acme.com/unclosed\r\n"
            + FDL.line(["short": "https://go.acme.com/after", "link": "https://acme.com/"])
        let error = FDL.error(text)
        #expect(error?.code == .invalidCSV)
        #expect(error?.line == 3)
        #expect(error?.message.contains("line 3") == true)
    }

    @Test func aFileWithoutUsableColumnsIsAnError() {
        let unknown = FDL.error("name,url\nx,https://go.acme.com/x\n")
        #expect(unknown?.code == .unrecognisedHeader)
        #expect(unknown?.line == 1)
        let noDeepLink = FDL.error("Short link,Social title (st),UTM source (utm_source)\nhttps://go.acme.com/x,T,s\n")
        #expect(noDeepLink?.code == .missingColumn)
        #expect(noDeepLink?.message.contains("'Deep link (link)'") == true)
    }

    @Test func emptyFilesAndBlankRowsGiveNoRows() throws {
        #expect(try FDL.rows("").isEmpty)
        #expect(try FDL.rows("\u{FEFF}").isEmpty)
        #expect(try FDL.rows(FDL.file([])).isEmpty)
        let text = FDL.file([["short": "https://go.acme.com/one", "link": "https://acme.com/"]])
            + String(repeating: ",", count: 28) + "\r\n" + " , ,\r\n"
        #expect(try FDL.rows(text).map(\.line) == [2])
    }

    @Test func importingIsDeterministic() throws {
        let first = try FDL.rows(sampleExport, domain: "go.acme.com")
        let second = try FDL.rows(sampleExport, domain: "go.acme.com")
        #expect(first == second)
        #expect(first.count == 12)
    }

    @Test func everyCreatedRequestPassesTheAPIsRules() throws {
        let app = FDL.app()
        for row in try FDL.rows(sampleExport, domain: "go.acme.com") {
            guard let request = row.request else { continue }
            let context = LinkRules.Context(app: app, environment: .test, id: "lnk_x", generatedSlug: "zzzzzzz", now: Date())
            let link = try LinkRules.makeLink(from: request, context: context)
            #expect(link.slug == request.slug)
        }
    }
}

/// Short links of several segments, and short links on a domain with a path prefix.
@Suite("Firebase Dynamic Links import: paths", .takesTurns)
struct FirebaseLinkImportPathTests {
    @Test(arguments: [
        ("https://go.acme.com/promo/spring-26", "promo/spring-26"), ("https://go.acme.com/Promo/Spring-26/", "promo/spring-26"),
        ("https://go.acme.com/link/promo/spring-26", "promo/spring-26"), ("https://go.acme.com/a/b/c/d", "a/b/c/d"),
        ("https://go.acme.com/x/api", "x/api"),
    ])
    func shortLinksOfSeveralSegmentsAreImported(short: String, slug: String) throws {
        let row = try FDL.row(["short": short, "link": "https://acme.com/p"])
        #expect(row.request?.slug == slug, "\(short): \(row.outcome)")
        #expect(row.request?.domain == "go.acme.com")
    }

    @Test func aReservedFirstSegmentIsSkipped() throws {
        let reason = try #require(try FDL.row(["short": "https://go.acme.com/api/promo", "link": "https://acme.com/p"]).skipReason)
        #expect(reason.code == .reservedSlug)
        #expect(reason.message.contains("first segment 'api' is reserved"), "\(reason.message)")
    }

    @Test func onADomainWithAPrefixTheSlugIsThePathUnderIt() throws {
        var app = FDL.app(domains: ["go.acme.com", "acme.com"])
        app.pathPrefixes = ["acme.com": "/links"]
        func row(_ short: String) throws -> FirebaseLinkImport.Row { try FDL.row(["short": short, "link": "https://acme.com/p"], app: app) }
        #expect(try row("https://acme.com/links/summer").request?.slug == "summer")
        #expect(try row("https://acme.com/Links/Promo/Spring-26").request?.slug == "promo/spring-26")
        #expect(try row("https://acme.com/links/link/summer").request?.slug == "summer")
        #expect(try row("https://acme.com/links/summer").request?.domain == "acme.com")
        for short in ["https://acme.com/summer", "https://acme.com/linkssummer", "https://acme.com/other/links/summer"] {
            let reason = try #require(try row(short).skipReason, "\(short)")
            #expect(reason.code == .outsidePathPrefix, "\(short)")
            #expect(reason.message.contains("outside the path prefix '/links'"), "\(reason.message)")
        }
        let root = try #require(try row("https://acme.com/links/").skipReason)
        #expect(root.code == .invalidSlug)
        // The domain without a prefix is read as before.
        #expect(try row("https://go.acme.com/links/summer").skipReason?.code == .reservedSlug)
        #expect(try row("https://go.acme.com/summer").request?.slug == "summer")
    }

    @Test func aDuplicateNamesTheShortURLWithThePrefix() throws {
        var app = FDL.app(domains: ["acme.com"])
        app.pathPrefixes = ["acme.com": "/links"]
        let text = FDL.file([
            ["short": "https://acme.com/links/Promo/X", "link": "https://acme.com/1"],
            ["short": "https://acme.com/links/promo/x", "link": "https://acme.com/2"],
        ])
        let rows = try FDL.rows(text, app: app)
        let reason = try #require(rows[1].skipReason)
        #expect(reason.code == .duplicateInFile)
        #expect(reason.message == "line 2 already imports https://acme.com/links/Promo/X as https://acme.com/links/promo/x; "
            + "Ferry slugs are case-insensitive, so 'Promo/X' and 'promo/x' are the same slug")
    }

    @Test func withATargetDomainAForeignHostHasNoPrefix() throws {
        var app = FDL.app(domains: ["acme.com"])
        app.pathPrefixes = ["acme.com": "/links"]
        let row = try FDL.row(["short": "https://acme.page.link/promo/x", "link": "https://acme.com/p"], app: app, domain: "acme.com")
        #expect(row.request?.slug == "promo/x")
        #expect(row.request?.domain == "acme.com")
    }
}
