#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import FerryServer
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A webhook receiver (or a domain's web server) on a real port of 127.0.0.1, plain or over TLS, that behaves as
/// asked: answers properly, closes without answering, trickles an answer that never ends its head, or streams a body
/// without end. It counts the connections it holds and keeps the requests it read.
final class WebhookTestReceiver: Sendable {
    enum Behaviour: Sendable {
        /// Reads the request and answers with this status (and `Location`, when given) and the body `ok`, or what
        /// ``answer(_:location:body:)`` sets later.
        case answer(Int, location: String? = nil)
        /// Reads the first bytes of the request, then closes the connection without a word.
        case closeWithoutAnswering
        /// Starts an answer's head and then sends one more byte of it every 200 ms, never finishing it.
        case trickle
        /// Answers 200 and then sends body bytes as fast as they are taken: 64 MiB, as good as endless for a client
        /// that reads a few KiB, and a bound for one that reads it all.
        case endlessBody
    }

    struct Request: Sendable {
        var head: HTTPRequestHead
        var body: String
    }

    struct Log: Sendable {
        var requests: [Request] = []
        /// Connections open now, the most open at once, and how many have ended.
        var open = 0
        var mostOpen = 0
        var ended = 0
        /// Whether an endless body was sent to its last byte.
        var sentWholeBody = false
    }

    /// How much an endless body is.
    static let endlessBodyBytes = 64 << 20

    /// What an answering receiver answers with.
    struct Answer: Sendable {
        var status: Int
        var location: String?
        var body: String
    }

    let log = Mutex(Log())
    private let nextAnswer = Mutex(Answer(status: 200, body: "ok"))
    private let children = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let server = Mutex<(any Channel)?>(nil)

    private init() {}

    /// The port it listens on.
    var port: Int { server.withLock { $0?.localAddress?.port } ?? 0 }

    var requests: [Request] { log.withLock { $0.requests } }

    /// Answers the next requests with this status, `Location` and body.
    func answer(_ status: Int, location: String? = nil, body: String = "ok") {
        nextAnswer.withLock { $0 = Answer(status: status, location: location, body: body) }
    }

    fileprivate var currentAnswer: Answer { nextAnswer.withLock { $0 } }

    static func start(_ behaviour: Behaviour, tls: NIOSSLContext? = nil) async throws -> WebhookTestReceiver {
        let receiver = WebhookTestReceiver()
        if case .answer(let status, let location) = behaviour { receiver.answer(status, location: location) }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                receiver.opened(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(NIOSSLServerHandler(context: tls)) }
                    switch behaviour {
                    case .answer:
                        try pipeline.configureHTTPServerPipeline()
                        try pipeline.addHandler(AnsweringHandler(receiver: receiver))
                    case .closeWithoutAnswering, .trickle, .endlessBody:
                        try pipeline.addHandler(RawBehaviourHandler(receiver: receiver, behaviour: behaviour))
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        receiver.server.withLock { $0 = channel }
        return receiver
    }

    /// Closes every connection it holds (a hanging receiver let go at the end of a test).
    func closeConnections() {
        for child in children.withLock({ Array($0.values) }) { child.close(promise: nil) }
    }

    /// Stops listening, then closes every connection; calling it again does nothing more.
    func stop() async {
        try? await server.withLock { $0 }?.close()
        closeConnections()
    }

    private func opened(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        children.withLock { $0[key] = channel }
        log.withLock { log in
            log.open += 1
            log.mostOpen = max(log.mostOpen, log.open)
        }
        channel.closeFuture.whenComplete { _ in
            self.children.withLock { $0[key] = nil }
            self.log.withLock { log in
                log.open -= 1
                log.ended += 1
            }
        }
    }

    fileprivate func received(_ request: Request) {
        log.withLock { $0.requests.append(request) }
    }

    /// A TLS context serving the test certificate for `hooks.test`, issued by ``testCA``.
    static func serverTLS() throws -> NIOSSLContext {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(leafCertificate.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leafKey.utf8), format: .pem)))
        return try NIOSSLContext(configuration: configuration)
    }

    /// The authority that issued the receiver's certificate: a delivery trusts it only when told to.
    static func testCA() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(caCertificate.utf8), format: .pem)
    }

    // A test authority and a certificate it issued for `hooks.test` (DNS name only), valid 2020–2120.
    static let caCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBZTCCAQqgAwIBAgICEAAwCgYIKoZIzj0EAwIwGDEWMBQGA1UEAwwNRmVycnkg
        VGVzdCBDQTAgFw0yMDAxMDEwMDAwMDBaGA8yMTIwMDEwMTAwMDAwMFowGDEWMBQG
        A1UEAwwNRmVycnkgVGVzdCBDQTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABGtS
        fgJFIcbRPJuhIYFcTVJurd5u21p6TFMNQ97H/ENq668ssfzESpqC4z719EcPg2Kg
        YMfSUnQurSLwyOBrpxGjQjBAMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQD
        AgEGMB0GA1UdDgQWBBQComASOcfL0ydVift3eIR3en0nyjAKBggqhkjOPQQDAgNJ
        ADBGAiEAvSKNci2cPomumaXEv9AXNjculUm12ZRkSmgBXEwwTX0CIQDaiWj44Ek8
        /fK2KwcFgH6SdEHSs+fghQtABtJmJ3QjKQ==
        -----END CERTIFICATE-----
        """
    static let leafCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBrDCCAVOgAwIBAgICEAEwCgYIKoZIzj0EAwIwGDEWMBQGA1UEAwwNRmVycnkg
        VGVzdCBDQTAgFw0yMDAxMDEwMDAwMDBaGA8yMTIwMDEwMTAwMDAwMFowFTETMBEG
        A1UEAwwKaG9va3MudGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABKUT/O33
        3JQsnkQyREIb2dPj8Uxv5AOM8Khry+o0wfuKyoHcZ16OJGVikChQvlEvk2F3rv8k
        haPW537sStOdLnWjgY0wgYowFQYDVR0RBA4wDIIKaG9va3MudGVzdDAMBgNVHRMB
        Af8EAjAAMA4GA1UdDwEB/wQEAwIHgDATBgNVHSUEDDAKBggrBgEFBQcDATAfBgNV
        HSMEGDAWgBQComASOcfL0ydVift3eIR3en0nyjAdBgNVHQ4EFgQUrxK4SAvTh+Bi
        mj+ksVwlnk9YfcAwCgYIKoZIzj0EAwIDRwAwRAIgLCLNF7ul5XfLLvR0/26+dINS
        58dyVl5O72ts/XjPNP0CIHuf14DiZASYl00r0Vp+eex24HSyJ+cUj+nuCWuIA5P7
        -----END CERTIFICATE-----
        """
    static let leafKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgm3zu6od+T2M416Th
        JQMTgvOfljYEVmZ3djc6kshiE2qhRANCAASlE/zt99yULJ5EMkRCG9nT4/FMb+QD
        jPCoa8vqNMH7isqB3GdejiRlYpAoUL5RL5Nhd67/JIWj1ud+7ErTnS51
        -----END PRIVATE KEY-----
        """
}

/// Keeps each request and answers it as the receiver says, then closes.
private final class AnsweringHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let receiver: WebhookTestReceiver
    var head: HTTPRequestHead?
    var body = ByteBuffer()

    init(receiver: WebhookTestReceiver) {
        self.receiver = receiver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body(var part): body.writeBuffer(&part)
        case .end:
            guard let head else { return }
            receiver.received(.init(head: head, body: String(buffer: body)))
            let answer = receiver.currentAnswer
            var headers = HTTPHeaders([("Content-Length", String(answer.body.utf8.count)), ("Connection", "close")])
            if let location = answer.location { headers.add(name: "Location", value: location) }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: answer.status), headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}

/// The receivers that misbehave below HTTP.
private final class RawBehaviourHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let receiver: WebhookTestReceiver
    let behaviour: WebhookTestReceiver.Behaviour
    var started = false

    init(receiver: WebhookTestReceiver, behaviour: WebhookTestReceiver.Behaviour) {
        self.receiver = receiver
        self.behaviour = behaviour
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !started else { return }
        started = true
        let channel = context.channel
        switch behaviour {
        case .answer: break
        case .closeWithoutAnswering:
            context.close(promise: nil)
        case .trickle:
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\nX-Wait: ")), promise: nil)
            let task = channel.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .milliseconds(200)) { _ in
                channel.writeAndFlush(ByteBuffer(string: "."), promise: nil)
            }
            channel.closeFuture.whenComplete { _ in task.cancel() }
        case .endlessBody:
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")), promise: nil)
            Self.pump(channel, left: WebhookTestReceiver.endlessBodyBytes, receiver: receiver)
        }
    }

    /// Writes 16 KiB, and again whenever the last write went out, until the body is sent or the connection ends.
    static func pump(_ channel: any Channel, left: Int, receiver: WebhookTestReceiver) {
        guard left > 0 else {
            receiver.log.withLock { $0.sentWholeBody = true }
            channel.close(promise: nil)
            return
        }
        let chunk = min(left, 16 * 1024)
        channel.writeAndFlush(ByteBuffer(repeating: UInt8(ascii: "x"), count: chunk)).whenSuccess {
            pump(channel, left: left - chunk, receiver: receiver)
        }
    }
}

/// A resolver that answers from a table and remembers every name it was asked about: once a name has been answered,
/// later questions about it get `later` instead — a name whose answers change under the one who checked them.
final class ScriptedResolver: HostResolver {
    let first: [String: [IPAddress]]
    let later: [IPAddress]
    let asked = Mutex<[String]>([])

    init(_ first: [String: [IPAddress]], later: [IPAddress] = []) {
        self.first = first
        self.later = later
    }

    func addresses(of host: String) async throws -> [IPAddress] {
        asked.withLock { asked in
            defer { asked.append(host) }
            return asked.contains(host) ? later : first[host] ?? []
        }
    }
}
#endif
