#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Importing a Firebase Dynamic Links export from the dashboard: the file sent with the form, the import's page while
/// it runs and when it is done, its skipped rows, and what is refused.
@Suite("Dashboard: importing links", .takesTurns)
struct DashboardImportTests {
    static let boundary = "----FerryFormBoundary7MA4YWxkTrZu0gW"

    /// A form as a browser sends it with a file: the session's token, the file, and other fields.
    static func multipart(csrf: String, file: [UInt8]?, fileName: String = "links.csv", fields: [(String, String)] = []) -> ByteBuffer {
        var body: [UInt8] = []
        func add(_ text: String) { body += Array(text.utf8) }
        for (name, value) in [("csrf", csrf)] + fields {
            add("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        if let file {
            add("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\nContent-Type: text/csv\r\n\r\n")
            body += file
            add("\r\n")
        }
        add("--\(boundary)--\r\n")
        return ByteBuffer(bytes: body)
    }

    static func upload(_ client: some TestClientProtocol, cookie: String, body: ByteBuffer) async throws -> TestResponse {
        try await client.execute(uri: "/dashboard/import", method: .post, headers: headers(extra: [
            (.contentType, "multipart/form-data; boundary=\(boundary)"), (.cookie, "ferry_session=\(cookie)"),
            (HTTPField.Name("Origin")!, DashboardTests.origin),
        ]), body: body)
    }

    static func get(_ client: some TestClientProtocol, _ uri: String, cookie: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
    }

    /// An import's page: sent as the import goes, it ends when the import does.
    static func finished(_ client: some TestClientProtocol, _ uri: String, cookie: String) async throws -> String {
        let page = try await get(client, uri, cookie: cookie)
        #expect(page.status == .ok && page.text.contains(#"id="see-links""#) && page.text.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("</html>"), "\(page.text.suffix(300))")
        return page.text
    }

    @Test func anExportIsImportedOnceWithItsSkippedRowsExplained() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let form = try await Self.get(client, "/dashboard/import", cookie: cookie)
            #expect(form.status == .ok && form.text.contains(#"enctype="multipart/form-data""#) && form.text.contains(#"<option value="links.example.com">"#))
            #expect(try await Self.get(client, "/dashboard", cookie: cookie).text.contains(#"href="/dashboard/import" id="import-links""#))

            // A check first: what would be made, nothing made.
            let export = Array(ImportTests.export.utf8)
            let dry = try await Self.upload(client, cookie: cookie, body: Self.multipart(csrf: csrf, file: export, fields: [("domain", "go.example.com"), ("dryRun", "1")]))
            #expect(dry.status == .seeOther)
            let dryPage = try await Self.finished(client, try #require(dry.headers[.location]), cookie: cookie)
            #expect(dryPage.contains("a check only: nothing is made") && dryPage.contains("<strong>2</strong> would be created"), "\(dryPage)")
            #expect(try await fixture.store.link(domain: "go.example.com", slug: "summer") == nil)

            let started = try await Self.upload(client, cookie: cookie, body: Self.multipart(csrf: csrf, file: export, fields: [("domain", "go.example.com")]))
            let location = try #require(started.headers[.location])
            #expect(location.hasPrefix("/dashboard/import/imp_"))
            let page = try await Self.finished(client, location, cookie: cookie)
            for shown in ["links.csv", "<h2 id=\"import-done\">Done</h2>", "<strong>4</strong> rows", "<strong>2</strong> created", "<strong>0</strong> already there",
                          "<strong>2</strong> skipped", "<code>invalid_destination</code>: 1 row(s)", "Line 4:", "<code>invalid_slug</code>", "Line 5:"] {
                #expect(page.contains(shown), "\(shown)")
            }
            let summer = try #require(try await fixture.store.link(domain: "go.example.com", slug: "summer"))
            #expect(summer.social.title == "Summer, at last" && summer.createdAt == ISO8601DateFormatter().date(from: "2023-06-01T10:00:00Z"))
            let skipped = try await Self.get(client, location + "/skipped.csv", cookie: cookie)
            #expect(skipped.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(skipped.text.hasPrefix("line,short_link,code,message\r\n4,https://example.page.link/bad,invalid_destination,"))
            // Each link made is the session's key's in the audit log.
            let made = try await fixture.store.auditEvents(AuditQuery(appID: fixture.app.id, objectType: "link")).filter { $0.action == "created" }
            #expect(made.count == 2 && made.allSatisfy { $0.actor.kind == .key })

            // Again: counted, not made twice.
            let again = try await Self.upload(client, cookie: cookie, body: Self.multipart(csrf: csrf, file: export, fields: [("domain", "go.example.com")]))
            let second = try await Self.finished(client, try #require(again.headers[.location]), cookie: cookie)
            #expect(second.contains("<strong>0</strong> created") && second.contains("<strong>2</strong> already there"))
            #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.count == 2)

            // Another app's session does not see this app's import; an id nobody made is not found either.
            let (otherCookie, _) = try #require(try await DashboardTests.signIn(client, key: fixture.otherSecret))
            #expect(try await Self.get(client, location, cookie: otherCookie).status == .notFound)
            #expect(try await Self.get(client, location + "/skipped.csv", cookie: otherCookie).status == .notFound)
            let gone = try await Self.get(client, "/dashboard/import/imp_nothing", cookie: cookie)
            #expect(gone.status == .notFound && gone.text.contains("remembered for an hour"))
        }
    }

    @Test func aLargeImportShowsItsProgressWhileItRuns() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let rows = 2_000
        let file = "Short link,Deep link\r\n" + (0..<rows).map { "https://example.page.link/bulk-\($0),https://example.com/\($0)\r\n" }.joined()
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let started = try await Self.upload(client, cookie: cookie, body: Self.multipart(csrf: csrf, file: Array(file.utf8), fileName: "exports/all.csv",
                                                                                        fields: [("domain", "links.example.com")]))
            let location = try #require(started.headers[.location])
            // Two thousand links take the store a while. One import at a time per app and environment.
            let busy = try await Self.upload(client, cookie: cookie, body: Self.multipart(csrf: csrf, file: Array(ImportTests.export.utf8)))
            #expect(busy.status == .conflict && busy.text.contains("is running"))
            #expect(try await Self.get(client, "/dashboard/import", cookie: cookie).text.contains(#"id="running-import""#))
            // The page is sent as the import goes: a line with a progress bar each half second while rows are done
            // (the stylesheet shows the latest), then the summary; no timed reload.
            let page = try await Self.finished(client, location, cookie: cookie)
            #expect(page.contains("Importing all.csv…") && !page.contains("http-equiv"))
            let steps = page.matches(of: /<p class="step"><progress max="(\d+)" value="(\d+)" aria-label="Rows imported">/).map { (Int($0.output.1)!, Int($0.output.2)!) }
            #expect(steps.count >= 2, "\(steps)")
            #expect(steps.last.map { $0 == (rows, rows) } == true && steps.map(\.1) == steps.map(\.1).sorted(), "\(steps)")
            #expect(page.contains("\(rows) of \(rows) rows (100%)") && page.contains("<strong>\(rows)</strong> created"))
            // Once done, the page is the summary alone.
            let done = try await Self.finished(client, location, cookie: cookie)
            #expect(done.contains("<strong>\(rows)</strong> created") && !done.contains("<progress") && done.contains("Import of all.csv"))
        }
        #expect(try await fixture.store.link(domain: "links.example.com", slug: "bulk-1999") != nil)
    }

    @Test func theProgressReachesTheBrowserWhileTheImportRuns() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let rows = 3_000
        let file = "Short link,Deep link\r\n" + (0..<rows).map { "https://example.page.link/live-\($0),https://example.com/\($0)\r\n" }.joined()
        try await fixture.application().testLive { client in
            let port = try #require(client.port)
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let started = try await Self.upload(client, cookie: cookie, body: Self.multipart(csrf: csrf, file: Array(file.utf8), fields: [("domain", "go.example.com")]))
            let location = try #require(started.headers[.location])
            // Over a socket, as a browser reads it: the first progress bar comes while links are still being made.
            let connection = try RawHTTPClient.Connection(port: port)
            let request = "GET \(location) HTTP/1.1\r\nHost: go.example.com\r\nCookie: ferry_session=\(cookie)\r\nConnection: close\r\n\r\n"
            _ = try connection.sendWithoutReading(Array(request.utf8), patience: 1_000)
            _ = try await onItsOwnThread { try connection.readUntil(Array("<progress".utf8)) }
            let madeThen = try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: rows, after: nil).links.count
            #expect(madeThen < rows, "the first progress bar came once every link was made")
            // The rest, to the end (what was read is kept: the whole answer).
            let whole = try await onItsOwnThread { try connection.sendAndReadUntilClosed([]) }
            let answer = try RawHTTPClient.parse(whole)
            #expect(answer.status == 200 && answer.header("Transfer-Encoding") == "chunked" && answer.header("X-Accel-Buffering") == "no")
            let page = answer.body.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(page.contains("\(rows) of \(rows) rows (100%)") && page.contains("<h2 id=\"import-done\">Done</h2>") && page.hasSuffix("</html>"),
                    "\(page.suffix(300))")
        }
    }

    @Test func whatIsNotAnExportIsRefusedBeforeAnythingRuns() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            func refused(_ body: ByteBuffer, _ words: String, status: HTTPResponse.Status = .badRequest) async throws {
                let page = try await Self.upload(client, cookie: cookie, body: body)
                #expect(page.status == status && page.text.contains(words), "\(words): \(page.status) \(page.text.prefix(300))")
            }
            try await refused(Self.multipart(csrf: csrf, file: nil), "Choose the CSV file")
            try await refused(Self.multipart(csrf: csrf, file: []), "Choose the CSV file")
            try await refused(Self.multipart(csrf: csrf, file: [0x53, 0x68, 0xFF, 0xFE, 0x0A]), "not UTF-8 text")
            try await refused(Self.multipart(csrf: csrf, file: Array("name,age\r\nAda,36\r\n".utf8)), "The file cannot be imported")
            try await refused(Self.multipart(csrf: csrf, file: Array(ImportTests.export.utf8), fields: [("domain", "elsewhere.example.net")]), "Domain: choose one")
            try await refused(Self.multipart(csrf: "forged", file: Array(ImportTests.export.utf8)), "out of date", status: .forbidden)
            // A body that is not multipart/form-data as it says.
            let broken = try await Self.upload(client, cookie: cookie, body: ByteBuffer(string: "--\(Self.boundary)\r\nno headers end"))
            #expect(broken.status == .badRequest && broken.text.contains("a part of the form has no end to its headers"), "\(broken.text)")
        }
        #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.isEmpty)
    }
}
#endif
