#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import NIOCore

/// Where a click came from, as its connection told it. The keyed hashes of the client's address, which are all the
/// database keeps of it, are worked out by the click recorder's own thread, not the request's.
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

    /// Creates an origin from the socket peer's address, as the edge's fast path does.
    package init(socketPeer: SocketAddress?, forwardedFor: [String]) {
        self.init(peer: .socket(socketPeer), forwardedFor: forwardedFor)
    }

    init(peer: Peer, forwardedFor: [String]) {
        self.peerAddress = peer
        self.forwardedFor = forwardedFor
    }

    /// The client's address (`ClientAddressResolver`), read from the socket's address without making it text.
    func clientAddress(using resolver: ClientAddressResolver) -> IPAddress? {
        switch peerAddress {
        case .text(let text):
            return resolver.clientAddress(peer: text, forwardedFor: forwardedFor)
        case .socket(let socket):
            let address: IPAddress?
            switch socket {
            case .v4(let v4)?:
                address = .v4(UInt32(bigEndian: v4.address.sin_addr.s_addr))
            case .v6(let v6)?:
                var bytes = v6.address.sin6_addr
                address = withUnsafeBytes(of: &bytes) { raw in
                    .v6(raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian, raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian)
                }
            case .unixDomainSocket?, nil:
                address = nil
            }
            return resolver.clientAddress(peerAddress: address, forwardedFor: forwardedFor)
        }
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
