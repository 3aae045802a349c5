#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Answers clicks on links the cache knows on the connection's own event loop, before the framework sees them.
///
/// A redirect is the one answer Ferry gives far more often than any other, and for a link in memory it needs
/// nothing asynchronous. This handler sits at the very front of a connection's pipeline and reads request heads
/// straight from the bytes (`EdgeRequestScanner`); for a `GET` of a link it asks `EdgeController.answerFromCache`
/// (which, on SQLite, also reads a link the cache does not hold with a point read that never waits) and writes the
/// answer's bytes. No HTTP decoder, encoder or framework object is made for such a click.
///
/// Every other request — other routes, HEAD, a request with a body, a host the cache does not know, a link that
/// cannot be read at once, HTTP/1.0, `Connection: close`, more than one Host — is handed on, its bytes exactly, to
/// the framework's HTTP decoder, and the framework answers it. While a request handed on has not been answered, the
/// requests after it are handed on too, so that answers leave in the order of their requests; once the framework
/// has answered all of them, clicks are answered here again. Bytes the scanner does not read (see
/// `EdgeRequestScanner`), and everything after a request that ends the exchange of requests (`Connection: close`,
/// HTTP/1.0, an upgrade: the decoder reads no request after one), go to the decoder from there on, for the rest of
/// the connection.
///
/// While the channel is not writable (more answers wait to leave than its high-water mark), no new request is taken,
/// whichever path would answer it, and nothing more is read from the socket; both resume when the answers have left.
/// A client that pipelines requests and never reads its answers stops being read instead of filling the server's
/// memory with answers.
final class EdgeFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let edge: EdgeController
    private let serverName: String?
    /// The logger clicks answered here are logged to, at debug level, as the router's middleware logs the requests
    /// it answers; nil when the log level does not show them (then nothing is spent on logging).
    private let requestLogger: Logger?
    /// Requests handed to the framework whose answers have not ended yet.
    private var unanswered = 0
    /// Bytes of a handed-on request's body still to come.
    private var bodyLeft = 0
    /// Set once the scanner met something it does not read: the decoder has the connection from then on.
    private var handingOn = false
    /// Bytes not taken yet: a request head not complete, or requests waiting for the channel to be writable.
    private var held: ByteBuffer?
    /// Whether held bytes are being taken now (writability can change while an answer is written or flushed).
    private var taking = false
    /// Whether the channel asked to read while it was not writable.
    private var readWaiting = false
    private var date = HTTPDate()
    /// The user agent of this connection's last click, and what it was classified as.
    private var lastUserAgent: String?
    private var lastClient: ClientInfo?
    /// The Accept-Language of this connection's last click.
    private var lastAcceptLanguage: String?
    /// This connection's last host, and whether its answers carry `Strict-Transport-Security`.
    private var lastHost: String?
    private var lastHostPinned = false

    init(edge: EdgeController, serverName: String?, logger: Logger? = nil) {
        self.edge = edge
        self.serverName = serverName
        requestLogger = logger.flatMap { $0.logLevel <= .debug ? $0 : nil }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if handingOn {
            context.fireChannelRead(data)
            return
        }
        var bytes = unwrapInboundIn(data)
        if var earlier = held {
            held = nil
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        held = bytes
        take(context: context)
    }

    /// Backpressure: while the channel is not writable (its answers wait for a client that does not read them),
    /// nothing more is read from the socket, so that a client pipelining requests without reading answers can make
    /// the server hold at most the channel's high-water mark of answers and the bytes of one read.
    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            context.read()
        } else {
            readWaiting = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        guard context.channel.isWritable else { return }
        take(context: context)
        if readWaiting && context.channel.isWritable {
            readWaiting = false
            context.read()
        }
    }

    /// Takes the requests in the held bytes, in order, while the channel stays writable: answers clicks from memory
    /// and hands the rest to the framework. What is left (an incomplete head, or requests that must wait until the
    /// answers written so far leave) stays held.
    private func take(context: ChannelHandlerContext) {
        guard !taking else { return }
        taking = true
        defer { taking = false }
        // Flushing can make the channel writable again, with requests still held: then they are taken too.
        while var bytes = held, bytes.readableBytes > 0, context.channel.isWritable || bodyLeft > 0 || handingOn {
            held = nil
            let answered = take(&bytes, context: context)
            if bytes.readableBytes > 0 { held = bytes }
            guard answered else { break }
            context.flush()
        }
    }

    /// Takes requests from the front of `bytes` until they run out or the channel is no longer writable; whether any
    /// was answered here (and needs a flush).
    private func take(_ bytes: inout ByteBuffer, context: ChannelHandlerContext) -> Bool {
        var answered = false
        while bytes.readableBytes > 0 {
            if bodyLeft > 0 {
                // The rest of a body the framework is reading: it is that request's, not a new one.
                let count = min(bodyLeft, bytes.readableBytes)
                bodyLeft -= count
                context.fireChannelRead(wrapInboundOut(bytes.readSlice(length: count)!))
                continue
            }
            if handingOn {
                context.fireChannelRead(wrapInboundOut(bytes))
                bytes.moveReaderIndex(to: bytes.writerIndex)
                break
            }
            // A new request waits while earlier answers cannot leave.
            guard context.channel.isWritable else { break }
            switch bytes.withUnsafeReadableBytes(EdgeRequestScanner.scan) {
            case .incomplete:
                return answered
            case .unsupported:
                handingOn = true
            case .request(let request):
                let started = ContinuousClock.now
                if unanswered == 0, request.bodyLength == 0, let answer = answer(to: request, peer: context.channel.remoteAddress) {
                    bytes.moveReaderIndex(forwardBy: request.headLength)
                    var out = context.channel.allocator.buffer(capacity: Self.encodedSize(answer, serverName: serverName))
                    Self.encode(answer, date: date.now(), serverName: serverName, into: &out)
                    context.write(wrapOutboundOut(out), promise: nil)
                    edge.counters.fastAnswers.add(1, ordering: .relaxed)
                    edge.counters.metrics.edgeAnswered(answer.kind)
                    edge.counters.metrics.requestAnswered(.edge, status: Int(answer.status.code),
                                                          nanoseconds: (ContinuousClock.now - started).wholeNanoseconds)
                    requestLogger?.debug("Request", metadata: [
                        "hb.request.path": .string(request.target), "hb.request.method": "GET", "ferry.fast_path": "true",
                    ])
                    answered = true
                } else {
                    // The framework answers this one: its head and whatever of its body is here, exactly.
                    unanswered += 1
                    let count = min(request.length, bytes.readableBytes)
                    bodyLeft = request.length - count
                    // After a request that closes the connection or asks to leave HTTP (`Connection: close` or
                    // `upgrade`, HTTP/1.0, `Upgrade`), NIO's decoder reads no further request: what follows is its.
                    if request.asksForMore || !request.isHTTP11 { handingOn = true }
                    context.fireChannelRead(wrapInboundOut(bytes.readSlice(length: count)!))
                }
            }
        }
        return answered
    }

    /// The framework ended an answer (`EdgeAnswerWatcher` saw it go out).
    func frameworkAnswered() {
        if unanswered > 0 { unanswered -= 1 }
    }

    /// The answer from memory, or nil when the framework should answer.
    private func answer(to request: EdgeRequest, peer: SocketAddress?) -> EdgeAnswer? {
        guard request.isGET, request.isHTTP11, !request.asksForMore, request.otherHosts.isEmpty, let onlyHost = request.host,
              let (path, query) = Self.link(in: request.target),
              let host = DomainName.normalizeHostHeader(onlyHost)
        else { return nil }
        // The debug view (`?d=1`) is the router's to answer.
        if let query, LinkDebugReport.isRequested(byQuery: query) { return nil }
        // A connection is almost always one client: its user agent is classified once, not on every click.
        if request.userAgent != lastUserAgent {
            lastUserAgent = request.userAgent
            lastClient = edge.classifier.classify(request.userAgent)
        }
        if request.acceptLanguage != lastAcceptLanguage { lastAcceptLanguage = request.acceptLanguage }
        // The click takes the connection's copies of the texts that repeat, not the request's: the request's are freed
        // here on the event loop that made them, and the click recorder's thread, which releases the click, only
        // decrements a count instead of freeing memory another thread allocated.
        let click = ClickRequest(
            userAgent: lastUserAgent, referer: request.referer, acceptLanguage: lastAcceptLanguage,
            forwardedFor: request.forwardedFor, query: query, peer: .socket(peer), client: lastClient, prefetch: request.prefetch
        )
        guard var answer = edge.answerFromCache(host: host, path: path, click: click) else { return nil }
        if host != lastHost {
            lastHost = host
            lastHostPinned = StrictTransportSecurity.applies(toHost: host)
        }
        if lastHostPinned { answer.fields.append((StrictTransportSecurity.field, StrictTransportSecurity.value)) }
        return answer
    }

    /// At least the bytes `encode` writes (so that the answer's buffer is allocated once, never grown).
    static func encodedSize(_ answer: EdgeAnswer, serverName: String?) -> Int {
        var size = 128 + (serverName?.utf8.count ?? 0) + (answer.body?.utf8.count ?? 0)
        for field in answer.fields { size += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        return size
    }

    /// An answer as HTTP/1.1 bytes, as the framework's encoder writes one: status line, the answer's fields (with
    /// legal values), `Content-Length`, `Date`, `Server`, and the body.
    static func encode(_ answer: EdgeAnswer, date: String, serverName: String?, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(answer.status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(answer.status.reasonPhrase)
        buffer.writeStaticString("\r\n")
        for field in answer.fields {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(EdgeAnswer.legal(field).value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Content-Length: ")
        buffer.writeString(String(answer.body?.utf8.count ?? 0))
        buffer.writeStaticString("\r\nDate: ")
        buffer.writeString(date)
        if let serverName {
            buffer.writeStaticString("\r\nServer: ")
            buffer.writeString(serverName)
        }
        buffer.writeStaticString("\r\n\r\n")
        if let body = answer.body { buffer.writeString(body) }
    }

    /// The path and raw query of a request target (origin form) that may name a link (see `LinkPath`), or nil for
    /// any other: a path one of the framework's fixed routes has, or that no link can have. Cheap, one pass over the
    /// path: only the slug alphabet (in any case) and single `/`, at most `LinkPath.maxRequestPathLength` bytes, and a first
    /// segment that is not a reserved word — but `link` (the `/link/{slug}` form) and `links` (which a path prefix
    /// may be); what the path names is read once the host's app, and so its domain's path prefix, is known.
    static func link(in uri: String) -> (path: String, query: String?)? {
        let utf8 = uri.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        let pathEnd = utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex
        let path = uri[..<pathEnd]
        guard (2...LinkPath.maxRequestPathLength).contains(path.utf8.count) else { return nil }
        var firstSegment = 0
        var inFirst = true
        var previous = UInt8(ascii: "/")
        for byte in path.utf8.dropFirst() {
            if byte == UInt8(ascii: "/") {
                // The router reads `//` as `/` (`//healthz` is `/healthz`): such a path is the framework's to route.
                guard previous != UInt8(ascii: "/") else { return nil }
                inFirst = false
            } else {
                guard Slug.isSlugByte(LinkPath.lowercase(byte)) else { return nil }
                if inFirst { firstSegment += 1 }
            }
            previous = byte
        }
        if firstSegment <= Self.longestReservedWord {
            let word = String(unsafeUninitializedCapacity: firstSegment) { buffer in
                for (index, byte) in path.utf8.dropFirst().prefix(firstSegment).enumerated() { buffer[index] = LinkPath.lowercase(byte) }
                return firstSegment
            }
            if Slug.reserved.contains(word), word != "link", word != "links" { return nil }
        }
        let query = pathEnd == utf8.endIndex ? nil : String(uri[utf8.index(after: pathEnd)...])
        return (String(path), query)
    }

    static let longestReservedWord = Slug.reserved.map(\.utf8.count).max() ?? 0
}

/// The `Date` header's value (RFC 9110's IMF-fixdate), formatted once a second.
struct HTTPDate {
    private var second = Int.min
    private var text = ""

    mutating func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let second = Int(time.tv_sec)
        if second != self.second {
            self.second = second
            text = Self.format(second)
        }
        return text
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for seconds since 1970 (UTC).
    static func format(_ seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday; 0 is Sunday
        // Civil date from a day count (the proleptic Gregorian calendar, in 400-year eras).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[weekday]), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}

/// Right after the HTTP decoder: tells the fast path when the framework has answered a request handed on to it (and
/// the read timeout when such a request was read and answered), and marks an HTTP/1.0 request without keep-alive
/// `Connection: close`, so that the framework closes the connection after its answer, as such a client expects.
final class EdgeAnswerWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var fastPath: EdgeFastPath?
    private var readTimeout: ClientReadTimeout?

    init(fastPath: EdgeFastPath, readTimeout: ClientReadTimeout? = nil) {
        self.fastPath = fastPath
        self.readTimeout = readTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            readTimeout?.frameworkReadHead()
            if !head.isKeepAlive, !head.headers[canonicalForm: "connection"].contains("close") {
                head.headers.add(name: "Connection", value: "close")
                context.fireChannelRead(wrapInboundOut(.head(head)))
                return
            }
        case .end:
            readTimeout?.frameworkReadEnd()
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ends = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if ends {
            fastPath?.frameworkAnswered()
            readTimeout?.frameworkAnswered()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        fastPath = nil
        readTimeout = nil
    }
}

/// HTTP/1.1 connections as the framework makes them, with `RequestHostCheck` right after the HTTP decoder and, with
/// an edge, `ClientReadTimeout` and then `EdgeFastPath` in front of everything and `EdgeAnswerWatcher` right after
/// the decoder too.
struct EdgeHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    /// The edge whose clicks on cached links the fast path answers; nil leaves every request to the framework.
    let edge: EdgeController?
    let serverName: String?
    /// How long the client may leave a connection silent while Ferry waits on it; nil never closes one for that.
    var readTimeout: Duration? = nil

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let edge = edge, serverName = serverName, readTimeout = readTimeout
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try Self.addHandlers(to: channel.pipeline.syncOperations, edge: edge, serverName: serverName, readTimeout: readTimeout, logger: logger)
            return value
        }
    }

    /// Adds Ferry's handlers to a pipeline the framework's `HTTP1Channel` set up (NIO's HTTP/1.1 server pipeline:
    /// `HTTPResponseEncoder`, then `ByteToMessageHandler<HTTPRequestDecoder>`, then the framework's own handlers).
    /// The fast path's correctness rests on that shape: it must see the connection's bytes before the decoder, and
    /// the watcher must see each decoded request and each answer's end.
    static func addHandlers(to pipeline: ChannelPipeline.SynchronousOperations, edge: EdgeController?, serverName: String?,
                            readTimeout: Duration?, logger: Logger) throws {
        let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        try pipeline.addHandler(RequestHostCheck(), position: .after(decoder))
        guard let edge else { return }
        let fastPath = EdgeFastPath(edge: edge, serverName: serverName, logger: logger)
        try pipeline.addHandler(fastPath, position: .first)
        let timeout = readTimeout.map { ClientReadTimeout(timeout: TimeAmount($0)) }
        if let timeout { try pipeline.addHandler(timeout, position: .first) }
        try pipeline.addHandler(EdgeAnswerWatcher(fastPath: fastPath, readTimeout: timeout), position: .after(decoder))
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with Ferry's fast path for clicks on cached links, closing connections whose client stays silent for
    /// `readTimeout` while Ferry waits on it. Without an edge (the fast path switched off, `FERRY_EDGE_FAST_PATH=off`)
    /// the framework answers everything and its idle timeout stands in for the read timeout.
    static func ferry(edge: EdgeController?, serverName: String?, readTimeout: Duration) -> HTTPServerBuilder {
        .init { responder in
            guard let edge else {
                let http1 = HTTP1Channel(responder: responder, configuration: .init(idleTimeout: TimeAmount(readTimeout)))
                return EdgeHTTPChannel(http1: http1, edge: nil, serverName: serverName)
            }
            return EdgeHTTPChannel(http1: HTTP1Channel(responder: responder), edge: edge, serverName: serverName, readTimeout: readTimeout)
        }
    }
}
#endif
