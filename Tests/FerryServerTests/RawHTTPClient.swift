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

    /// Sends bytes and reads until the server closes; a read that waits 10 s without the server closing fails. With
    /// `pieces`, the bytes go in writes of that many bytes, `pause` microseconds apart (a slow client, split heads).
    static func exchange(port: Int, bytes: [UInt8], pieces: Int? = nil, pause: UInt32 = 3000) throws -> [UInt8] {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to port \(port) failed") }
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
                throw Failure(description: "the server neither answered nor closed within 10 s (\(received.count) bytes read)")
            }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
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
