/// Decides the client address of a request that may have passed through reverse proxies.
///
/// The socket peer is the client unless it is a trusted proxy. Behind a trusted proxy the
/// X-Forwarded-For entries are walked from right (nearest hop) to left, skipping trusted
/// proxies; the first untrusted entry is the client. The walk never moves past something it
/// cannot verify: an unparsable entry, an oversized header value, or the entry limit ends the
/// walk at the last trusted hop seen. The returned address is always ``IPAddress/unmapped``.
package struct ClientAddressResolver: Sendable {
    /// The most X-Forwarded-For entries examined per request.
    package static let maximumEntries = 32
    /// Header values longer than this many bytes are not parsed.
    package static let maximumHeaderValueLength = 4096

    package let trustedProxies: [IPNetwork]
    package let trustLoopback: Bool

    /// `trustedProxies`: networks whose X-Forwarded-For we believe. Loopback is trusted by default (`trustLoopback: true`).
    package init(trustedProxies: [IPNetwork] = [], trustLoopback: Bool = true) {
        self.trustedProxies = trustedProxies
        self.trustLoopback = trustLoopback
    }

    /// Whether X-Forwarded-For entries added by `address` are believed.
    package func isTrusted(_ address: IPAddress) -> Bool {
        if trustLoopback && address.isLoopback { return true }
        return trustedProxies.contains { $0.contains(address) }
    }

    /// `peer`: the socket peer address text (may be nil, e.g. unix socket); `forwardedFor`: every X-Forwarded-For header value in order (each may hold a comma-separated list).
    ///
    /// The peer and each entry may carry a port (`1.2.3.4:5678`, `[2001:db8::1]:443`).
    /// A nil peer (unix socket) is a local connection and is trusted exactly when loopback is;
    /// an unparsable peer yields nil. If every entry is trusted the leftmost one is the client;
    /// with no usable entries the trusted peer itself is.
    package func clientAddress(peer: String?, forwardedFor: [String]) -> IPAddress? {
        guard let peer else { return clientAddress(peerAddress: nil, forwardedFor: forwardedFor) }
        guard let address = IPText.host(Array(peer.utf8)[...]) else { return nil }
        return clientAddress(peerAddress: address, forwardedFor: forwardedFor)
    }

    /// The same for a socket peer whose address is known already (nil: a unix socket).
    package func clientAddress(peerAddress: IPAddress?, forwardedFor: [String]) -> IPAddress? {
        var lastTrusted: IPAddress?
        if let address = peerAddress {
            guard isTrusted(address) else { return address.unmapped }
            lastTrusted = address
        } else {
            guard trustLoopback else { return nil }
        }

        var examined = 0
        for value in forwardedFor.reversed() {
            // An oversized value cannot be verified, so nothing to its left can be either.
            guard value.utf8.count <= Self.maximumHeaderValueLength else { return lastTrusted?.unmapped }
            let bytes = Array(value.utf8)
            // Entry by entry from the right, empty ones included (they end the walk).
            var end = bytes.endIndex
            while true {
                guard examined < Self.maximumEntries else { return lastTrusted?.unmapped }
                examined += 1
                let start = bytes[..<end].lastIndex(of: IPText.comma).map { $0 + 1 } ?? bytes.startIndex
                guard let hop = IPText.host(IPText.trimmingWhitespace(bytes[start..<end])) else {
                    return lastTrusted?.unmapped
                }
                guard isTrusted(hop) else { return hop.unmapped }
                lastTrusted = hop
                guard start > bytes.startIndex else { break }
                end = start - 1
            }
        }
        return lastTrusted?.unmapped
    }
}
