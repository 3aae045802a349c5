#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Turns a host name into addresses. A webhook attempt asks once, checks every address it gets, and connects to one
/// of those addresses itself: the name is never resolved a second time behind the check's back.
package protocol HostResolver: Sendable {
    /// The addresses `host` resolves to now; empty when it resolves to none.
    func addresses(of host: String) async throws -> [IPAddress]
}

/// The system's resolver (`getaddrinfo`: the hosts file, then DNS), asked on a thread of its own since a lookup blocks.
package struct SystemHostResolver: HostResolver {
    /// Creates the resolver.
    package init() {}

    package func addresses(of host: String) async -> [IPAddress] {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: NumericHost.resolve(host)) }.start()
        }
    }
}

/// How webhook attempts are made: where names are resolved, which certificates are trusted, how long an attempt may
/// take, how much of an answer is read, and how many attempts a node runs at once. Domains' proof files are read with
/// the same resolver, certificates, deadline and answer limit (and at most 4 KiB of their body).
package struct WebhookDeliverySettings: Sendable {
    /// Where receivers' host names are resolved.
    package var resolver: any HostResolver = SystemHostResolver()
    /// The certificates `https` receivers are verified against: the system's by default.
    package var trustRoots: NIOSSLTrustRoots = .default
    /// The longest one attempt may take, from resolving the name to the last byte of the answer read: connecting,
    /// TLS, sending and the answer all count. At most a minute, half the time a claimed delivery is leased for.
    package var deadline: Duration = .seconds(10)
    /// The most bytes of an answer read, its status line and headers included; an answer whose head does not fit
    /// fails the attempt.
    package var maxAnswerBytes = 16 * 1024
    /// The most bytes of an answer's body read before the connection is closed: the status decides, the body is not
    /// kept.
    package var maxAnswerBodyBytes = 4 * 1024
    /// Attempts a node runs at once.
    package var maxConcurrentAttempts = 64
    /// Attempts a node runs at once for one app's webhooks, so that an app whose receivers are slow cannot take every
    /// slot from the others.
    package var maxConcurrentAttemptsPerApp = 8

    /// The defaults.
    package init() {}
}

/// Why an attempt failed, as it is recorded on the delivery.
struct WebhookAttemptFailure: Error, Equatable, CustomStringConvertible {
    var description: String
}

/// Makes Ferry's requests to hosts an app's owner chooses: posts webhook deliveries, and reads the files that prove
/// control of a link domain. Each attempt resolves the host's name once, checks every address (unless internal
/// destinations are allowed), connects to one of those addresses itself, and speaks HTTP/1.1 to it — over TLS with
/// the URL's host name as SNI and as the name the certificate must carry, for `https`. It sends `Host` with the URL's
/// host, follows no redirect, reads at most ``WebhookDeliverySettings/maxAnswerBytes`` of the answer, and gives up at
/// the deadline.
final class WebhookClient: Sendable {
    /// Where a URL points.
    struct Target: Sendable, Equatable {
        var secure: Bool
        /// The host as written, without brackets or trailing dots.
        var host: String
        var port: Int
        /// The `Host` header: the host, with the port when it is not the scheme's.
        var authority: String
        /// Path and query.
        var path: String
    }

    /// What an attempt got: the answer's status and as much of its body as the caller keeps.
    struct Answer: Sendable {
        var status: Int
        /// The start of the body; empty when the caller keeps none.
        var body: ByteBuffer
        /// Whether `body` is the whole body: false when the body went on past what is kept, or the connection ended
        /// or the deadline passed before the body did.
        var complete: Bool
    }

    /// Where an attempt may not go when internal destinations are not allowed, and how a refusal reads.
    struct DestinationRules: Sendable {
        /// Why a URL may not be requested, judged before its host is resolved; nil when it may.
        var url: @Sendable (String) -> String?
        /// Why a host that resolved to these addresses may not be requested; nil when it may.
        var addresses: @Sendable ([IPAddress]) -> String?

        /// The rules of webhook deliveries (``WebhookRules``).
        static let webhooks = DestinationRules(url: { WebhookRules.destinationRefusal(url: $0) }, addresses: { WebhookRules.refusal(addresses: $0) })
    }

    let settings: WebhookDeliverySettings
    let allowPrivateDestinations: Bool
    let group: any EventLoopGroup
    /// Made at the first `https` attempt: loading the system's certificates costs, and most nodes may never need them.
    private let tls = Mutex<NIOSSLContext?>(nil)

    init(settings: WebhookDeliverySettings, allowPrivateDestinations: Bool, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.settings = settings
        self.allowPrivateDestinations = allowPrivateDestinations
        self.group = group
    }

    /// The deadline an attempt gets: the configured one, at most a minute.
    var deadline: Duration { min(settings.deadline, .seconds(60)) }

    /// Posts `body` to `url` with `headers` (besides `Host`, `Content-Length` and `Connection`) and answers with the
    /// answer's status, or throws a ``WebhookAttemptFailure`` saying why there is none.
    func post(url: String, headers: [(String, String)], body: ByteBuffer) async throws(WebhookAttemptFailure) -> Int {
        try await attempt(method: .POST, url: url, headers: headers + [("Content-Length", String(body.readableBytes))], body: body,
                          readBodyBytes: settings.maxAnswerBodyBytes, keepBodyBytes: 0, rules: .webhooks).status
    }

    /// Gets `url` with `headers` (besides `Host` and `Connection`) and answers with the answer's status and at most
    /// `keepBodyBytes` of its body (a longer body is cut there, and its connection closed), or throws a
    /// ``WebhookAttemptFailure`` saying why there is none. A redirect is an answer like any other: it is not followed.
    func get(url: String, headers: [(String, String)], keepBodyBytes: Int, rules: DestinationRules) async throws(WebhookAttemptFailure) -> Answer {
        // One byte more is read than kept, so that a body of exactly `keepBodyBytes` is known to be whole.
        try await attempt(method: .GET, url: url, headers: headers, body: nil, readBodyBytes: keepBodyBytes + 1, keepBodyBytes: keepBodyBytes, rules: rules)
    }

    private func attempt(method: HTTPMethod, url: String, headers: [(String, String)], body: ByteBuffer?, readBodyBytes: Int, keepBodyBytes: Int,
                         rules: DestinationRules) async throws(WebhookAttemptFailure) -> Answer {
        let deadline = NIODeadline.now() + TimeAmount(self.deadline)
        let loop = group.next()
        let target = try Self.target(url)
        if !allowPrivateDestinations, let refusal = rules.url(url) { throw WebhookAttemptFailure(description: refusal) }
        let addresses: [IPAddress]
        let literal = NumericHost.addresses(target.host)
        if let literal {
            addresses = literal
        } else {
            do {
                let resolver = settings.resolver
                addresses = try await Self.beforeDeadline(deadline, on: loop) { try await resolver.addresses(of: target.host) }
            } catch let failure as WebhookAttemptFailure {
                throw WebhookAttemptFailure(description: "cannot resolve \(target.host): \(failure)")
            } catch {
                throw WebhookAttemptFailure(description: "cannot resolve \(target.host): \(error)")
            }
        }
        guard !addresses.isEmpty else { throw WebhookAttemptFailure(description: "\(target.host) resolves to no address") }
        if !allowPrivateDestinations, let refusal = rules.addresses(addresses) { throw WebhookAttemptFailure(description: refusal) }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target.path)
        head.headers.add(name: "Host", value: target.authority)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.add(name: "Connection", value: "close")
        let context = target.secure ? try tlsContext() : nil
        // A literal address has no name for SNI; its certificate must then name the address itself.
        let serverName = target.secure && literal == nil ? target.host : nil
        return try await exchange(WebhookExchangeHandler.Exchange(head: head, body: body, deadline: deadline, deadlineText: "\(self.deadline)",
                                                                  maxAnswerBodyBytes: readBodyBytes, keptBodyBytes: keepBodyBytes),
                                  addresses: addresses, port: target.port, tls: context, serverName: serverName, on: loop)
    }

    /// Connects to the addresses in turn (each gets its share of the time left) and makes the exchange on the first
    /// that accepts; once one has accepted, its outcome is the attempt's, whatever it is.
    private func exchange(_ exchange: WebhookExchangeHandler.Exchange, addresses: [IPAddress], port: Int, tls: NIOSSLContext?, serverName: String?,
                          on loop: any EventLoop) async throws(WebhookAttemptFailure) -> Answer {
        var refusals: [String] = []
        let maxAnswerBytes = settings.maxAnswerBytes
        for (index, address) in addresses.enumerated() {
            let left = exchange.deadline - .now()
            guard left > .zero else { break }
            let promise = loop.makePromise(of: Answer.self)
            let bootstrap = ClientBootstrap(group: loop)
                .connectTimeout(.nanoseconds(left.nanoseconds / Int64(addresses.count - index)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        if let tls { try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                        try pipeline.addHandler(AnswerSizeLimit(maxBytes: maxAnswerBytes))
                        try pipeline.addHTTPClientHandlers()
                        try pipeline.addHandler(WebhookExchangeHandler(exchange, promise: promise))
                    }
                }
            let channel: any Channel
            do {
                channel = try await bootstrap.connect(to: SocketAddress(ipAddress: address.description, port: port)).get()
            } catch {
                promise.fail(error)
                // The deadline closes a channel still being set up: that is the time running out, not a refusal.
                if exchange.deadline <= .now() { throw WebhookAttemptFailure(description: "no answer within \(exchange.deadlineText)") }
                refusals.append("\(address): \(error)")
                continue
            }
            do {
                return try await withTaskCancellationHandler {
                    try await promise.futureResult.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            } catch let failure as WebhookAttemptFailure {
                throw failure
            } catch {
                throw WebhookAttemptFailure(description: "\(error)")
            }
        }
        if refusals.isEmpty { throw WebhookAttemptFailure(description: "no answer within \(exchange.deadlineText)") }
        throw WebhookAttemptFailure(description: "cannot connect to \(refusals.joined(separator: "; "))")
    }

    private func tlsContext() throws(WebhookAttemptFailure) -> NIOSSLContext {
        do {
            return try tls.withLock { cached in
                if let cached { return cached }
                var configuration = TLSConfiguration.makeClientConfiguration()
                configuration.trustRoots = settings.trustRoots
                configuration.minimumTLSVersion = .tlsv12
                configuration.applicationProtocols = ["http/1.1"]
                // A closed exchange waits this long for the receiver's own close_notify, reading (and dropping) what
                // it still sends meanwhile: a receiver that sends on for ever must not be read for the default 5 s.
                configuration.shutdownTimeout = .milliseconds(200)
                let context = try NIOSSLContext(configuration: configuration)
                cached = context
                return context
            }
        } catch {
            throw WebhookAttemptFailure(description: "cannot set up TLS: \(error)")
        }
    }

    /// Where `url` points, or why it cannot be posted to.
    static func target(_ url: String) throws(WebhookAttemptFailure) -> Target {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              var host = components.host, !host.isEmpty
        else { throw WebhookAttemptFailure(description: "not an http(s) URL") }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty else { throw WebhookAttemptFailure(description: "not an http(s) URL") }
        let secure = scheme == "https"
        let standard = secure ? 443 : 80
        let port = components.port ?? standard
        guard (1...65535).contains(port) else { throw WebhookAttemptFailure(description: "port \(port) is out of range") }
        var authority = host.contains(":") ? "[\(host)]" : host
        if port != standard { authority += ":\(port)" }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        return Target(secure: secure, host: host, port: port, authority: authority, path: path)
    }

    /// The result of `operation`, run in a task of its own, or a failure at `deadline` (or when the caller is
    /// cancelled) without waiting for it any longer: a system lookup cannot be interrupted, and is left to finish alone.
    static func beforeDeadline<T: Sendable>(_ deadline: NIODeadline, on loop: any EventLoop,
                                            _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let promise = loop.makePromise(of: T.self)
        let task = Task {
            do { promise.succeed(try await operation()) } catch { promise.fail(error) }
        }
        let timer = loop.scheduleTask(deadline: deadline) { promise.fail(WebhookAttemptFailure(description: "no answer before the deadline")) }
        promise.futureResult.whenComplete { _ in
            timer.cancel()
            task.cancel()
        }
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            promise.fail(CancellationError())
        }
    }
}

/// Passes on at most `maxBytes` of what a receiver sends, then reports the answer as too large and closes: whatever a
/// receiver sends, the attempt holds no more than this of it.
final class AnswerSizeLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    struct TooLarge: Error, CustomStringConvertible {
        var maxBytes: Int
        var description: String { "the answer's head is longer than \(maxBytes) bytes" }
    }

    private var left: Int
    private let maxBytes: Int

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
        left = maxBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard left > 0 else { return }
        let buffer = unwrapInboundIn(data)
        guard buffer.readableBytes > left else {
            left -= buffer.readableBytes
            context.fireChannelRead(data)
            return
        }
        let allowed = buffer.getSlice(at: buffer.readerIndex, length: left) ?? ByteBuffer()
        left = 0
        context.fireChannelRead(wrapInboundOut(allowed))
        context.fireErrorCaught(TooLarge(maxBytes: maxBytes))
        context.close(promise: nil)
    }
}

/// Sends one request when the connection is up and completes its promise with the answer's status (and the start of
/// its body, when some is kept), or with a ``WebhookAttemptFailure``, as ``WebhookAnswerReader`` decides; closes the
/// connection once it has.
final class WebhookExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// What to send, and until when.
    struct Exchange: Sendable {
        var head: HTTPRequestHead
        /// The request's body; nil for a request without one.
        var body: ByteBuffer?
        var deadline: NIODeadline
        /// The deadline as a failure names it ("10 seconds").
        var deadlineText: String
        var maxAnswerBodyBytes: Int
        /// How much of the answer's body is kept for the caller (at most ``maxAnswerBodyBytes`` is read).
        var keptBodyBytes = 0
    }

    private let exchange: Exchange
    private let promise: EventLoopPromise<WebhookClient.Answer>
    private var reader: WebhookAnswerReader
    private var sent = false
    private var timer: Scheduled<Void>?
    private var kept = ByteBuffer()
    private var ended = false

    init(_ exchange: Exchange, promise: EventLoopPromise<WebhookClient.Answer>) {
        self.exchange = exchange
        self.promise = promise
        reader = WebhookAnswerReader(maxBodyBytes: exchange.maxAnswerBodyBytes)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: exchange.deadline) { [self] in
            act(reader.deadlinePassed(after: exchange.deadlineText), context: context)
        }
        if context.channel.isActive { send(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        act(reader.closed(), context: context, closing: false)
    }

    func channelActive(context: ChannelHandlerContext) {
        send(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        act(reader.closed(), context: context)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): act(reader.head(status: Int(head.status.code)), context: context)
        case .body(let body):
            let room = exchange.keptBodyBytes - kept.readableBytes
            if room > 0, let part = body.getSlice(at: body.readerIndex, length: min(room, body.readableBytes)) { kept.writeImmutableBuffer(part) }
            act(reader.body(bytes: body.readableBytes), context: context)
        case .end:
            ended = true
            act(reader.end(), context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        act(reader.failed(Self.reason(error)), context: context)
    }

    /// An error as a receiver's owner reads it on the delivery: a TLS failure by its reasons, without the place in
    /// the TLS library where it arose.
    static func reason(_ error: any Error) -> String {
        let text = String(describing: error)
        guard error is NIOSSLError else { return text }
        let reasons = text.split(separator: "OPENSSL_internal:").dropFirst().map { String($0.prefix { $0.isUppercase || $0.isNumber || $0 == "_" }) }
        return reasons.isEmpty ? "TLS failed: \(text)" : "TLS failed: \(reasons.joined(separator: ", "))"
    }

    private func send(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        if let body = exchange.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func act(_ action: WebhookAnswerReader.Action, context: ChannelHandlerContext, closing: Bool = true) {
        guard case .finish(let outcome) = action else { return }
        timer?.cancel()
        switch outcome {
        case .success(let status): promise.succeed(WebhookClient.Answer(status: status, body: kept, complete: ended))
        case .failure(let failure): promise.fail(failure)
        }
        guard closing else { return }
        // Nothing more is read: what the receiver sends after the cap stays in the network, not in Ferry.
        try? context.channel.syncOptions?.setOption(.autoRead, value: false)
        context.close(promise: nil)
    }
}

/// What reading a receiver's answer has come to: the status decides, once it is in, and the attempt ends at the end
/// of the answer, after ``maxBodyBytes`` of its body, or when the connection closes, fails or runs out of time —
/// whichever comes first. Before the status, each of those but the first is a failure.
struct WebhookAnswerReader {
    enum Action: Equatable {
        /// Read on.
        case none
        /// The attempt is over: the answer's status, or why there is none.
        case finish(Result<Int, WebhookAttemptFailure>)
    }

    private enum State {
        case awaitingHead
        case readingBody(status: Int, bytes: Int)
        case finished
    }

    let maxBodyBytes: Int
    private var state = State.awaitingHead

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    mutating func head(status: Int) -> Action {
        guard case .awaitingHead = state else { return .none }
        state = .readingBody(status: status, bytes: 0)
        return maxBodyBytes > 0 ? .none : finish(status)
    }

    mutating func body(bytes: Int) -> Action {
        guard case .readingBody(let status, let read) = state else { return .none }
        state = .readingBody(status: status, bytes: read + bytes)
        return read + bytes >= maxBodyBytes ? finish(status) : .none
    }

    mutating func end() -> Action {
        guard case .readingBody(let status, _) = state else { return .none }
        return finish(status)
    }

    mutating func closed() -> Action {
        fail("the receiver closed the connection without answering")
    }

    mutating func failed(_ reason: String) -> Action {
        fail(String(reason.prefix(400)))
    }

    mutating func deadlinePassed(after deadline: String) -> Action {
        fail("no answer within \(deadline)")
    }

    private mutating func fail(_ reason: String) -> Action {
        switch state {
        case .awaitingHead:
            state = .finished
            return .finish(.failure(WebhookAttemptFailure(description: reason)))
        case .readingBody(let status, _):
            return finish(status)
        case .finished:
            return .none
        }
    }

    private mutating func finish(_ status: Int) -> Action {
        state = .finished
        return .finish(.success(status))
    }
}
#endif
