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
/// nothing asynchronous: the handler reads the request head as the HTTP decoder made it, asks
/// `EdgeController.answerFromCache` (which, on SQLite, also reads a link the cache does not hold with a point read
/// that never waits), and writes the answer. Everything else — other routes, HEAD, a host the cache does not know, a
/// link that cannot be read at once, a request the framework should see (HTTP/1.0, `Connection: close`, more than
/// one Host) — goes on to the framework untouched, and its answer comes back through here.
///
/// Answers leave in the order of their requests: while a request handed to the framework has not been answered
/// (a pipelining client), every request after it is handed on too. An HTTP/1.0 request without keep-alive is handed
/// on with `Connection: close`, so that the connection is closed after its answer, as such a client expects.
final class EdgeFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let edge: EdgeController
    private let serverName: String?
    /// Requests handed to the framework whose answers have not ended yet.
    private var forwarded = 0
    /// The answer to the request being read, sent once its end arrives (any body is read and dropped).
    private var pending: (answer: EdgeAnswer, version: HTTPVersion)?
    private var date = HTTPDate()
    /// The user agent of this connection's last click, and what it was classified as.
    private var lastUserAgent: String?
    private var lastClient: ClientInfo?

    init(edge: EdgeController, serverName: String?) {
        self.edge = edge
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            if forwarded == 0, pending == nil, let answer = answer(to: head, peer: context.channel.remoteAddress) {
                pending = (answer, head.version)
                return
            }
            forwarded += 1
            if !head.isKeepAlive && !head.headers[canonicalForm: "connection"].contains("close") {
                // An HTTP/1.0 request without keep-alive: the framework closes after its answer only when told so.
                head.headers.add(name: "Connection", value: "close")
                context.fireChannelRead(wrapInboundOut(.head(head)))
                return
            }
        case .body:
            if pending != nil { return }
        case .end:
            if let (answer, version) = pending {
                pending = nil
                send(answer, version: version, context: context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), forwarded > 0 { forwarded -= 1 }
        context.write(data, promise: promise)
    }

    /// The answer from memory, or nil when the framework should answer.
    private func answer(to head: HTTPRequestHead, peer: SocketAddress?) -> EdgeAnswer? {
        guard head.method == .GET, head.isKeepAlive, let (slug, query) = Self.link(in: head.uri) else { return nil }
        let hosts = head.headers["Host"]
        guard hosts.count == 1, let host = DomainName.normalizeHostHeader(hosts[0]) else { return nil }
        let userAgent = Self.field("User-Agent", in: head.headers)
        // A connection is almost always one client: its user agent is classified once, not on every click.
        if userAgent != lastUserAgent {
            lastUserAgent = userAgent
            lastClient = edge.classifier.classify(userAgent)
        }
        let click = ClickRequest(
            userAgent: userAgent, referer: Self.field("Referer", in: head.headers),
            acceptLanguage: Self.field("Accept-Language", in: head.headers), forwardedFor: head.headers["X-Forwarded-For"],
            query: query, peer: .socket(peer), client: lastClient
        )
        return edge.answerFromCache(host: host, slug: slug, click: click)
    }

    private func send(_ answer: EdgeAnswer, version: HTTPVersion, context: ChannelHandlerContext) {
        // Through the HTTP encoder, even though the bytes could be written at the pipeline's front: the decoder tells
        // the encoder each request's method, and the encoder pairs every response head with one (a later HEAD's
        // answer must go without its body).
        var headers = HTTPHeaders()
        headers.reserveCapacity(answer.fields.count + 3)
        for field in answer.legalFields { headers.add(name: field.name.rawName, value: field.value) }
        let body = answer.body.map { context.channel.allocator.buffer(string: $0) }
        headers.add(name: "Content-Length", value: String(body?.readableBytes ?? 0))
        headers.add(name: "Date", value: date.now())
        if let serverName { headers.add(name: "Server", value: serverName) }
        let status = HTTPResponseStatus(statusCode: answer.status.code, reasonPhrase: answer.status.reasonPhrase)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// A header's value as the framework gives it: repeated fields joined with ", ".
    static func field(_ name: String, in headers: HTTPHeaders) -> String? {
        let values = headers[name]
        if values.count <= 1 { return values.first }
        return values.joined(separator: ", ")
    }

    /// The slug and raw query of a link path (`/{slug}` or `/link/{slug}`, origin form), or nil for any other path
    /// and for words reserved for Ferry's own routes.
    static func link(in uri: String) -> (slug: String, query: String?)? {
        let utf8 = uri.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        let pathEnd = utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex
        var path = uri[utf8.index(after: utf8.startIndex)..<pathEnd]
        if path.utf8.starts(with: "link/".utf8) { path = path.dropFirst(5) }
        guard let slug = Slug.normalize(path), !Slug.reserved.contains(slug) else { return nil }
        let query = pathEnd == utf8.endIndex ? nil : String(uri[utf8.index(after: pathEnd)...])
        return (slug, query)
    }
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

/// HTTP/1.1 connections as the framework makes them, with `EdgeFastPath` right after the HTTP decoder.
struct EdgeHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let edge: EdgeController
    let serverName: String?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let edge = edge, serverName = serverName
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(EdgeFastPath(edge: edge, serverName: serverName), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with Ferry's fast path for clicks on cached links.
    static func ferry(edge: EdgeController, serverName: String?) -> HTTPServerBuilder {
        .init { responder in EdgeHTTPChannel(http1: HTTP1Channel(responder: responder), edge: edge, serverName: serverName) }
    }
}
