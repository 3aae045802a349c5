#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A deliberately small HTTP/1.1 client over a plain TCP socket: it sends exactly the bytes a test asks for
/// (any Host header, any path, no redirect following) and reads the answer until the server closes.
enum RawHTTPClient {
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func request(
        port: Int, method: String = "GET", path: String, host: String = "localhost",
        headers: [(String, String)] = [], body: String? = nil
    ) throws -> Response {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        let raw = try exchange(port: port, bytes: Array(text.utf8))
        return try parse(raw)
    }

    /// Sends bytes and reads until the server closes; a read that waits 30 s without the server closing fails (a
    /// bound for a server that never answers, with room for a two-core machine running the whole suite). With
    /// `pieces`, the bytes go in writes of that many bytes, `pause` microseconds apart (a slow client, split heads).
    static func exchange(port: Int, bytes: [UInt8], pieces: Int? = nil, pause: UInt32 = 3000, receiveTimeout: Int = 30) throws -> [UInt8] {
        let fd = try connected(port: port) { fd in
            var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        defer { close(fd) }
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var sent = 0
        while sent < bytes.count {
            let end = pieces.map { min(bytes.count, sent + $0) } ?? bytes.count
            let n = bytes[sent..<end].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "send failed") }
            sent += n
            if pieces != nil { usleep(pause) }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                throw Failure(description: "the server neither answered nor closed within \(receiveTimeout) s (\(received.count) bytes read)")
            }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
    }

    /// A TCP socket connected to a port on loopback, set up by `prepare` before it connects.
    static func connected(port: Int, prepare: (Int32) -> Void = { _ in }) throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        prepare(fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port) failed")
        }
        return fd
    }

    static func parse(_ raw: [UInt8]) throws -> Response {
        let text = String(decoding: raw, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure(description: "no complete response: \(text.prefix(200))") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines[0])") }
        let headers: [(String, String)] = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = String(text[split.upperBound...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }) {
            body = dechunk(body)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Every response in a stream of them (a keep-alive connection), each framed by its Content-Length or chunks.
    /// Every response in `raw`; those at `bodiless` positions answer a HEAD and have no body whatever their headers say.
    static func parseAll(_ raw: [UInt8], bodiless: Set<Int> = []) throws -> [Response] {
        var responses: [Response] = []
        var rest = raw[...]
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while !rest.isEmpty {
            guard let end = rest.indices.first(where: { rest[$0...].starts(with: separator) }) else {
                throw Failure(description: "no complete response: \(String(decoding: rest.prefix(200), as: UTF8.self))")
            }
            let head = try parse(Array(rest[..<(end + 4)]))
            var bodyEnd = end + 4
            if bodiless.contains(responses.count) {
                // A HEAD's answer ends with its head.
            } else if let length = head.header("Content-Length").flatMap({ Int($0) }) {
                bodyEnd = min(rest.endIndex, end + 4 + length)
            } else if head.header("Transfer-Encoding")?.lowercased() == "chunked" {
                let terminator: [UInt8] = Array("0\r\n\r\n".utf8)
                guard let last = rest[(end + 4)...].indices.first(where: { rest[$0...].starts(with: terminator) }) else {
                    throw Failure(description: "unterminated chunked body")
                }
                bodyEnd = last + terminator.count
            }
            responses.append(try parse(Array(rest[..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return responses
    }

    /// The data of a chunked body, worked on as bytes (a chunk's closing CR LF is one `Character` to `String`, and a
    /// chunk may end in the middle of one).
    static func dechunk(_ text: String) -> String {
        var rest = Array(text.utf8)[...]
        var out: [UInt8] = []
        while let lineEnd = rest.indices.first(where: { rest[$0...].starts(with: [13, 10]) }) {
            guard let size = Int(String(decoding: rest[..<lineEnd], as: UTF8.self), radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            guard start + size <= rest.endIndex else { break }
            out += rest[start..<(start + size)]
            rest = rest[min(rest.endIndex, start + size + 2)...]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A port that was free a moment ago.
    static func freePort() throws -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension RawHTTPClient {
    /// A connection whose client decides when it reads: one that pipelines requests and leaves the answers unread
    /// (until it is told to read them), over a non-blocking socket. `@unchecked Sendable`: a test uses it from one
    /// thread at a time, handing it from one blocking call to the next.
    final class Connection: @unchecked Sendable {
        #if canImport(Glibc)
        private static let noSignal = Int32(MSG_NOSIGNAL)
        #else
        private static let noSignal: Int32 = 0
        #endif
        private let fd: Int32
        private var received: [UInt8] = []

        /// Connects to a port on loopback; `receiveBuffer` and `sendBuffer` set the socket's buffers (so that the
        /// kernel holds little of what the peer writes, or of what this client sends, for it).
        init(port: Int, receiveBuffer: Int32? = nil, sendBuffer: Int32? = nil) throws {
            // Set before connecting, so that the window offered to the server is as small as the buffer.
            fd = try RawHTTPClient.connected(port: port) { fd in
                for (option, size) in [(SO_RCVBUF, receiveBuffer), (SO_SNDBUF, sendBuffer)] {
                    guard var size else { continue }
                    setsockopt(fd, SOL_SOCKET, option, &size, socklen_t(MemoryLayout<Int32>.size))
                }
            }
            #if !canImport(Glibc)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        deinit { close(fd) }

        /// Sends `bytes` without reading anything until the peer has taken nothing more for `patience` milliseconds
        /// (it stopped reading) or all are sent; how many bytes were sent.
        func sendWithoutReading(_ bytes: [UInt8], patience: Int32) throws -> Int {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Self.noSignal) }
                if count > 0 {
                    sent += count
                    continue
                }
                guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK else { throw Failure(description: "send failed (errno \(errno))") }
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&waiting, 1, patience) == 0 { break }
            }
            return sent
        }

        /// Reads until what was read holds `marker` (an answer sent in parts: a page that streams); all read so far.
        /// Fails when nothing comes for 10 s or the peer closes first.
        func readUntil(_ marker: [UInt8]) throws -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while received.firstRange(of: marker) == nil {
                var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&waiting, 1, 10_000) > 0 else { throw Failure(description: "nothing came for 10 s (\(received.count) bytes read)") }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count == 0 { throw Failure(description: "closed before \(String(decoding: marker, as: UTF8.self)) came") }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK { continue }
                    throw Failure(description: "recv failed (errno \(errno))")
                }
                received += buffer[0..<count]
            }
            return received
        }

        /// Sends `bytes` while reading whatever comes, until the peer closes; everything read. Fails when nothing
        /// moves either way for 10 s.
        func sendAndReadUntilClosed(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
            var rest = bytes
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                var waiting = pollfd(fd: fd, events: Int16(POLLIN) | (rest.isEmpty ? 0 : Int16(POLLOUT)), revents: 0)
                guard poll(&waiting, 1, 10_000) > 0 else {
                    throw Failure(description: "nothing moved for 10 s (\(received.count) bytes read, \(rest.count) to send)")
                }
                if !rest.isEmpty && waiting.revents & Int16(POLLOUT) != 0 {
                    let count = rest.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Self.noSignal) }
                    if count > 0 { rest = rest.dropFirst(count) }
                }
                if waiting.revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count == 0 { return received }
                    if count < 0 {
                        if errno == EAGAIN || errno == EWOULDBLOCK { continue }
                        throw Failure(description: "recv failed (errno \(errno))")
                    }
                    received += buffer[0..<count]
                }
            }
        }
    }
}
#endif
