#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore

/// A request head read straight from the bytes of a connection by the edge's fast path, before the HTTP decoder.
///
/// The scanner accepts a strict subset of HTTP/1.1 (RFC 9112), the form every browser, crawler and proxy sends:
/// a request line `METHOD SP target SP HTTP/1.x CRLF` with a target of visible ASCII, then `name: value CRLF` fields
/// whose names are tokens and whose values hold no control character but tab, then an empty line. Anything else —
/// a field folded over two lines, a bare LF or CR, a space before a colon, `Transfer-Encoding`, two
/// `Content-Length`s, leading empty lines, a head longer than `maximumHeadBytes`, the method `CONNECT` — is not read
/// here at all: the connection goes to the framework's decoder from that byte on, which answers it as it always
/// would. So the fast path and the decoder never disagree about where a request ends: wherever the scanner reads a
/// request, its length is that of any reading of HTTP.
struct EdgeRequest: Equatable {
    /// Bytes of the head, up to and including its empty line.
    var headLength: Int
    /// The body's length (`Content-Length`; no body without one).
    var bodyLength: Int
    var isGET: Bool
    var isHTTP11: Bool
    /// The request target, as sent.
    var target: String
    /// The first `Host` value, and any others (one is expected; an empty array costs no allocation).
    var host: String?
    var otherHosts: [String] = []
    /// Every `Host` value.
    var hosts: [String] { host.map { [$0] + otherHosts } ?? [] }
    /// Field values, with repeated fields joined by ", " as the framework joins them.
    var userAgent: String?
    var referer: String?
    var acceptLanguage: String?
    /// Every `X-Forwarded-For` field, in order.
    var forwardedFor: [String]
    /// Whether anything asks for more than a plain keep-alive exchange: `Connection` with a token other than
    /// `keep-alive`, `Upgrade`, `Expect`.
    var asksForMore: Bool
    /// Whether a field says the request is a browser's speculative fetch (`PrefetchHeaders`).
    var prefetch = false

    /// The whole request's length in bytes.
    var length: Int { headLength + bodyLength }
}

/// What scanning the start of a connection's unread bytes found.
enum EdgeScan: Equatable {
    /// A head not yet complete: more bytes are needed.
    case incomplete
    /// Something the scanner does not read: the framework's decoder must take the connection from here.
    case unsupported
    /// A complete head.
    case request(EdgeRequest)
}

enum EdgeRequestScanner {
    /// The longest head the scanner reads; a longer one goes to the decoder, with its own limits.
    static let maximumHeadBytes = 8192
    /// The most fields in a head the scanner reads.
    static let maximumFields = 64

    static func scan(_ bytes: UnsafeRawBufferPointer) -> EdgeScan {
        var position = 0
        let end = min(bytes.count, maximumHeadBytes)

        // Request line.
        let methodStart = position
        while position < end, isTokenByte(bytes[position]) { position += 1 }
        if position == end { return bytes.count >= maximumHeadBytes ? .unsupported : .incomplete }
        guard position > methodStart, bytes[position] == space else { return .unsupported }
        let isGET = position - methodStart == 3 && bytes[methodStart] == ascii("G") && bytes[methodStart + 1] == ascii("E")
            && bytes[methodStart + 2] == ascii("T")
        // CONNECT has no body whatever its fields say, and the bytes after its head are a tunnel, not requests.
        if position - methodStart == connectMethod.count, zip(connectMethod, bytes[methodStart..<position]).allSatisfy({ $0 == $1 }) {
            return .unsupported
        }
        position += 1
        let targetStart = position
        while position < end, (0x21...0x7E).contains(bytes[position]) { position += 1 }
        if position == end { return bytes.count >= maximumHeadBytes ? .unsupported : .incomplete }
        guard position > targetStart, bytes[position] == space else { return .unsupported }
        let target = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<position]), as: UTF8.self)
        position += 1
        let version = Self.versionPrefix
        guard end - position >= version.count + 3 else { return bytes.count >= maximumHeadBytes ? .unsupported : .incomplete }
        for byte in version {
            guard bytes[position] == byte else { return .unsupported }
            position += 1
        }
        let minor = bytes[position]
        guard minor == ascii("1") || minor == ascii("0") else { return .unsupported }
        position += 1
        guard bytes[position] == cr, bytes[position + 1] == lf else { return .unsupported }
        position += 2

        // Fields, until the empty line.
        var request = EdgeRequest(headLength: 0, bodyLength: 0, isGET: isGET, isHTTP11: minor == ascii("1"), target: target, host: nil,
                                  forwardedFor: [], asksForMore: false)
        var contentLengths = 0
        var fields = 0
        while true {
            if end - position < 2 { return bytes.count >= maximumHeadBytes ? .unsupported : .incomplete }
            if bytes[position] == cr {
                guard bytes[position + 1] == lf else { return .unsupported }
                request.headLength = position + 2
                return .request(request)
            }
            fields += 1
            guard fields <= maximumFields else { return .unsupported }
            let nameStart = position
            while position < end, isTokenByte(bytes[position]) { position += 1 }
            if position == end { return bytes.count >= maximumHeadBytes ? .unsupported : .incomplete }
            // No name (a folded line starts with a space), or anything but a colon right after the name.
            guard position > nameStart, bytes[position] == colon else { return .unsupported }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<position])
            position += 1
            while position < end, bytes[position] == space || bytes[position] == tab { position += 1 }
            let valueStart = position
            var valueEnd = position
            while position < end {
                let byte = bytes[position]
                if byte == cr { break }
                guard byte == tab || byte >= 0x20, byte != 0x7F else { return .unsupported }
                position += 1
                if byte != space && byte != tab { valueEnd = position }
            }
            if end - position < 2 { return bytes.count >= maximumHeadBytes ? .unsupported : .incomplete }
            guard bytes[position + 1] == lf else { return .unsupported }
            position += 2
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            switch fieldKind(name) {
            case .host:
                if request.host == nil { request.host = text(value) } else { request.otherHosts.append(text(value)) }
            case .userAgent: request.userAgent = joined(request.userAgent, text(value))
            case .referer: request.referer = joined(request.referer, text(value))
            case .acceptLanguage: request.acceptLanguage = joined(request.acceptLanguage, text(value))
            case .forwardedFor: request.forwardedFor.append(text(value))
            case .contentLength:
                contentLengths += 1
                guard contentLengths == 1, (1...15).contains(value.count), value.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    return .unsupported
                }
                request.bodyLength = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            case .transferEncoding:
                return .unsupported
            case .connection:
                if !isKeepAliveOnly(value) { request.asksForMore = true }
            case .upgrade, .expect:
                request.asksForMore = true
            case .purpose:
                if !request.prefetch, PrefetchHeaders.isSpeculative(text(value)) { request.prefetch = true }
            case .other:
                break
            }
        }
    }

    // MARK: Bytes

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let colon = UInt8(ascii: ":")

    private static func ascii(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }

    /// RFC 9110's `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Field values become text as the framework makes them (bytes that are not UTF-8 become U+FFFD).
    private static func text(_ value: UnsafeRawBufferPointer) -> String {
        String(decoding: value, as: UTF8.self)
    }

    private static func joined(_ earlier: String?, _ value: String) -> String {
        earlier.map { $0 + ", " + value } ?? value
    }

    private enum FieldKind {
        case host, userAgent, referer, acceptLanguage, forwardedFor, contentLength, transferEncoding, connection, upgrade, expect, purpose
        case other
    }

    private static let versionPrefix = Array("HTTP/1.".utf8)
    private static let connectMethod = Array("CONNECT".utf8)
    private static let keepAliveToken = Array("keep-alive".utf8)

    private static let kinds: [(name: [UInt8], kind: FieldKind)] = {
        let names: [(String, FieldKind)] = [
            ("host", .host), ("user-agent", .userAgent), ("referer", .referer), ("accept-language", .acceptLanguage),
            ("x-forwarded-for", .forwardedFor), ("content-length", .contentLength), ("transfer-encoding", .transferEncoding),
            ("connection", .connection), ("upgrade", .upgrade), ("expect", .expect),
        ] + PrefetchHeaders.names.map { ($0, .purpose) }
        return names.map { (Array($0.0.utf8), $0.1) }
    }()

    private static func fieldKind(_ name: UnsafeRawBufferPointer) -> FieldKind {
        for (known, kind) in kinds where known.count == name.count {
            var same = true
            for index in 0..<name.count where name[index] | 0x20 != known[index] {
                same = false
                break
            }
            if same { return kind }
        }
        return .other
    }

    /// Whether a `Connection` value names `keep-alive` and nothing else (case-insensitive, around commas).
    private static func isKeepAliveOnly(_ value: UnsafeRawBufferPointer) -> Bool {
        let keepAlive = Self.keepAliveToken
        for token in value.split(separator: UInt8(ascii: ",")) {
            let trimmed = token.drop { $0 == space || $0 == tab }.reversed().drop { $0 == space || $0 == tab }.reversed()
            if trimmed.isEmpty { continue }
            guard trimmed.count == keepAlive.count, zip(trimmed, keepAlive).allSatisfy({ $0 | 0x20 == $1 }) else { return false }
        }
        return true
    }
}
#endif
