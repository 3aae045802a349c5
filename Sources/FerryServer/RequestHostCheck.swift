#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Right after the HTTP decoder: marks a request that names more than one host, so that the router refuses it
/// (`HostCheckMiddleware`) instead of answering for a host the client may not have meant.
///
/// RFC 9112 asks a server to answer 400 to a request with more than one `Host` field (§3.2). A request target in
/// absolute form (`GET http://a.example/slug HTTP/1.1`) names its host too, and the RFC lets it override `Host`
/// (§3.2.2); a proxy in front of Ferry may have routed the request by the other one, so Ferry takes neither and
/// refuses a target whose host disagrees with `Host` (an absolute target without `Host` gives the request its host).
/// The check is made here because the framework's request keeps only the first `Host` as its authority and drops an
/// absolute target's host, and the router (which answers in the request's own format, JSON or a page) decides only
/// from what the request carries: the mark, a field that a client's own copy of is removed here.
final class RequestHostCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// The field that marks a request naming more than one host.
    static let markName = "Ferry-Conflicting-Host"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let hosts = head.headers["Host"]
        let absolute = Self.absoluteFormAuthority(head.uri)
        let marked = head.headers.contains(name: Self.markName)
        if hosts.count <= 1 && absolute == nil && !marked {
            context.fireChannelRead(data)
            return
        }
        head.headers.remove(name: Self.markName)
        var conflicting = hosts.count > 1
        if let absolute {
            if let host = hosts.first {
                if !Self.sameHost(absolute.authority, host, scheme: absolute.scheme) { conflicting = true }
            } else {
                head.headers.add(name: "Host", value: absolute.authority)
            }
        }
        if conflicting { head.headers.add(name: Self.markName, value: "1") }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The scheme (lowercased) and authority of an absolute-form request target (`scheme://authority/path?query`),
    /// or nil for any other form.
    static func absoluteFormAuthority(_ target: String) -> (scheme: String, authority: String)? {
        let utf8 = target.utf8
        func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) }
        guard let first = utf8.first, isLetter(first) else { return nil }
        // RFC 3986's scheme: a letter, then letters, digits, `+`, `-` and `.`.
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            guard isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") else { break }
            index = utf8.index(after: index)
        }
        guard utf8[index...].starts(with: "://".utf8) else { return nil }
        let start = utf8.index(index, offsetBy: 3)
        let end = utf8[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
        return (String(target[..<index]).lowercased(), String(target[start..<end]))
    }

    /// Whether an absolute target's authority and a `Host` value name the same host: alike but for letter case, a
    /// final dot, and the scheme's default port.
    static func sameHost(_ authority: String, _ host: String, scheme: String) -> Bool {
        func lookupForm(_ text: String) -> String? {
            guard var form = DomainName.normalizeHostHeader(text) else { return nil }
            let defaultPort = scheme == "https" ? ":443" : scheme == "http" ? ":80" : nil
            if let defaultPort, form.hasSuffix(defaultPort) { form.removeLast(defaultPort.count) }
            return form
        }
        guard let authority = lookupForm(authority), let host = lookupForm(host) else { return false }
        return authority == host
    }
}

/// At the front of the router: a request `RequestHostCheck` marked as naming more than one host gets a 400, as JSON
/// on the API's paths and as a page elsewhere.
struct HostCheckMiddleware: RouterMiddleware {
    typealias Context = FerryRequestContext
    let errors: ErrorMiddleware

    static let mark = HTTPField.Name(RequestHostCheck.markName)!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[Self.mark] != nil else { return try await next(request, context) }
        let path = request.uri.path
        guard ErrorMiddleware.isAPIPath(path) else { return EdgeAnswer.page(.conflictingHost).response(head: request.method == .head) }
        let error = APIError(.conflictingHost,
                             message: "the request names more than one host: send one Host field, and an absolute target only on that host")
        if RateLimitMiddleware.linkTracePaths.contains(RateLimitMiddleware.trimmed(path)) {
            return try await LinkTraceEnvelope.wrap(request, errors: errors) { throw error }
        }
        throw error
    }
}
#endif
