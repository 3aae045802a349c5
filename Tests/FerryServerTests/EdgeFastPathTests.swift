#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Clicks on links in memory are answered on the connection's event loop (`EdgeFastPath`); everything else by the
/// router. These tests send raw HTTP over real sockets and hold both paths to the same answers.
@Suite("The edge's fast path", .takesTurns)
struct EdgeFastPathTests {
    /// Requests in one write, read until the server closes (the last request says `Connection: close`).
    /// A server that answers nothing fails after `receiveTimeout` seconds; the default leaves room for a machine the
    /// whole suite keeps busy.
    static func exchange(port: Int, _ requests: [String], pieces: Int? = nil, receiveTimeout: Int = 30) async throws -> [RawHTTPClient.Response] {
        let bytes = Array(requests.joined().utf8)
        let raw = try await onItsOwnThread { try RawHTTPClient.exchange(port: port, bytes: bytes, pieces: pieces, receiveTimeout: receiveTimeout) }
        return try RawHTTPClient.parseAll(raw, bodiless: Set(requests.indices.filter { requests[$0].hasPrefix("HEAD ") }))
    }

    /// Clicks answered by the fast path so far, from `/metrics`.
    static func fastAnswers(port: Int) async throws -> Int {
        let metrics = try await onItsOwnThread { try RawHTTPClient.request(port: port, path: "/metrics") }
        let line = metrics.body.split(separator: "\n").first { $0.hasPrefix("ferry_edge_fast_answers_total ") }
        return try #require(line.flatMap { Int($0.split(separator: " ")[1]) })
    }

    static func get(_ path: String, userAgent: String = UA.desktop, close: Bool = false, version: String = "HTTP/1.1",
                    extra: String = "") -> String {
        // A scraper reads the metrics from this machine, not through the proxy the clicks come through.
        let forwarded = path == "/metrics" ? "" : "X-Forwarded-For: 203.0.113.9\r\n"
        return "GET \(path) \(version)\r\nHost: go.example.com\r\nUser-Agent: \(userAgent)\r\n\(forwarded)"
            + extra + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    /// A live server with the link `/home` (to https://example.com/home) already in its cache; `body` gets its port.
    static func withHomeLinkCached(_ body: @Sendable @escaping (Int) async throws -> Void) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            _ = try await exchange(port: port, [get("/home", close: true)])
            try await body(port)
        }
    }

    /// Status, headers but the date, and body, with click ids masked: what both paths must agree on.
    static func shape(_ response: RawHTTPClient.Response) -> String {
        let headers = response.headers.filter { $0.0.lowercased() != "date" }
            .map { "\($0.0.lowercased()): \($0.1)" }.sorted().joined(separator: "\n")
        return "\(response.status)\n\(headers)\n\n\(response.body)".replacing(/clk_[0-9A-Za-z]+/, with: "clk_…")
    }

    @Test func aCachedLinkIsAnsweredWithExactlyWhatTheRouterAnswers() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(
            CreateLinkRequest(slug: "sale", destination: "https://example.com/sale", utm: UTMParameters(source: "news")),
            app: fixture.app, environment: .live)
        _ = try await fixture.admin.createLink(
            CreateLinkRequest(slug: "gone", destination: "https://example.com/gone", disabled: true), app: fixture.app, environment: .live)
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            for (path, agent) in [("/sale?x=1", UA.desktop), ("/link/sale", UA.android), ("/SALE", UA.slackBot), ("/sale", UA.iPhoneSafari),
                                  ("/gone", UA.desktop),
                                  ("/nothing-here", UA.desktop)] {
                // `Connection: close` always goes to the router; the first request also fills the cache.
                let routed = try await Self.exchange(port: port, [Self.get(path, userAgent: agent, close: true)])
                let both = try await Self.exchange(port: port, [Self.get(path, userAgent: agent), Self.get(path, userAgent: agent, close: true)])
                #expect(routed.count == 1 && both.count == 2)
                let fast = both[0], router = both[1]
                #expect(Self.shape(fast) == Self.shape(router), "\(path)")
                #expect(Self.shape(fast) == Self.shape(routed[0]), "\(path)")
                #expect(fast.header("Date")?.hasSuffix(" GMT") == true)
                #expect(fast.header("Server") == "Ferry")
            }
            // Clicks answered by either path are recorded: three for each request to the active link.
            let sale = try #require(try await fixture.store.link(domain: "go.example.com", slug: "sale"))
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: sale.id) == 12 })
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrderWhicheverPathAnswersThem() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        for index in 0..<6 {
            _ = try await fixture.admin.createLink(
                CreateLinkRequest(slug: "p\(index)", destination: "https://example.com/\(index)"), app: fixture.app, environment: .live)
        }
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            // Cache p0, p2 and p4; p1, p3 and p5 are read from the database, slower.
            _ = try await Self.exchange(port: port, [Self.get("/p0"), Self.get("/p2"), Self.get("/p4", close: true)])
            var requests = (0..<6).map { Self.get("/p\($0)") }
            requests.insert("GET /healthz HTTP/1.1\r\nHost: go.example.com\r\n\r\n", at: 3)
            requests.append(Self.get("/p0", close: true))
            let answers = try await Self.exchange(port: port, requests)
            #expect(answers.map(\.status) == [302, 302, 302, 200, 302, 302, 302, 302])
            let locations = answers.map { $0.header("Location") ?? $0.body }
            #expect(locations == ["https://example.com/0", "https://example.com/1", "https://example.com/2", #"{"status":"ok"}"#,
                                  "https://example.com/3", "https://example.com/4", "https://example.com/5", "https://example.com/0"])
        }
    }

    @Test func requestsTheRouterMustSeeAreHandedOn() async throws {
        try await Self.withHomeLinkCached { port in
            // HTTP/1.0 without keep-alive: one answer, then the server closes (the exchange fails if it does not).
            let old = try await Self.exchange(port: port, [Self.get("/home", version: "HTTP/1.0")])
            #expect(old.map(\.status) == [302])
            // HEAD: the headers of a GET, no body, and no click.
            let head = try await Self.exchange(port: port, ["HEAD /home HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n"])
            #expect(head.first?.status == 302 && head.first?.header("Location") == "https://example.com/home")
            // Reserved words and other routes keep their own answers.
            let routes = try await Self.exchange(port: port, [
                Self.get("/healthz"), Self.get("/.well-known/apple-app-site-association"), Self.get("/v1/links"),
                Self.get("/metrics"), Self.get("/home", close: true),
            ])
            #expect(routes.map(\.status) == [200, 200, 401, 200, 302])
            // Apple's file at the root looks like a slug, and stays the file once the host is known (not a link that
            // the fast path read and found missing).
            let association = try await Self.exchange(port: port, [
                Self.get("/apple-app-site-association"), Self.get("/apple-app-site-association"), Self.get("/apple-app-site-association", close: true),
            ])
            #expect(association.map(\.status) == [200, 200, 200])
            #expect(association.allSatisfy { $0.header("Content-Type") == "application/json" })
            // Two Host headers: the router refuses the request (see HostileInputTests).
            let twoHosts = try await Self.exchange(port: port, [
                "GET /home HTTP/1.1\r\nHost: other.test\r\nHost: go.example.com\r\nConnection: close\r\n\r\n",
            ])
            #expect(twoHosts.map(\.status) == [400])
            // A GET with a body is answered once the body has been read; the connection goes on.
            let withBody = try await Self.exchange(port: port, [
                "GET /home HTTP/1.1\r\nHost: go.example.com\r\nContent-Length: 5\r\n\r\nhello", Self.get("/home", close: true),
            ])
            #expect(withBody.map(\.status) == [302, 302])
            // The answers from memory go through the same HTTP encoder as the router's, which pairs each answer with
            // its request's method: a HEAD's answer (a page with a body on GET) must come without that body, or the
            // answer after it would be read as part of it.
            let headOfPage = "HEAD /no/such/page HTTP/1.1\r\nHost: go.example.com\r\n\r\n"
            let page = "GET /no/such/page HTTP/1.1\r\nHost: go.example.com\r\n\r\n"
            let mixed = try await Self.exchange(port: port, [Self.get("/home"), Self.get("/home"), headOfPage, Self.get("/home"), page, Self.get("/home", close: true)])
            #expect(mixed.map(\.status) == [302, 302, 404, 302, 404, 302])
            #expect(mixed[2].body.isEmpty)
            #expect(!mixed[4].body.isEmpty, "the same page on GET has a body")
            #expect(mixed[5].header("Location") == "https://example.com/home")
        }
    }

    @Test func aHeadSplitOverManyWritesIsAnsweredFromMemoryAndTheFrameworkTakesTurnsWithIt() async throws {
        try await Self.withHomeLinkCached { port in
            var before = try await Self.fastAnswers(port: port)
            // Seven bytes at a time, a few milliseconds apart: the head is put together before it is read.
            let slow = try await Self.exchange(port: port, [Self.get("/home?x=1"), Self.get("/home", close: true)], pieces: 7)
            #expect(slow.map(\.status) == [302, 302])
            #expect(slow[0].header("Location") == "https://example.com/home?x=1")
            #expect(try await Self.fastAnswers(port: port) == before + 1, "the first from memory, the one that closes by the framework")

            // A request with a body goes to the framework, with its body; once it is answered, clicks are answered
            // from memory again; a HEAD goes to the framework too; answers leave in order.
            before = try await Self.fastAnswers(port: port)
            let body = #"{"destination":"https://example.com/x"}"#
            let post = "POST /v1/links HTTP/1.1\r\nHost: go.example.com\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            let head = "HEAD /home HTTP/1.1\r\nHost: go.example.com\r\n\r\n"
            let mixed = try await Self.exchange(port: port, [Self.get("/home"), post, Self.get("/home"), head, Self.get("/home"), Self.get("/home", close: true)])
            #expect(mixed.map(\.status) == [302, 401, 302, 302, 302, 302])
            #expect(mixed[1].body.contains("unauthorized"), "the framework's own answer to the request with a body")
            let fast = try await Self.fastAnswers(port: port) - before
            // The first click for sure; the ones after the POST and the HEAD once the framework has answered them
            // (all at once in one write, they may still be waiting for it: then the framework answers them).
            #expect(fast >= 1 && fast <= 3)
        }
    }

    @Test func bytesTheScannerDoesNotReadLeaveTheConnectionToTheFramework() async throws {
        try await Self.withHomeLinkCached { port in
            let before = try await Self.fastAnswers(port: port)
            // Chunked framing on a GET: the decoder reads it (and what follows), never the fast path.
            let chunked = "GET /home HTTP/1.1\r\nHost: go.example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            let answers = try await Self.exchange(port: port, [chunked, Self.get("/home"), Self.get("/home", close: true)])
            #expect(answers.map(\.status) == [302, 302, 302])
            // A folded field: whatever the decoder makes of it, no click on that connection is answered here.
            _ = try? await Self.exchange(port: port, ["GET /home HTTP/1.1\r\nHost: go.example.com\r\nX-A: b\r\n c\r\n\r\n", Self.get("/home", close: true)])
            #expect(try await Self.fastAnswers(port: port) == before)
        }
    }

    @Test func aClientThatPipelinesWithoutReadingIsNoLongerReadAndIsAnsweredInFullOnceItReads() async throws {
        try await Self.withHomeLinkCached { port in
            let before = try await Self.fastAnswers(port: port)
            // 100,000 clicks in one stream (25 MiB), each answered with a redirect of about 300 bytes (29 MiB in all);
            // the last one closes the connection.
            let count = 100_000
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count * 260)
            for index in 0..<count {
                bytes += Array(("GET /home?n=\(index) HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: \(UA.desktop)\r\n"
                    + "Accept-Language: en-US,en;q=0.9\r\nX-Forwarded-For: 203.0.113.9\r\n"
                    + (index == count - 1 ? "Connection: close\r\n" : "") + "\r\n").utf8)
            }
            // The client's receive buffer is small, so that the answers pile up on the server's side.
            let connection = try RawHTTPClient.Connection(port: port, receiveBuffer: 16 * 1024, sendBuffer: 64 * 1024)
            let request = bytes
            let sent = try await onItsOwnThread { try connection.sendWithoutReading(request, patience: 2000) }
            let answeredUnread = try await Self.fastAnswers(port: port) - before
            // The server stopped reading: the client could not send everything (what it sent is the answered
            // requests, what the server holds of one read, and what the kernel buffers on the way).
            #expect(sent < bytes.count, "the server read all \(bytes.count) bytes of a client that reads nothing")
            // It answered what the channel's high-water mark (64 KiB) and the kernel's buffers hold, at most the
            // largest send buffer (`net.ipv4.tcp_wmem`, 4 MiB by default: about 14,000 of these answers), and then
            // answered nothing more, instead of every request it could read.
            #expect(answeredUnread < count / 2, "\(answeredUnread) answers written for a client that reads nothing")

            // Once the client reads, the server goes on: every request answered, in order.
            let raw = try await onItsOwnThread { try connection.sendAndReadUntilClosed(request[sent...]) }
            let locations = String(decoding: raw, as: UTF8.self).split(separator: "\r\n").filter { $0.hasPrefix("Location: ") }
            #expect(locations.count == count)
            #expect(locations.elementsEqual((0..<count).map { "Location: https://example.com/home?n=\($0)" }) { $0 == $1 })
        }
    }

    @Test func theDateHeaderIsTheIMFFixdateOfTheSecond() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        var seconds = [0, 68_169_599, 951_782_400, 951_868_799, 1_709_164_800, 4_107_542_399, 253_402_300_799, -86_400]
        for _ in 0..<2000 { seconds.append(Int.random(in: 0...4_102_444_800, using: &generator)) }
        for second in seconds {
            #expect(HTTPDate.format(second) == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(second))), "\(second)")
        }
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}

extension EdgeFastPathTests {
    @Test func onSQLiteALinkNotInMemoryIsReadAtOnceAndCachedIncludingOneThatDoesNotExist() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "fresh", destination: "https://example.com/fresh"), app: fixture.app, environment: .live)
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            // The root fills the cache with the host's app; neither link has been read yet.
            _ = try await Self.exchange(port: port, ["GET / HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n"])
            let answers = try await Self.exchange(port: port, [
                Self.get("/fresh"), Self.get("/stale"), Self.get("/fresh"), Self.get("/stale"), Self.get("/fresh", close: true),
            ])
            #expect(answers.map(\.status) == [302, 404, 302, 404, 302])
            #expect(Set(answers.filter { $0.status == 302 }.map(Self.shape)).count == 1)
            #expect(Set(answers.filter { $0.status == 404 }.map(Self.shape)).count == 1)
            let metrics = try await Self.exchange(port: port, [Self.get("/metrics", close: true)])
            let text = try #require(metrics.first?.body)
            // Two misses (each link read once, the missing one remembered as missing), then hits only.
            #expect(text.contains("ferry_link_cache_misses_total 2\n"))
            #expect(text.contains("ferry_link_cache_hits_total 3\n"))
        }
    }
}

/// `FERRY_EDGE_FAST_PATH`: the fast path is switched by a setting of its own, not by the log level.
extension EdgeFastPathTests {
    @Test func theSettingIsOnOrOffAndAnythingElseStopsTheStart() throws {
        var configuration = FerryConfiguration()
        #expect(configuration.edgeFastPath, "on by default")
        try configuration.apply(environment: ["FERRY_EDGE_FAST_PATH": "off", "FERRY_LOG_LEVEL": "info"])
        #expect(!configuration.edgeFastPath)
        try configuration.apply(environment: ["FERRY_EDGE_FAST_PATH": "ON"])
        #expect(configuration.edgeFastPath)
        try configuration.apply(environment: ["FERRY_EDGE_FAST_PATH": "off", "FERRY_LOG_LEVEL": "debug"])
        #expect(!configuration.edgeFastPath && configuration.logLevel == .debug, "the log level does not switch it")
        for value in ["1", "false", "maybe", "of"] {
            let error = #expect(throws: ConfigurationError.self, "\(value)") { try configuration.apply(environment: ["FERRY_EDGE_FAST_PATH": value]) }
            #expect(error?.description.contains("FERRY_EDGE_FAST_PATH must be on or off") == true, "\(error?.description ?? "")")
        }
    }

    @Test(arguments: [true, false])
    func atDebugLevelEveryClickIsLoggedWhicheverPathAnswersIt(fastPath: Bool) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
        var configuration = Fixture.configuration
        configuration.edgeFastPath = fastPath
        let log = RecordingLogHandler.Records()
        try await fixture.application(configuration, logger: log.logger(.debug)).test(.live) { client in
            let port = try #require(client.port)
            let before = try await Self.fastAnswers(port: port)
            // The first click fills the cache; of the next two, the first is the fast path's when it is on.
            let first = try await Self.exchange(port: port, [Self.get("/home?n=1", close: true)])
            let next = try await Self.exchange(port: port, [Self.get("/home?n=2"), Self.get("/home?n=3", close: true)])
            #expect((first + next).map(\.status) == [302, 302, 302])
            #expect((first + next).map { $0.header("Location") } == (1...3).map { "https://example.com/home?n=\($0)" })
            #expect(try await Self.fastAnswers(port: port) - before == (fastPath ? 1 : 0))
            let clicks = log.entries.filter { $0.message == "Request" && $0.metadata["hb.request.path"]?.description.hasPrefix("/home") == true }
            #expect(clicks.map { $0.metadata["hb.request.path"]?.description } == ["/home?n=1", "/home?n=2", "/home?n=3"])
            #expect(clicks.allSatisfy { $0.level == .debug && $0.metadata["hb.request.method"] == "GET" })
            #expect(clicks.filter { $0.metadata["ferry.fast_path"] != nil }.count == (fastPath ? 1 : 0))
        }
    }

    @Test func aboveDebugLevelTheFastPathLogsNothing() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
        let log = RecordingLogHandler.Records()
        try await fixture.application(logger: log.logger(.info)).test(.live) { client in
            let port = try #require(client.port)
            let before = try await Self.fastAnswers(port: port)
            _ = try await Self.exchange(port: port, [Self.get("/home", close: true)])
            let answers = try await Self.exchange(port: port, [Self.get("/home"), Self.get("/home", close: true)])
            #expect(answers.map(\.status) == [302, 302])
            #expect(try await Self.fastAnswers(port: port) - before == 1)
            #expect(!log.entries.contains { $0.message == "Request" })
        }
    }
}

/// The fast path without a socket (`EdgePipelineHarness`): the same handlers in the same pipeline, bytes written by
/// the test.
extension EdgeFastPathTests {
    /// NIO's decoder reads no request after one that closes the connection, one of HTTP/1.0 or an upgrade; a click
    /// after such a request is the decoder's to read (and refuse), not the fast path's to answer once the framework
    /// has answered the first.
    @Test(arguments: [("HTTP/1.1", "Connection: close\r\n"), ("HTTP/1.0", ""), ("HTTP/1.1", "Connection: Upgrade\r\nUpgrade: websocket\r\n")])
    func nothingAfterARequestThatEndsTheExchangeIsAnsweredFromMemory(version: String, fields: String) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
        let edge = try await EdgeController.forPipelineTests(store: fixture.store, hosts: ["go.example.com"])
        let stream = Array(("GET /home \(version)\r\nHost: go.example.com\r\n\(fields)\r\n" + Self.get("/home")).utf8)
        for pieces in [[], [stream.count / 2, stream.count]] {
            // The framework answers the first request at once, before the click after it is read.
            let fast = FastPathReading(edge: edge, answersLater: 0, seed: 1)
            fast.read(stream, pieces: pieces)
            #expect(try fast.answers().map { $0.header(FrameworkStandIn.marker) } == ["0"], "\(fields.debugDescription)")
            #expect(Reading.decoding(stream, pieces: pieces).requests.count == 1, "the decoder reads one request")
        }
        #expect(edge.counters.fastAnswers.load(ordering: .relaxed) == 0)
    }
}
#endif
