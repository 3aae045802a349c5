#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The driver itself, against static pages from a small in-process server.
@Suite("Headless Chromium driver", .takesTurns)
struct HeadlessChromiumTests {
    static let installed = HeadlessChromium.executable != nil
    static let onCI = !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty

    static let formPages = [
        "index.html": """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>Form</title></head>
            <body>
              <form action="result.html" method="get">
                <label>Name <input id="name" name="name"></label>
                <button id="send" type="submit">Send</button>
              </form>
              <script>document.cookie = "theme=dark; SameSite=Lax; path=/";</script>
            </body></html>
            """,
        "result.html": """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>Result</title></head>
            <body style="margin: 0">
              <p id="greeting"></p>
              <div style="height: 2400px; background: linear-gradient(#fff, #36c)"></div>
              <script>
                document.getElementById("greeting").textContent = "Hello, " + new URLSearchParams(location.search).get("name") + "!";
              </script>
            </body></html>
            """,
    ]

    @Test(.enabled(if: installed, "needs chromium-headless-shell"))
    func fillsAFormSubmitsItAndReadsTheNextPage() async throws {
        try await withPage(Self.formPages) { page, base in
            try await page.goto(base + "/index.html")
            try await page.fill("#name", "Ada & Grace")
            try await page.clickAndWaitForNavigation("#send")

            #expect(try await page.text("#greeting") == "Hello, Ada & Grace!")
            #expect(try await page.url() == base + "/result.html?name=Ada+%26+Grace")

            let cookie = try #require(try await page.cookies().first { $0.name == "theme" })
            #expect(cookie.value == "dark" && !cookie.httpOnly && cookie.sameSite == "Lax")

            let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-shot-\(UUID().uuidString).png").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try await page.screenshot(to: path)
            let png = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            #expect(png.count > 1024)
            let height = png.count > 24 ? png[20..<24].reduce(0) { $0 << 8 | Int($1) } : 0
            #expect(height > 2400, "the screenshot covers the whole page, not just the 900-pixel window")

            #expect(page.consoleErrors() == [])
        }
    }

    @Test(.enabled(if: installed, "needs chromium-headless-shell"))
    func reportsUncaughtErrorsConsoleErrorsAndPolicyViolations() async throws {
        let pages = [
            "broken.html": """
                <!doctype html><html><body><p>Broken</p>
                <script>console.error("first", 42); notAFunction();</script>
                </body></html>
                """,
            "strict.html": """
                <!doctype html><html><head>
                <meta http-equiv="Content-Security-Policy" content="script-src 'self'">
                </head><body><script>document.title = "inline ran";</script></body></html>
                """,
        ]
        try await withPage(pages) { page, base in
            try await page.goto(base + "/broken.html")
            let errors = page.consoleErrors()
            #expect(errors.count == 2)
            #expect(errors.first == "console.error: first 42")
            #expect(errors.last?.hasPrefix("Uncaught ReferenceError: notAFunction is not defined") == true)

            try await page.goto(base + "/strict.html")
            #expect(page.consoleErrors().count == 3)
            #expect(page.consoleErrors().last?.contains("Content Security Policy") == true)
            #expect(try await page.evaluate("document.title") == "")
        }
    }

    @Test(.enabled(if: installed, "needs chromium-headless-shell"))
    func evaluatesWaitsAndFailsWithClearMessages() async throws {
        let pages = [
            "later.html": """
                <!doctype html><html><body>
                <script>setTimeout(() => document.body.insertAdjacentHTML("beforeend", '<p id="late">here</p>'), 300);</script>
                </body></html>
                """,
        ]
        try await withPage(pages) { page, base in
            try await page.goto(base + "/later.html")
            #expect(try await page.evaluate("1 + 1") == "2")
            #expect(try await page.evaluate("'text'") == "text")
            #expect(try await page.evaluate("({b: [true, null], a: 1.5})") == #"{"a":1.5,"b":[true,null]}"#)
            #expect(try await page.evaluate("undefined") == nil)
            #expect(try await page.evaluate("new Promise(resolve => setTimeout(() => resolve('later'), 10))") == "later")

            let thrown = await #expect(throws: BrowserError.self) { try await page.evaluate("throw new TypeError('nope')") }
            #expect(thrown?.description.contains("TypeError: nope") == true)
            let missing = await #expect(throws: BrowserError.self) { try await page.fill("#absent", "x") }
            #expect(missing?.description == "fill: no element matches #absent")
            await #expect(throws: BrowserError.self) { try await page.click("#absent") }
            await #expect(throws: BrowserError.self) { try await page.text("#absent") }

            try await page.goto(base + "/later.html#part")  // same document: no load event to wait for
            #expect(try await page.url() == base + "/later.html#part")

            try await page.waitFor("#late", timeout: .seconds(5))
            #expect(try await page.text("#late") == "here")
            let timedOut = await #expect(throws: BrowserError.self) { try await page.waitFor("#never", timeout: .milliseconds(200)) }
            #expect(timedOut?.description.contains("#never") == true)

            let nobody = "http://127.0.0.1:\(try Self.unusedPort())/"
            let refused = await #expect(throws: BrowserError.self) { try await page.goto(nobody) }
            #expect(refused?.description == "could not load \(nobody): net::ERR_CONNECTION_REFUSED")
            #expect(page.consoleErrors() == [])
        }
    }

    @Test(.enabled(if: installed, "needs chromium-headless-shell"))
    func aClosedBrowserFailsItsPagesAndLeavesNothingBehind() async throws {
        let browser = try await HeadlessChromium.launch()
        let page = try await browser.newPage()
        #expect(try await page.evaluate("navigator.userAgent")?.contains("HeadlessChrome") == true)
        await browser.close()
        await browser.close()
        let error = await #expect(throws: BrowserError.self) { try await page.evaluate("1") }
        #expect(error?.description == "the browser was closed")
    }

    @Test(.enabled(if: onCI, "only on CI, where Chromium is required"))
    func chromiumIsInstalledOnCI() {
        #expect(Self.installed, "install chromium-headless-shell")
    }

    /// A loopback port nothing listens on (a moment ago the kernel handed it out and it was closed again).
    static func unusedPort() throws -> Int {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { throw BrowserError("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let found = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard found else { throw BrowserError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Serves `files` from an in-process server on a free loopback port, opens a page in a fresh browser and runs
    /// `body` with it and the server's base URL; the browser and the server are stopped whatever happens.
    func withPage(_ files: [String: String], _ body: @Sendable (BrowserPage, String) async throws -> Void) async throws {
        let router = Router()
        router.get("/:name") { _, context -> Response in
            guard let text = files[context.parameters.get("name") ?? ""] else { return Response(status: .notFound) }
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let site = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await site.test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let browser = try await HeadlessChromium.launch()
            do {
                try await body(try await browser.newPage(), base)
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
    }
}
#endif
