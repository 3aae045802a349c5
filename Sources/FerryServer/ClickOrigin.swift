#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import NIOCore

/// Where a click came from, as its connection told it. The client's address, and the keyed hashes that are all the
/// database keeps of it, are worked out when the click is written, not while its visitor waits for the redirect.
package struct ClickOrigin: Sendable {
    /// The socket peer: its address as text, or the socket address itself (made text only when the click is written).
    enum Peer: Sendable {
        case text(String?)
        case socket(SocketAddress?)
    }

    let peerAddress: Peer
    /// Every `X-Forwarded-For` field, in order.
    package var forwardedFor: [String]

    /// Creates an origin from the socket peer's address text.
    package init(peer: String?, forwardedFor: [String]) {
        self.init(peer: .text(peer), forwardedFor: forwardedFor)
    }

    init(peer: Peer, forwardedFor: [String]) {
        self.peerAddress = peer
        self.forwardedFor = forwardedFor
    }

    /// The socket peer's address.
    package var peer: String? {
        switch peerAddress {
        case .text(let text): text
        case .socket(let address): address?.ipAddress
        }
    }
}
#endif
