#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1

// The fast path's pipeline without a socket: NIO's HTTP/1.1 server pipeline as the framework sets it up, Ferry's
// handlers added as on a live connection (`EdgeHTTPChannel.addHandlers`), and a stand-in for the framework; and NIO's
// decoder alone, to hold it to. A test writes a stream of bytes in pieces and reads what each made of it.

extension EdgeController {
    /// An edge over a store, whose cache knows the apps of `hosts` (so that the fast path may answer clicks on them),
    /// with no limits on requests; the clicks it records are kept in memory and not written.
    static func forPipelineTests(store: SQLiteStore, hosts: [String]) async throws -> EdgeController {
        let limits = RequestLimits(limiter: RateLimiter(settings: .off), addresses: ClientAddressResolver())
        let resolver = LinkResolver(store: store, cache: LinkCache(capacity: 10_000), lookups: EdgeLookups(store: store, timeout: .seconds(15)),
                                    immediateReader: store, limits: limits)
        let recorder = ClickRecorder(store: store, flushInterval: .seconds(3600), batchSize: 1, bufferLimit: 1_000_000, logger: Logger(label: "ferry-test"))
        let outbox = WebhookOutbox(store: store, now: { Date() }, logger: Logger(label: "ferry-test"))
        let attributor = Attributor(store: store, recorder: recorder, matcher: AttributionMatcher(), hasher: AddressHasher(key: "pipeline-tests"),
                                    now: { Date() }, logger: Logger(label: "ferry-test"), outbox: outbox)
        let edge = EdgeController(
            attributor: attributor, resolver: resolver, recorder: recorder,
            classifier: UserAgentClassifier(), clickRouter: ClickRouter(), now: { Date() }, counters: EdgeCounters(metrics: ServerMetrics()),
            associations: AssociationFileSource(store: store, now: { Date() }),
            longLinks: LongLinks(resolver: resolver, store: store, now: { Date() }, logger: Logger(label: "ferry-test")))
        for host in hosts {
            if let host = DomainName.normalizeHostHeader(host) { _ = try await resolver.app(forHost: host) }
        }
        return edge
    }
}

/// A request as NIO's decoder delivers it.
struct DecodedRequest: Equatable, CustomStringConvertible {
    var method: String
    var uri: String
    var version: String
    var headers: [(String, String)]
    var body: [UInt8] = []
    var trailers: [(String, String)]?

    static func == (lhs: DecodedRequest, rhs: DecodedRequest) -> Bool {
        lhs.method == rhs.method && lhs.uri == rhs.uri && lhs.version == rhs.version && lhs.body == rhs.body
            && lhs.headers.elementsEqual(rhs.headers, by: ==)
            && (lhs.trailers ?? []).elementsEqual(rhs.trailers ?? [], by: ==) && (lhs.trailers == nil) == (rhs.trailers == nil)
    }

    var description: String {
        "\(method) \(uri) HTTP/\(version) \(headers) body \(body.count) bytes" + (trailers.map { " trailers \($0)" } ?? "")
    }

    /// The request as bytes that decode to it again (a request answered from memory has no body).
    var serialized: String {
        "\(method) \(uri) HTTP/\(version)\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
    }
}

/// Keeps every request the decoder delivers, and passes them on.
final class RequestCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    var requests: [DecodedRequest] = []
    var error: (any Error)?
    private var current: DecodedRequest?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            current = DecodedRequest(method: head.method.rawValue, uri: head.uri, version: "\(head.version.major).\(head.version.minor)",
                                     headers: head.headers.map { ($0.name, $0.value) })
        case .body(let buffer):
            current?.body += buffer.readableBytesView
        case .end(let trailers):
            if var request = current {
                request.trailers = trailers.map { $0.map { ($0.name, $0.value) } }
                requests.append(request)
            }
            current = nil
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if self.error == nil { self.error = error }
        context.fireErrorCaught(error)
    }
}

/// Stands in for the framework: answers each request it is handed, in order, at once or later (as a framework busy
/// with other work would), with an answer marked with the request's ordinal and a body of `body` (which the encoder
/// leaves out of the answer to a HEAD, if it pairs each answer with its request).
final class FrameworkStandIn: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let marker = "X-Stand-In"
    static let body = "framework"
    private var random: SeededGenerator
    private let later: Double
    private var received = 0
    private var waiting: [Int] = []
    private var context: ChannelHandlerContext?

    init(answersLater later: Double, seed: UInt64) {
        self.later = later
        random = SeededGenerator(seed: seed)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        waiting.append(received)
        received += 1
        if Double.random(in: 0..<1, using: &random) >= later { answerWaiting() }
    }

    /// Answers every request handed on so far, in order.
    func answerWaiting() {
        guard let context else { return }
        let ordinals = waiting
        waiting = []
        for ordinal in ordinals {
            let head = HTTPResponseHead(version: .http1_1, status: .ok,
                                        headers: [Self.marker: String(ordinal), "Content-Length": String(Self.body.utf8.count)])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: Self.body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    /// Now and then, answers what waits (between two reads from the socket).
    func maybeAnswer() {
        if Double.random(in: 0..<1, using: &random) >= later { answerWaiting() }
    }
}

/// NIO's HTTP/1.1 server pipeline as the framework sets it up (`HTTP1Channel.setup`), with its decoder limits.
func addFrameworkPipeline(to channel: EmbeddedChannel) throws {
    let limits = HTTP1Channel.Configuration().httpDecoder
    var decoderLimits = NIOHTTPDecoderLimitConfiguration()
    decoderLimits.maxHeaderFieldSize = limits.maxHeaderFieldSize
    decoderLimits.maxHeaderListSize = limits.maxHeaderListSize
    decoderLimits.maxHeaderFieldCount = limits.maxHeaderFieldCount
    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
        withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
        withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits)
}

/// Writes a stream in pieces (none: one piece), catching the first error the pipeline raises.
func write(_ stream: [UInt8], pieces: [Int], to channel: EmbeddedChannel, between: () -> Void = {}) -> (any Error)? {
    var first: (any Error)?
    var offset = 0
    for length in pieces.isEmpty ? [stream.count] : pieces where offset < stream.count {
        let end = min(stream.count, offset + length)
        do { try channel.writeInbound(ByteBuffer(bytes: stream[offset..<end])) } catch { first = first ?? error }
        offset = end
        between()
    }
    return first
}

/// What NIO's decoder alone reads from a stream.
struct Reading {
    var requests: [DecodedRequest]
    var error: (any Error)?

    static func decoding(_ stream: [UInt8], pieces: [Int]) -> Reading {
        let channel = EmbeddedChannel()
        let collector = RequestCollector()
        do {
            try addFrameworkPipeline(to: channel)
            try channel.pipeline.syncOperations.addHandler(collector)
        } catch {
            return Reading(requests: [], error: error)
        }
        let thrown = write(stream, pieces: pieces, to: channel)
        // What is still unread when the stream ends is not compared: the fast path drops a head it holds at the end.
        let reading = Reading(requests: collector.requests, error: collector.error ?? thrown)
        _ = try? channel.finish(acceptAlreadyClosed: true)
        return reading
    }
}

/// What the fast path's pipeline makes of a stream: the bytes it writes, and what reached the framework.
final class FastPathReading {
    let channel = EmbeddedChannel()
    let framework = RequestCollector()
    let standIn: FrameworkStandIn
    /// Every byte written to the connection.
    private(set) var written: [UInt8] = []
    /// The first error the pipeline raised while the stream was read.
    private(set) var error: (any Error)?

    init(edge: EdgeController, answersLater: Double, seed: UInt64) {
        standIn = FrameworkStandIn(answersLater: answersLater, seed: seed)
        do {
            try addFrameworkPipeline(to: channel)
            try EdgeHTTPChannel.addHandlers(to: channel.pipeline.syncOperations, edge: edge, serverName: "Ferry", readTimeout: nil,
                                            logger: Logger(label: "ferry-test"))
            // Right after the decoder: what it delivers, before Ferry's handlers after it change anything.
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(framework, position: .after(decoder))
            try channel.pipeline.syncOperations.addHandler(standIn)
        } catch {
            self.error = error
        }
    }

    func read(_ stream: [UInt8], pieces: [Int]) {
        let thrown = write(stream, pieces: pieces, to: channel) { [standIn] in standIn.maybeAnswer() }
        standIn.answerWaiting()
        error = framework.error ?? thrown
        while let buffer = try? channel.readOutbound(as: ByteBuffer.self) { written += buffer.readableBytesView }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }

    /// The answers written; those at `bodiless` positions answer a HEAD and have no body.
    func answers(bodiless: Set<Int> = []) throws -> [RawHTTPClient.Response] {
        try RawHTTPClient.parseAll(written, bodiless: bodiless)
    }
}
#endif
