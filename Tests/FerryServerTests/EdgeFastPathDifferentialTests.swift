#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// The fast path reads HTTP by hand ahead of NIO's decoder; these tests hold the two to the same reading.
///
/// Generated and mutated request streams (pipelined requests; bodies by `Content-Length` and chunked; repeated,
/// folded, empty, huge and odd-case fields; HEAD and other methods; HTTP/1.0; bad request lines) go, in pieces,
/// through the fast path's real pipeline (NIO's HTTP/1.1 server pipeline as the framework sets it up, with Ferry's
/// handlers added by `EdgeHTTPChannel.addHandlers`, and a stand-in for the framework that answers, at once or later,
/// each request the decoder delivers), and through NIO's decoder alone. The two must agree on every request: where
/// it starts and ends, and that each one the decoder reads is answered exactly once, in order, either by the
/// framework (through the encoder, which must leave the body out of the answer to a HEAD) or from memory, and nothing
/// it does not read; the scanner must read each request's target and the fields a click uses as the framework gets
/// them. Every answer from memory is then held to what a real server with the fast path off
/// (`FERRY_EDGE_FAST_PATH=off`) answers the same request over a socket.
///
/// Each stream comes from its own seed, printed with any disagreement; `FERRY_FUZZ_SEED=N` runs that one stream
/// (in each of the tests), `FERRY_FUZZ_STREAMS=N` runs more streams.
@Suite("The edge's fast path against NIO's decoder", .takesTurns)
struct EdgeFastPathDifferentialTests {
    // MARK: The tests

    @Test func generatedStreamsAreFramedAndAnsweredAlike() async throws {
        try await Self.run(base: 1_000_000, streams: 600, answersFromMemory: 100) { random in
            let stream = RequestStreams.stream(&random)
            return (stream, RequestStreams.pieces(of: stream.count, &random))
        }
    }

    @Test func mutatedStreamsAreFramedAndAnsweredAlike() async throws {
        try await Self.run(base: 2_000_000, streams: 600, answersFromMemory: 50) { random in
            var stream = RequestStreams.stream(&random)
            for _ in 0..<Int.random(in: 1...3, using: &random) { RequestStreams.mutate(&stream, &random) }
            return (stream, RequestStreams.pieces(of: stream.count, &random))
        }
    }

    /// Slugs of several segments, and a domain whose links are under a path prefix (`example.org`, `/links`).
    @Test func streamsOfLinkPathsAreFramedAndAnsweredAlike() async throws {
        try await Self.run(base: 4_000_000, streams: 300, answersFromMemory: 30) { random in
            var stream = RequestStreams.stream(&random, paths: true)
            if RequestStreams.chance(0.2, &random) { RequestStreams.mutate(&stream, &random) }
            return (stream, RequestStreams.pieces(of: stream.count, &random))
        }
    }

    @Test func streamsSplitAtEveryByteAreReadAlike() async throws {
        // Each stream is read in two pieces, cut at each of its bytes in turn, and once a byte at a time.
        try await Self.run(base: 3_000_000, streams: 12, cutsEverywhere: true) { random in
            var stream = RequestStreams.stream(&random, requests: 2...4, short: true)
            if Bool.random(using: &random) { RequestStreams.mutate(&stream, &random) }
            return (stream, [])
        }
    }

    /// The pipeline these tests build is the one a live connection gets: the framework's handlers, in its order, with
    /// Ferry's where the fast path needs them — first (after the read timeout) to see the connection's bytes, then the
    /// encoder, the decoder, right after it the watcher that sees each request handed on and each answer's end, then
    /// the host check, then the framework's own. A new version of Hummingbird or swift-nio that builds the pipeline
    /// otherwise fails here first (see docs/design-notes.md).
    @Test func theHandlersSitWhereTheFastPathNeedsThemInTheFrameworksPipeline() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let edge = try await EdgeController.forPipelineTests(store: fixture.store, hosts: [])
        let decoder = "ByteToMessageHandler<HTTPDecoder<HTTPPart<HTTPRequestHead, ByteBuffer>, HTTPPart<HTTPResponseHead, IOData>>>"
        #expect(try Self.liveHandlers(edge: edge) == [
            "ClientReadTimeout", "EdgeFastPath", "HTTPResponseEncoder", decoder, "EdgeAnswerWatcher", "RequestHostCheck",
            "HTTP1ToHTTPServerCodec", "HTTPConnectionStateHandler", "NIOAsyncChannelHandler<HTTPRequestPart, HTTPRequestPart, HTTPResponsePart>",
        ])
        // The tests' pipeline: the same up to where the framework's own handlers begin (their stand-in is last).
        let tests = FastPathReading(edge: edge, answersLater: 0, seed: 0)
        #expect(Self.handlers(of: tests.channel) == [
            "EdgeFastPath", "HTTPResponseEncoder", decoder, "RequestCollector", "EdgeAnswerWatcher", "RequestHostCheck", "FrameworkStandIn",
        ])
    }

    /// The handlers of a connection set up as `ferry serve` sets up each one (on a channel without a socket).
    static func liveHandlers(edge: EdgeController) throws -> [String] {
        let channel = EmbeddedChannel()
        let setup = EdgeHTTPChannel(http1: HTTP1Channel(responder: { _, _, _ in }), edge: edge, serverName: "Ferry", readTimeout: .seconds(75))
        _ = try setup.setup(channel: channel, logger: Logger(label: "ferry-test")).wait()
        return handlers(of: channel)
    }

    /// The type of each handler in a pipeline, first to last (from NIO's description of it).
    static func handlers(of channel: EmbeddedChannel) -> [String] {
        channel.pipeline.debugDescription.split(separator: "\n").dropFirst(2).map { line in
            let sides = line.split(separator: "↓↑", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let inbound = sides[0], outbound = sides.count > 1 ? String(sides[1].split(separator: " [").first ?? "") : ""
            return inbound.isEmpty ? outbound.trimmingCharacters(in: .whitespaces) : inbound
        }
    }

    // MARK: Running streams

    /// A stream and the lengths of the pieces it is written in (none: one piece).
    typealias Case = (stream: [UInt8], pieces: [Int])

    /// The seeds to run: `FERRY_FUZZ_SEED` alone, or `streams` (or `FERRY_FUZZ_STREAMS`) from `base` on.
    static func seeds(base: UInt64, streams: Int) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["FERRY_FUZZ_SEED"].flatMap({ UInt64($0) }) { return [seed] }
        let count = environment["FERRY_FUZZ_STREAMS"].flatMap { Int($0) } ?? streams
        return (0..<UInt64(count)).map { base &+ $0 }
    }

    /// Runs the streams of `seeds(base:streams:)` and checks every answer from memory against the reference server;
    /// expects at least `answersFromMemory` of them (unless one seed is asked for), so that a change that leaves the
    /// fast path nothing to answer here does not pass unnoticed.
    static func run(base: UInt64, streams: Int, answersFromMemory: Int = 1, cutsEverywhere: Bool = false,
                    make: @escaping @Sendable (inout SeededGenerator) -> Case) async throws {
        let bench = try await Bench.make()
        defer { bench.fixture.remove() }
        // Thousands of streams through two pipelines is seconds of work that never waits: on a thread of its own, so
        // that tests running meanwhile keep the few threads Swift's concurrency has.
        let (answers, findings) = try await onItsOwnThread {
            var answers = AnswersToCheck(), findings = Findings()
            for seed in seeds(base: base, streams: streams) {
                var random = SeededGenerator(seed: seed)
                let (stream, pieces) = make(&random)
                var cuts = [pieces]
                if cutsEverywhere {
                    cuts = (1..<max(1, stream.count)).map { [$0, stream.count - $0] }
                    cuts.append(Array(repeating: 1, count: stream.count))
                }
                for cut in cuts {
                    bench.compare(stream, pieces: cut, seed: seed, random: &random, answers: &answers, findings: &findings)
                }
            }
            return (answers, findings)
        }
        for problem in findings.problems { Issue.record(Comment(rawValue: problem)) }
        if findings.more > 0 { Issue.record("and \(findings.more) more disagreements") }
        try await bench.checkAnswers(answers)
        if ProcessInfo.processInfo.environment["FERRY_FUZZ_SEED"] == nil {
            #expect(answers.requests.count >= answersFromMemory, "only \(answers.requests.count) different requests were answered from memory")
        }
    }

    /// Disagreements found, each naming its stream's seed (the first few in full).
    struct Findings {
        var problems: [String] = []
        var more = 0

        mutating func check(_ agreed: Bool, _ problem: @autoclosure () -> String) {
            guard !agreed else { return }
            if problems.count < 20 { problems.append(problem()) } else { more += 1 }
        }
    }

    /// Answers from memory, each with the first request that got it (one of each request is enough).
    struct AnswersToCheck {
        var requests: [String] = []
        var answers: [RawHTTPClient.Response] = []
        var seeds: [UInt64] = []
        private var seen: Set<String> = []

        mutating func add(_ request: String, answer: RawHTTPClient.Response, seed: UInt64) {
            guard seen.insert(request).inserted else { return }
            requests.append(request)
            answers.append(answer)
            seeds.append(seed)
        }
    }

    /// A store with links, an edge over it (its cache knowing every host the streams use), and a server over the
    /// same store with the fast path off, whose answers are the reference.
    struct Bench {
        let fixture: Fixture
        let edge: EdgeController

        static func make() async throws -> Bench {
            let fixture = try await Fixture.make()
            let admin = fixture.admin
            _ = try await admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
            _ = try await admin.createLink(CreateLinkRequest(slug: "sale", destination: "https://example.com/sale", iosURL: "example://sale",
                                                             androidURL: "https://example.com/android/sale", utm: UTMParameters(source: "news")),
                                           app: fixture.app, environment: .live)
            _ = try await admin.createLink(CreateLinkRequest(slug: "gone", destination: "https://example.com/gone", disabled: true),
                                           app: fixture.app, environment: .live)
            _ = try await admin.createLink(CreateLinkRequest(domain: "links.example.com", slug: "deep", destination: "https://example.com/deep"),
                                           app: fixture.app, environment: .live)
            _ = try await admin.createLink(CreateLinkRequest(slug: "x", destination: "https://other.example/x"), app: fixture.otherApp, environment: .live)
            // A domain its app dropped, with a link made on it.
            var retired = FerryAdmin.AppSpec(name: "Retired", domains: ["old.example.net", "new.example.net"])
            retired.fallbackURL = "https://example.net/"
            let retiredApp = try await admin.createApp(retired)
            _ = try await admin.createLink(CreateLinkRequest(domain: "old.example.net", slug: "home", destination: "https://example.net/home"),
                                           app: retiredApp, environment: .live)
            _ = try await admin.updateApp(id: retiredApp.id) { $0.domains.removeAll { $0 == "old.example.net" } }
            // Slugs of several segments, and a domain with a path prefix.
            let app = try await admin.updateApp(id: fixture.app.id) { spec in
                spec.domains.append("example.org")
                spec.pathPrefixes["example.org"] = "/links"
            }
            _ = try await admin.createLink(CreateLinkRequest(slug: "promo/spring-26", destination: "https://example.com/spring"), app: app, environment: .live)
            _ = try await admin.createLink(CreateLinkRequest(domain: "example.org", slug: "promo/x", destination: "https://example.org/x"), app: app,
                                           environment: .live)

            let edge = try await EdgeController.forPipelineTests(store: fixture.store, hosts: RequestStreams.hosts + RequestStreams.pathHosts)
            return Bench(fixture: fixture, edge: edge)
        }

        /// One stream, in pieces, through both pipelines; every disagreement found, naming the seed.
        func compare(_ stream: [UInt8], pieces: [Int], seed: UInt64, random: inout SeededGenerator, answers: inout AnswersToCheck,
                     findings: inout Findings) {
            let what = "seed \(seed) (FERRY_FUZZ_SEED=\(seed) runs it alone), pieces \(pieces.count > 8 ? "\(pieces.count) of \(pieces.first ?? 0)…" : "\(pieces)"): "
                + String(decoding: stream.prefix(600), as: UTF8.self).debugDescription
            let reference = Reading.decoding(stream, pieces: pieces)
            let fast = FastPathReading(edge: edge, answersLater: Double.random(in: 0...0.6, using: &random), seed: random.next())
            fast.read(stream, pieces: pieces)

            // The scanner's reading of each request it reads, against the decoder's.
            checkScanner(stream, against: reference, what: what, findings: &findings)

            // Every answer in order: the framework's to the request the decoder delivered to it, or one from memory. The
            // encoder pairs each of the framework's answers with its request: one to a HEAD (or CONNECT) comes without its
            // body.
            let bodiless = Set(reference.requests.indices.filter { ["HEAD", "CONNECT"].contains(reference.requests[$0].method) })
            let responses: [RawHTTPClient.Response]
            do {
                responses = try fast.answers(bodiless: bodiless)
            } catch {
                findings.check(false, "bytes written that are not answers (\(error)); \(what)")
                return
            }
            var framework = 0
            for (index, answer) in responses.enumerated() {
                guard index < reference.requests.count else {
                    findings.check(false, "answer \(index + 1) (\(answer.status)) to a request NIO's decoder did not read; \(what)")
                    return
                }
                if let ordinal = answer.header(FrameworkStandIn.marker).flatMap({ Int($0) }) {
                    findings.check(ordinal == framework, "answers out of order; \(what)")
                    findings.check(answer.body == (bodiless.contains(index) ? "" : FrameworkStandIn.body),
                                   "answer \(index + 1) to \(reference.requests[index].method) with the body \(answer.body.debugDescription); \(what)")
                    framework += 1
                    guard ordinal < fast.framework.requests.count else { continue }
                    let handedOn = fast.framework.requests[ordinal], read = reference.requests[index]
                    findings.check(handedOn == read, "request \(index + 1) reached the framework as \(handedOn), the decoder alone read \(read); \(what)")
                } else {
                    answers.add(reference.requests[index].serialized, answer: answer, seed: seed)
                }
            }
            findings.check(framework == fast.framework.requests.count, "\(fast.framework.requests.count) requests handed on, \(framework) answered; \(what)")
            findings.check(fast.error == nil || reference.error != nil,
                           "the decoder behind the fast path failed (\(String(describing: fast.error))), alone it did not; \(what)")
            // Every request the decoder alone read (before an error, if it met one), and only those, was answered. (When
            // only the decoder alone failed, the rest is a head the fast path holds, not complete yet.)
            findings.check(responses.count == reference.requests.count,
                           "\(reference.requests.count) requests read by the decoder (then \(String(describing: reference.error))), "
                               + "\(responses.count) answered; \(what)")
        }

        /// The scanner, request after request from the start of the stream, reads what the decoder reads.
        func checkScanner(_ stream: [UInt8], against reference: Reading, what: String, findings: inout Findings) {
            var offset = 0
            for (index, read) in reference.requests.enumerated() {
                guard offset < stream.count,
                      case .request(let request) = stream[offset...].withUnsafeBytes({ EdgeRequestScanner.scan($0) }) else { return }
                // The framework's fields: values as `HTTPField` makes them (without the whitespace around them).
                let headers = read.headers.map { ($0.0, HTTPField(name: .userAgent, value: $0.1).value) }
                func joined(_ name: String) -> String? {
                    let values = headers.filter { $0.0.lowercased() == name }.map(\.1)
                    return values.isEmpty ? nil : values.joined(separator: ", ")
                }
                let scanned = "\(request.isGET ? "GET" : "not GET") \(request.target) HTTP/1.\(request.isHTTP11 ? 1 : 0) hosts \(request.hosts) "
                    + "agent \(request.userAgent ?? "-") referer \(request.referer ?? "-") languages \(request.acceptLanguage ?? "-") "
                    + "forwarded \(request.forwardedFor) body \(request.bodyLength)"
                let decoded = "\(read.method == "GET" ? "GET" : "not GET") \(read.uri) HTTP/\(read.version) "
                    + "hosts \(headers.filter { $0.0.lowercased() == "host" }.map(\.1)) agent \(joined("user-agent") ?? "-") "
                    + "referer \(joined("referer") ?? "-") languages \(joined("accept-language") ?? "-") "
                    + "forwarded \(headers.filter { $0.0.lowercased() == "x-forwarded-for" }.map(\.1)) body \(read.body.count)"
                findings.check(scanned == decoded, "request \(index + 1) scanned as \(scanned), decoded as \(decoded); \(what)")
                // After a request that ends the exchange of requests, the rest is the decoder's alone.
                guard scanned == decoded, !request.asksForMore, request.isHTTP11 else { return }
                offset += request.length
            }
        }

        /// Each answer from memory against the reference server's answer to the same request, all on one connection.
        func checkAnswers(_ answers: AnswersToCheck) async throws {
            guard !answers.requests.isEmpty else { return }
            var configuration = Fixture.configuration
            configuration.edgeFastPath = false
            configuration.rateLimits = .off
            try await fixture.application(configuration).test(.live) { client in
                let port = try #require(client.port)
                let close = "GET /healthz HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n"
                let bytes = Array((answers.requests.joined() + close).utf8)
                let raw = try await onItsOwnThread { try RawHTTPClient.exchange(port: port, bytes: bytes) }
                let routed = try RawHTTPClient.parseAll(raw)
                try #require(routed.count == answers.requests.count + 1, "the reference server answered \(routed.count) of \(answers.requests.count + 1)")
                for index in answers.requests.indices {
                    let fast = answers.answers[index], router = routed[index]
                    #expect(EdgeFastPathTests.shape(fast) == EdgeFastPathTests.shape(router),
                            "seed \(answers.seeds[index]): \(answers.requests[index].debugDescription)")
                    #expect(fast.header("Content-Length") == String(fast.body.utf8.count))
                }
            }
        }
    }
}

// MARK: Making streams

/// Request streams: mostly what browsers, crawlers and proxies send, with HTTP/1.1's oddities mixed in.
enum RequestStreams {
    static let hosts = [
        "go.example.com", "GO.Example.COM", "go.example.com.", "go.example.com:8080", "abc.go.example.com", "links.example.com",
        "other.test", "nobody.test", "old.example.net", "new.example.net", "localhost:8080", "[::1]:8080",
    ]
    static let slugs = [
        "home", "home", "HOME", "sale", "gone", "deep", "x", "nothing", "healthz", "metrics", "dashboard", "v1", "link", "api",
        "apple-app-site-association", "h%6Fme", "home.json", "-", "home/", "home/x", "a_b", String(repeating: "s", count: 70),
    ]
    /// Paths of several segments and under `example.org`'s path prefix (`paths: true`), on these hosts.
    static let paths = [
        "/promo/spring-26", "/Promo/Spring-26/", "/link/promo/spring-26", "/promo/spring-26/x", "/promo//spring-26", "/promo/nothing",
        "/a/b/c/d/e", "/links/promo/x", "/links/link/promo/x", "/Links/Promo/X/", "/links", "/links/", "/links/promo", "/promo/x", "/home/",
        "//home", "/links//promo/x", "/links/promo/x?utm_source=a", "/api/x", "/healthz/", "/link/", "/links?link=https%3A%2F%2Fexample.com",
        "/" + String(repeating: "a/", count: 120),
    ]
    static let pathHosts = ["go.example.com", "example.org", "www.example.org", "abc.go.example.com", "EXAMPLE.org"]
    static let agents = [
        UA.desktop, UA.desktop, UA.iPhoneSafari, UA.iPhoneInstagram, UA.android, UA.slackBot, UA.facebookBot, "curl/8.7.1", "",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Mozilla/5.0\t(tab)", "caf\u{E9}/1.0",
    ]
    static let methods = ["HEAD", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"]
    /// Methods NIO's decoder refuses or frames otherwise.
    static let oddMethods = ["QUERY", "CONNECT", "FOO", "get", "G-T"]

    static func pick<T>(_ values: [T], _ random: inout SeededGenerator) -> T { values.randomElement(using: &random)! }

    static func chance(_ probability: Double, _ random: inout SeededGenerator) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    /// Several requests, one after another: in two streams of three, requests as clients send them (with the odd
    /// but well-formed fields, bodies and methods of HTTP/1.1), in the third also malformed ones. `short` leaves out
    /// huge fields.
    static func stream(_ random: inout SeededGenerator, requests: ClosedRange<Int> = 1...6, short: Bool = false, paths: Bool = false) -> [UInt8] {
        let hostile = chance(1.0 / 3, &random)
        return (0..<Int.random(in: requests, using: &random)).flatMap { _ in request(&random, hostile: hostile, short: short, paths: paths) }
    }

    /// One request; with `paths`, its target is one of `paths` on one of `pathHosts`.
    static func request(_ random: inout SeededGenerator, hostile: Bool, short: Bool, paths: Bool = false) -> [UInt8] {
        /// Something malformed, only in a hostile stream.
        func odd(_ probability: Double, _ random: inout SeededGenerator) -> Bool { hostile && chance(probability, &random) }
        let method = chance(0.7, &random) ? "GET" : odd(0.3, &random) ? pick(oddMethods, &random) : pick(methods, &random)
        let slug = pick(slugs, &random)
        var target: String
        switch Int.random(in: 0..<20, using: &random) {
        case 0: target = "/link/\(slug)"
        case 1: target = pick(["/", "/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/v1/links", "/healthz",
                               "/.ferry/interstitial.js", "/api/v1/app/dynamic_link/\(slug)", "*", "//\(slug)", "/\(slug)#top"], &random)
        case 2: target = "http://\(pick(hosts, &random))/\(slug)"
        case 3: target = "/\(slug)?utm_source=a&x=%20y" + (odd(0.5, &random) ? "&z=\u{E9}" : "")
        default: target = "/\(slug)" + (chance(0.3, &random) ? "?n=\(Int.random(in: 0...999, using: &random))&ref=mail" : "")
        }
        if paths { target = pick(Self.paths, &random) }
        var version = chance(0.95, &random) ? "HTTP/1.1" : "HTTP/1.0"
        if odd(0.03, &random) { version = pick(["HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "http/1.1", "HTTP/1.1 ", "HTTP/1.10", "HTTP/1"], &random) }
        var lines = [odd(0.03, &random) ? pick(["\(method)  \(target) \(version)", "\(method) \(target)", "\(method)\t\(target) \(version)",
                                                     " \(method) \(target) \(version)", "\(method) \(version)"], &random)
                     : "\(method) \(target) \(version)"]
        var fields: [(String, String)] = []
        let hostCount = chance(0.04, &random) ? Int.random(in: 0...2, using: &random) : 1
        for _ in 0..<hostCount { fields.append((pick(["Host", "Host", "host", "HOST"], &random), pick(paths ? pathHosts : hosts, &random))) }
        if chance(0.85, &random) { fields.append((pick(["User-Agent", "user-agent", "USER-AGENT"], &random), pick(agents, &random))) }
        if chance(0.05, &random) { fields.append(("User-Agent", pick(agents, &random))) }
        if chance(0.3, &random) { fields.append(("Accept-Language", pick(["en-US,en;q=0.9", "de", "", " fr , en "], &random))) }
        if chance(0.2, &random) { fields.append(("Referer", pick(["https://news.example/a", "", "  https://t.co/x  "], &random))) }
        for _ in 0..<(chance(0.3, &random) ? Int.random(in: 1...3, using: &random) : 0) {
            fields.append(("X-Forwarded-For", pick(["203.0.113.9", "198.51.100.1, 10.0.0.1", "", "not an address", "2001:db8::1"], &random)))
        }
        if chance(0.12, &random) {
            fields.append((pick(["Connection", "connection"], &random),
                           pick(["keep-alive", "Keep-Alive", "close", "Upgrade", "keep-alive, Upgrade", "TE", " keep-alive , "], &random)))
        }
        if chance(0.04, &random) { fields.append(("Upgrade", pick(["websocket", "h2c"], &random))) }
        if chance(0.03, &random) { fields.append(("Expect", "100-continue")) }
        if chance(0.2, &random) { fields.append(("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")) }
        if chance(0.1, &random) { fields.append(("Cookie", "a=1")); fields.append(("Cookie", "b=2")) }
        if chance(0.1, &random) { fields.append(("X-Empty", "")) }
        if chance(0.05, &random) { fields.append(("Ferry-Conflicting-Host", "1")) }
        if chance(0.03, &random) { fields.append(("X-Long", String(repeating: "v", count: short ? 300 : Int.random(in: 2000...12_000, using: &random)))) }
        if !short, chance(0.02, &random) { fields += (0..<Int.random(in: 60...70, using: &random)).map { ("X-F\($0)", "v") } }
        if !short, odd(0.01, &random) { fields.append(("X-Huge", String(repeating: "h", count: 90_000))) }
        if chance(0.05, &random) { fields.append(("X-Tabs", pick(["tab\there", "trailing \t", "\tleading"], &random))) }
        if odd(0.05, &random) { fields.append(("X-Odd", pick(["a\u{7F}b", "\u{FF}\u{FE}", "nul\u{0}"], &random))) }
        fields.shuffle(using: &random)

        // The body: none, by Content-Length, chunked, or framing a decoder must refuse.
        var body = ""
        let content = pick(["hello", "", #"{"destination":"https://example.com/x"}"#,
                            "GET /home HTTP/1.1\r\nHost: go.example.com\r\n\r\n"], &random)  // a request inside a body
        switch Int.random(in: 0..<20, using: &random) {
        case 0, 1, 2:
            fields.append((pick(["Content-Length", "content-length"], &random), String(content.utf8.count)))
            body = content
        case 3, 4:
            fields.append(("Transfer-Encoding", pick(["chunked", "Chunked", "gzip, chunked"], &random)))
            body = content.isEmpty ? "0\r\n\r\n" : String(content.utf8.count, radix: 16) + pick(["", ";ext=1"], &random) + "\r\n\(content)\r\n0\r\n"
                + (chance(0.3, &random) ? "X-Trailer: t\r\n" : "") + "\r\n"
        case 5 where hostile:
            let length = pick(["+5", "5, 5", " 5 ", "5 5", "0x5", "-1", "99999999999999999999", "5"], &random)
            fields.append(("Content-Length", length))
            if chance(0.5, &random) { fields.append(("Content-Length", pick(["5", "6"], &random))) }
            if chance(0.3, &random) { fields.append(("Transfer-Encoding", "chunked")) }
            body = "hello"
        default:
            if chance(0.05, &random) { fields.append(("Content-Length", "0")) }
        }
        for (name, value) in fields { lines.append(value.isEmpty && chance(0.5, &random) ? "\(name):" : "\(name): \(value)") }
        // A field folded over two lines.
        if odd(0.05, &random), lines.count > 1 { lines.insert(pick([" folded", "\tfolded"], &random), at: Int.random(in: 2...lines.count, using: &random)) }
        var head = lines.joined(separator: "\r\n") + "\r\n\r\n"
        if odd(0.03, &random) { head = head.replacing("\r\n", with: "\n", maxReplacements: Int.random(in: 1...3, using: &random)) }
        if odd(0.03, &random) { head = "\r\n" + head }
        return Array((head + body).utf8)
    }

    /// One change to a stream: a byte replaced, removed, added or repeated, a run repeated, or the end cut off.
    static func mutate(_ stream: inout [UInt8], _ random: inout SeededGenerator) {
        guard !stream.isEmpty else { return }
        let at = Int.random(in: 0..<stream.count, using: &random)
        let bytes: [UInt8] = [13, 10, 32, 9, 58, 0, 0x7F, 0xFF, 0xC3, UInt8(ascii: "a"), UInt8(ascii: "0"), UInt8(ascii: ",")]
        switch Int.random(in: 0..<6, using: &random) {
        case 0: stream[at] = pick(bytes, &random)
        case 1: stream.remove(at: at)
        case 2: stream.insert(pick(bytes, &random), at: at)
        case 3: stream.insert(stream[at], at: at)
        case 4:
            let end = min(stream.count, at + Int.random(in: 1...40, using: &random))
            stream.insert(contentsOf: stream[at..<end], at: end)
        default: stream.removeLast(Int.random(in: 1...min(20, stream.count), using: &random))
        }
    }

    /// Lengths of the pieces a stream is written in: whole, or cut at random places.
    static func pieces(of count: Int, _ random: inout SeededGenerator) -> [Int] {
        guard count > 1, chance(0.7, &random) else { return [] }
        var pieces: [Int] = []
        var left = count
        // Small pieces for the common streams; a stream with a huge field goes in larger ones (each piece of a head is
        // scanned again from the head's start, so a byte at a time is slow to test, if bounded by the longest head read).
        let largest = pick(count <= 4096 ? [1, 7, 64, max(1, count / 2)] : [700, max(1, count / 2)], &random)
        while left > 0 {
            let piece = Int.random(in: 1...max(1, min(left, largest)), using: &random)
            pieces.append(piece)
            left -= piece
        }
        return pieces
    }
}
#endif
