#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import NIOCore

/// Closes a connection whose client has sent nothing for `timeout` while Ferry waits on it: a request head or body
/// that stops half-way (a slow or stalled client holding a connection open), a client that never sends anything,
/// or a keep-alive connection left idle. While the framework works on a request it has read whole (a long export,
/// say) the wait is Ferry's, not the client's, and the connection stays open however long that takes.
///
/// It sits first in a connection's pipeline, so it sees every byte before the fast path or the HTTP decoder;
/// `EdgeAnswerWatcher` tells it, from behind the decoder, when a request the framework answers has been read and
/// when its answer has ended. Clicks the fast path answers leave nothing pending for Ferry: they are answered as
/// they are read, and while their answers wait for a client that does not read them the connection is not read
/// either (see `EdgeFastPath`), so it falls silent and is closed like any stalled client's. Everything runs on the
/// connection's event loop.
final class ClientReadTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    /// The last time the client sent bytes or an answer to it ended.
    private var lastActivity = NIODeadline.now()
    private var check: Scheduled<Void>?
    /// Requests handed to the framework whose heads were read and whose answers have not ended.
    private var open = 0
    /// Whether the body of the last request handed to the framework is still coming in.
    private var readingBody = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { schedule(context, at: .now() + timeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        lastActivity = .now()
        schedule(context, at: lastActivity + timeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = .now()
        context.fireChannelRead(data)
    }

    /// The decoder read the head of a request the framework answers.
    func frameworkReadHead() {
        open += 1
        readingBody = true
    }

    /// The decoder read the end of that request.
    func frameworkReadEnd() {
        readingBody = false
    }

    /// The framework's answer to a request ended.
    func frameworkAnswered() {
        if open > 0 { open -= 1 }
        lastActivity = .now()
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        guard check == nil else { return }
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            check = nil
            expire(context)
        }
    }

    private func expire(_ context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        if open > 0 && !readingBody {
            // The framework holds a whole request: the client is waiting for Ferry.
            schedule(context, at: .now() + timeout)
            return
        }
        let due = lastActivity + timeout
        if due <= .now() {
            context.close(promise: nil)
        } else {
            schedule(context, at: due)
        }
    }
}
#endif
