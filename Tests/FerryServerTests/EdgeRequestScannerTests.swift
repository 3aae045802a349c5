#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
@testable import FerryServer
import FerryTestSupport
import Testing

/// The fast path's reading of request heads: a strict subset of HTTP/1.1, where anything outside it is left to the
/// framework's decoder, and where every request read has exactly the length any reading of HTTP gives it.
@Suite("The edge's request scanner", .takesTurns)
struct EdgeRequestScannerTests {
    static func scan(_ text: String) -> EdgeScan {
        Array(text.utf8).withUnsafeBytes { EdgeRequestScanner.scan($0) }
    }

    static let browser = "GET /sale?utm_source=x HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: Mozilla/5.0 (Test)\r\n"
        + "accept-language: de-DE,de;q=0.9\r\nReferer:  https://news.example/a  \r\nX-Forwarded-For: 203.0.113.9\r\n"
        + "x-forwarded-for: 198.51.100.1, 10.0.0.1\r\nConnection: Keep-Alive\r\n\r\n"

    @Test func aBrowsersHeadIsReadWithTheFieldsTheClickNeeds() throws {
        guard case .request(let request) = Self.scan(Self.browser + "GET /next HTTP/1.1\r\n") else {
            Issue.record("not read")
            return
        }
        #expect(request.headLength == Self.browser.utf8.count, "the head ends at its empty line; what follows is the next request")
        #expect(request.bodyLength == 0 && request.isGET && request.isHTTP11 && !request.asksForMore)
        #expect(request.target == "/sale?utm_source=x")
        #expect(request.hosts == ["go.example.com"])
        #expect(request.userAgent == "Mozilla/5.0 (Test)")
        #expect(request.acceptLanguage == "de-DE,de;q=0.9", "names are matched whatever their case")
        #expect(request.referer == "https://news.example/a", "whitespace around a value is not part of it")
        #expect(request.forwardedFor == ["203.0.113.9", "198.51.100.1, 10.0.0.1"], "every field, in order")
    }

    @Test func everyPrefixOfAHeadWaitsForMore() {
        for length in 0..<Self.browser.utf8.count {
            let prefix = String(decoding: Array(Self.browser.utf8)[..<length], as: UTF8.self)
            #expect(Self.scan(prefix) == .incomplete, "\(length) bytes")
        }
    }

    @Test func repeatedFieldsAreJoinedAsTheFrameworkJoinsThem() throws {
        let text = "GET /a HTTP/1.1\r\nHost: h\r\nUser-Agent: one\r\nUser-Agent: two\r\nHost: other\r\n\r\n"
        guard case .request(let request) = Self.scan(text) else {
            Issue.record("not read")
            return
        }
        #expect(request.userAgent == "one, two")
        #expect(request.hosts == ["h", "other"], "two hosts are read, and the click is then left to the framework")
    }

    @Test func aBodyIsCountedIntoTheRequestsLength() throws {
        let text = "POST /v1/links HTTP/1.1\r\nHost: h\r\nContent-Length:  12 \r\n\r\n{\"a\":\"b\"}..."
        guard case .request(let request) = Self.scan(text) else {
            Issue.record("not read")
            return
        }
        #expect(!request.isGET && request.bodyLength == 12)
        #expect(request.length == text.utf8.count)
    }

    @Test func anythingButAPlainKeepAliveExchangeIsMarked() throws {
        for field in ["Connection: close", "Connection: keep-alive, Upgrade", "Upgrade: websocket", "Expect: 100-continue"] {
            guard case .request(let request) = Self.scan("GET /a HTTP/1.1\r\nHost: h\r\n\(field)\r\n\r\n") else {
                Issue.record("not read: \(field)")
                continue
            }
            #expect(request.asksForMore, "\(field)")
        }
        guard case .request(let old) = Self.scan("GET /a HTTP/1.0\r\nHost: h\r\n\r\n") else {
            Issue.record("HTTP/1.0 not read")
            return
        }
        #expect(!old.isHTTP11)
    }

    @Test(arguments: [
        "GET /a HTTP/1.1\r\nHost: h\r\n folded: value\r\n\r\n",            // a folded field
        "GET /a HTTP/1.1\r\nHost: h\r\nX-A: b\r\n continued\r\n\r\n",       // a continuation line
        "GET /a HTTP/1.1\nHost: h\n\n",                                     // bare line feeds
        "GET /a HTTP/1.1\r\nHost: h\rX: y\r\n\r\n",                         // a bare carriage return
        "GET /a HTTP/1.1\r\nHost : h\r\n\r\n",                              // a space before the colon
        "GET /a HTTP/1.1\r\nHost: h\u{0}x\r\n\r\n",                         // a NUL in a value
        "GET /a HTTP/1.1\r\nHost: h\u{7F}\r\n\r\n",                         // DEL in a value
        "GET /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", // chunked framing
        "GET /a HTTP/1.1\r\nHost: h\r\ntransfer-encoding: identity\r\n\r\n",
        "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",  // two lengths, even equal
        "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc",
        "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabc",
        "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 1234567890123456\r\n\r\n",
        "\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\n",                           // a leading empty line
        "GET /a HTTP/2.0\r\nHost: h\r\n\r\n",
        "GET /a http/1.1\r\nHost: h\r\n\r\n",
        "GET  /a HTTP/1.1\r\nHost: h\r\n\r\n",                              // two spaces
        "GET /a\tb HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET /\u{E9} HTTP/1.1\r\nHost: h\r\n\r\n",                          // a target that is not ASCII
        "G(T /a HTTP/1.1\r\nHost: h\r\n\r\n",                               // a method that is not a token
        "GET /a HTTP/1.1 \r\nHost: h\r\n\r\n",
        "GET /a HTTP/1.1\r\n: empty name\r\n\r\n",
    ])
    func whatTheScannerDoesNotReadGoesToTheDecoder(text: String) {
        #expect(Self.scan(text) == .unsupported)
    }

    @Test func longHeadsAndManyFieldsGoToTheDecoder() {
        let long = "GET /a HTTP/1.1\r\nHost: h\r\nCookie: " + String(repeating: "x", count: EdgeRequestScanner.maximumHeadBytes)
        #expect(Self.scan(long) == .unsupported, "no end within the longest head read here")
        #expect(Self.scan(String(long.prefix(4000))) == .incomplete)
        let many = "GET /a HTTP/1.1\r\nHost: h\r\n" + (0..<EdgeRequestScanner.maximumFields).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        #expect(Self.scan(many) == .unsupported)
    }

    @Test func valuesMayCarryTabsAndBytesBeyondASCII() throws {
        let text = "GET /a HTTP/1.1\r\nHost: h\r\nUser-Agent: a\tb \u{E9}\r\n\r\n"
        guard case .request(let request) = Self.scan(text) else {
            Issue.record("not read")
            return
        }
        #expect(request.userAgent == "a\tb \u{E9}")
    }
}

extension EdgeRequestScannerTests {
    /// NIO's decoder frames no body for CONNECT, whatever `Content-Length` says, and reads no request after it (the
    /// bytes that follow are a tunnel): the scanner does not read it, so it never counts a body the decoder does not.
    @Test func connectIsLeftToTheDecoder() {
        #expect(Self.scan("CONNECT /home HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello") == .unsupported)
        #expect(Self.scan("CONNECT go.example.com:443 HTTP/1.1\r\nHost: go.example.com:443\r\n\r\n") == .unsupported)
        #expect(Self.scan("CONNECT") == .incomplete, "a method not complete yet may be any")
        guard case .request(let other) = Self.scan("CONNECTS /a HTTP/1.1\r\nHost: h\r\n\r\n") else {
            Issue.record("another method that starts alike is read")
            return
        }
        #expect(!other.isGET)
    }
}
#endif
