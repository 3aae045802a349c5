#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import NIOCore
import NIOPosix
import Synchronization

/// A DNS server on loopback for the tests: it answers TXT questions from records a test publishes, and "no such
/// name" to every other question, over UDP as any DNS server does.
final class TestDNSServer: Sendable {
    /// What the server knows and how often it was asked, shared with its handler.
    final class State: Sendable {
        let records = Mutex<[String: [String]]>([:])
        let questions = Atomic<Int>(0)
    }

    private let state: State
    private let channel: any Channel

    /// `host:port`, as `FERRY_DNS_SERVER` takes it.
    let address: String

    /// How many questions it was asked.
    var questions: Int { state.questions.load(ordering: .relaxed) }

    private init(channel: any Channel, state: State) {
        self.channel = channel
        self.state = state
        address = "127.0.0.1:\(channel.localAddress?.port ?? 0)"
    }

    static func start() async throws -> TestDNSServer {
        let state = State()
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Answerer(state: state)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestDNSServer(channel: channel, state: state)
    }

    /// Publishes the TXT records of a name (replacing what it had).
    func publish(_ name: String, _ values: [String]) {
        state.records.withLock { $0[name.lowercased()] = values }
    }

    func stop() async {
        try? await channel.close()
    }

    private final class Answerer: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let state: State

        init(state: State) {
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let query = Array(envelope.data.readableBytesView)
            guard query.count > 12 else { return }
            state.questions.add(1, ordering: .relaxed)
            // The question's name, up to its end.
            var labels: [String] = []
            var position = 12
            while position < query.count, query[position] != 0 {
                let length = Int(query[position])
                guard position + 1 + length <= query.count else { return }
                labels.append(String(decoding: query[(position + 1)..<(position + 1 + length)], as: UTF8.self))
                position += 1 + length
            }
            let questionEnd = position + 5
            guard questionEnd <= query.count else { return }
            let type = UInt16(query[position + 1]) << 8 | UInt16(query[position + 2])
            let values = type == 16 ? state.records.withLock { $0[labels.joined(separator: ".").lowercased()] } : nil
            var answer: [UInt8] = [query[0], query[1], 0x81, values == nil ? 0x83 : 0x80, 0, 1, 0, UInt8(values?.count ?? 0), 0, 0, 0, 0]
            answer += query[12..<questionEnd]
            for value in values ?? [] {
                let text = Array(value.utf8)
                answer += [0xC0, 0x0C, 0, 16, 0, 1, 0, 0, 0, 60, 0, UInt8(text.count + 1), UInt8(text.count)] + text
            }
            context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: ByteBuffer(bytes: answer))), promise: nil)
        }
    }
}
#endif
