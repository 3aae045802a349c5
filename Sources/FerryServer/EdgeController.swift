#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// The public face of a link domain: clicks, association files, the interstitial's script.
struct EdgeController: Sendable {
    /// Where the interstitial's reports of devices go.
    let attributor: Attributor
    /// Host → app → link domain → link, for the router and the fast path alike.
    let resolver: LinkResolver
    let recorder: ClickRecorder
    let classifier: UserAgentClassifier
    let clickRouter: ClickRouter
    let now: @Sendable () -> Date
    /// Random bytes for click ids, drawn from the system a page at a time.
    let random = RandomPool()
    /// How many clicks the fast path answered (shared with `/metrics`).
    let counters: EdgeCounters
    /// The association files of the link domains.
    let associations: AssociationFileSource
    /// Firebase Dynamic Links long links (`/?link=…`).
    let longLinks: LongLinks

    static let hostHeader = HTTPField.Name("Host")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!
    static let robotsTag = HTTPField.Name("X-Robots-Tag")!

    func register(on router: Router<FerryRequestContext>) {
        for path in [FerryRoutes.appleAppSiteAssociation, "/apple-app-site-association"] {
            router.get(RouterPath(path)) { request, _ in try await association(request, apple: true) }
        }
        router.get(RouterPath(FerryRoutes.assetLinks)) { request, _ in try await association(request, apple: false) }
        router.get(RouterPath(HTML.interstitialScriptPath)) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/javascript; charset=utf-8"
            headers[.cacheControl] = "public, max-age=3600"
            headers[Self.contentTypeOptions] = "nosniff"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: InterstitialPage.script)))
        }
        router.post(RouterPath(HTML.signalsPath)) { request, _ in try await signals(request) }
        router.get("/") { request, context in try await root(request, context: context) }
        // A link is `/{slug}` or `/link/{slug}` on a link domain or any subdomain of one (the `/link/` form is the one
        // subdomain links are shared in), under the domain's path prefix if it has one; a slug may have several
        // segments. What the path names is read from the raw path (`LinkPath`), as the fast path reads it: the
        // routes only send every other path here. (`/link/**` because the router does not come back to `/**` once
        // it took the first segment as the constant `link`.)
        for path in ["/**", "/link/**"] {
            router.get(RouterPath(path)) { request, context in try await click(request, context: context) }
            router.head(RouterPath(path)) { request, context in try await click(request, context: context, head: true) }
        }
        // The fixed paths answer 405 for the methods they do not have; any other method and path is a link that does
        // not exist (the 404 page).
        MethodGuard.register(on: router, Self.allowedMethods)
    }

    /// The link domain's fixed paths and the methods each has.
    static let allowedMethods: [(path: String, allowed: [String])] = [
        (FerryRoutes.appleAppSiteAssociation, ["GET"]), ("/apple-app-site-association", ["GET"]), (FerryRoutes.assetLinks, ["GET"]),
        (HTML.interstitialScriptPath, ["GET"]), (HTML.signalsPath, ["POST"]), ("/", ["GET"]),
    ]

    /// The fields by which a browser says a request is speculative.
    static let prefetchFields = PrefetchHeaders.names.compactMap { HTTPField.Name($0) }

    /// What the framework's request says of a click.
    static func clickRequest(_ request: Request, context: FerryRequestContext, query: String?) -> ClickRequest {
        ClickRequest(
            userAgent: request.headers[.userAgent], referer: request.headers[.referer], acceptLanguage: request.headers[.acceptLanguage],
            forwardedFor: request.headers[values: forwardedFor], query: query, peer: .text(context.peerAddress),
            prefetch: prefetchFields.contains { request.headers[values: $0].contains(where: PrefetchHeaders.isSpeculative) }
        )
    }

    /// The lookup form of the request's host.
    static func host(of request: Request) -> String? {
        DomainName.normalizeHostHeader(request.headers[hostHeader] ?? request.head.authority)
    }

    /// A request for a path that may name a link (any path no fixed route has), read from the raw path.
    func click(_ request: Request, context: FerryRequestContext, head: Bool = false) async throws -> Response {
        guard let host = Self.host(of: request) else { return page(.notFound, head: head) }
        let click = Self.clickRequest(request, context: context, query: request.uri.query)
        let resolution = try await resolver.resolve(.click, host: host, path: request.uri.path, asker: .origin(click.origin))
        // `/{prefix}/?link=…`: a long link at the root of a domain with a path prefix.
        if case .app = resolution, let query = request.uri.query, LongLink.isLongLink(query: query) {
            return try await longLink(request, context: context, host: host, query: query, head: head)
        }
        // `?d=1`: the link's debug view instead of the click (an unknown slug is the ordinary 404 page).
        if LinkDebugReport.isRequested(byQuery: request.uri.query ?? ""), case .link(let resolved) = resolution, resolved.isServedHere {
            return respond(await debugPage(resolved), head: head)
        }
        return respond(answer(resolution, click: click, head: head), head: head)
    }

    /// The debug view of a link (`?d=1`): where it sends each visitor and what is wrong, as a page. Not a click:
    /// nothing is recorded.
    func debugPage(_ resolved: ResolvedLink) async -> EdgeAnswer {
        var page = EdgeAnswer.html(await debugger.report(for: resolved.link, app: resolved.app).render(), status: .ok)
        page.fields.append((Self.robotsTag, "noindex, nofollow"))
        return page
    }

    /// Debug reports of links, with the association files this edge serves.
    var debugger: LinkDebugger { LinkDebugger(associations: associations, now: now) }

    /// A click answered without waiting, or nil when that cannot be done (the caller then takes the framework's
    /// route, which asks the database with a deadline): from the cache, or, for a link the cache does not hold on a
    /// store that can read it at once (SQLite), from a point read on the calling thread. The host's app must be in
    /// the cache. The root of a domain with a path prefix is the framework's to answer too.
    func answerFromCache(host: String, path: String, click: ClickRequest) -> EdgeAnswer? {
        switch resolver.resolveNow(host: host, path: path, origin: click.origin) {
        case nil, .app?: nil
        case let resolution?: answer(resolution, click: click, head: false)
        }
    }

    /// The answer to a click, whichever path resolved it: the link's (when the app that serves the host may answer
    /// it), or a page: 404 for a link that does not exist, 410-style for a link on a domain its app dropped, 429 for
    /// an address over its limit of unknown slugs, 503 when the database is away; at the root of a domain with a path
    /// prefix, what the domain's root answers.
    func answer(_ resolution: LinkResolution, click: ClickRequest, head: Bool) -> EdgeAnswer {
        switch resolution {
        case .link(let resolved): resolved.isServedHere ? answer(resolved, click: click, head: head) : .page(.domainRetired)
        case .retired: .page(.domainRetired)
        case .app(let app): Self.rootAnswer(app?.value)
        case .unknown: .page(.notFound)
        case .tooManyUnknownSlugs(let wait): .tooManyUnknownSlugs(retryAfter: wait)
        case .unavailable: .page(.unavailable)
        }
    }

    /// The answer to a click on a known link: where it goes (by platform), recorded unless it is a HEAD or a page
    /// that records nothing.
    func answer(_ resolved: ResolvedLink, click request: ClickRequest, head: Bool) -> EdgeAnswer {
        let client = request.client ?? classifier.classify(request.userAgent)
        let query = Self.safeQuery(request.query)
        var generator = random.generator
        let time = now()
        let clickID = Identifiers.makeTimeOrdered(prefix: "clk", at: time, using: &generator)
        let decision = clickRouter.decide(link: resolved.link, app: resolved.app, client: client, query: query, clickID: clickID, now: time)
        if decision.records && !head {
            // The recorder tells the address as it takes the click, and works out its hashes off the request's thread.
            recorder.record(Click(
                id: clickID, linkID: resolved.link.id, appID: resolved.app.id, environment: resolved.link.environment, createdAt: time,
                ipHash: nil, networkHash: nil,
                userAgent: Self.bounded(request.userAgent, 1024), platform: client.platform,
                referer: Self.bounded(request.referer, 2048), query: query,
                acceptLanguage: Self.bounded(request.acceptLanguage, 256),
                osVersion: client.osVersion, appleDevice: client.appleDevice,
                traffic: ClickTraffic.of(client: client, prefetch: request.prefetch)
            ), origin: request.origin)
        }
        switch decision {
        case .redirect(let location):
            return EdgeAnswer(status: .found, fields: [
                (.location, location), (.cacheControl, "no-store"), (Self.referrerPolicy, "no-referrer-when-downgrade"),
            ], body: nil, kind: .redirect)
        case .preview(let page):
            var answer = EdgeAnswer.html(page.render(), status: .ok)
            answer.kind = .preview
            return answer
        case .interstitial(let page):
            var answer = EdgeAnswer.html(page.render(), status: .ok)
            answer.kind = .interstitial
            return answer
        case .status(let page):
            return .page(page)
        }
    }

    /// What the interstitial's script reports about the device: `{"click": "clk_…", "signals": {…}, "browser": "…"}`,
    /// sent with `navigator.sendBeacon` (so any content type is accepted); `browser` is the id the page keeps in the
    /// browser's storage, ignored unless well-formed. Answers 204; only the first report of a click counts.
    func signals(_ request: Request) async throws -> Response {
        guard let host = Self.host(of: request), let app = try await resolver.app(forHost: host)?.value else {
            throw APIError(.notFound, message: "no app serves links on this host")
        }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: 4096) } catch {
            throw APIError(.bodyTooLarge, message: "signals must be at most 4096 bytes")
        }
        struct Report: Decodable { var click: String; var signals: DeviceSignals; var browser: String? }
        let report: Report
        do { report = try FerryJSON.makeDecoder().decode(Report.self, from: Data(buffer.readableBytesView)) } catch let error as DecodingError {
            throw APIError(error)
        } catch {
            throw APIError(.invalidJSON, message: "request body is not valid JSON")
        }
        guard AttributionRules.isClickID(report.click) else {
            throw APIError(.invalidField, message: "click must be the page's click id", field: "click")
        }
        try await attributor.describe(clickID: report.click, app: app, signals: report.signals,
                                      browser: report.browser.flatMap { AttributionRules.isBrowserID($0) ? $0 : nil })
        return Response(status: .noContent)
    }

    /// The domain's root: a long link (`/?link=…`), else the app's fallback page, or a 404 page.
    func root(_ request: Request, context: FerryRequestContext, head: Bool = false) async throws -> Response {
        guard let host = Self.host(of: request) else { return page(.notFound, head: head) }
        if let query = request.uri.query, LongLink.isLongLink(query: query) {
            return try await longLink(request, context: context, host: host, query: query, head: head)
        }
        return respond(Self.rootAnswer(try await resolver.app(forHost: host)?.value), head: head)
    }

    /// What the root of an app's domain (`/`, or the domain's path prefix) answers: a redirect to the app's fallback
    /// page, or a 404 page.
    static func rootAnswer(_ app: App?) -> EdgeAnswer {
        guard let fallback = app?.fallbackURL else { return .page(.notFound) }
        return EdgeAnswer(status: .found, fields: [(.location, fallback), (.cacheControl, "no-store")], body: nil, kind: .redirect)
    }

    /// A click on a long link: answered as its link (recorded like a short link's click), or a 400 page naming what
    /// is wrong with it; never a redirect the app's allowlist does not allow.
    func longLink(_ request: Request, context: FerryRequestContext, host: String, query: String, head: Bool) async throws -> Response {
        let click = Self.clickRequest(request, context: context, query: query)
        let debug = LinkDebugReport.isRequested(byQuery: query)
        switch try await longLinks.resolve(host: host, query: query, asker: .origin(click.origin), storing: debug ? .never : .inBackground) {
        case .link(let resolved) where debug:
            // `?link=…&d=1`: the long link's debug view, as for a short link; not a click, so nothing is stored.
            return respond(await debugPage(resolved), head: head)
        case .link(let resolved): return respond(answer(resolved, click: click, head: head), head: head)
        case .refused(let refusal): return page(refusal.page, head: head)
        case .resolution(let resolution): return respond(answer(resolution, click: click, head: head), head: head)
        }
    }

    func association(_ request: Request, apple: Bool) async throws -> Response {
        guard let host = Self.host(of: request), let app = try await resolver.app(forHost: host)?.value else {
            throw APIError(.notFound, message: "no app serves links on this host")
        }
        let data = apple ? await associations.apple(for: app, host: host) : associations.android(for: app)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=300"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func page(_ page: StatusPage, head: Bool) -> Response {
        respond(EdgeAnswer.page(page), head: head)
    }

    /// The framework's response to an answer, counted by its kind.
    func respond(_ answer: EdgeAnswer, head: Bool) -> Response {
        counters.metrics.edgeAnswered(answer.kind)
        return answer.response(head: head)
    }

    func html(_ text: String, status: HTTPResponse.Status, head: Bool) -> Response {
        Self.html(text, status: status, head: head)
    }

    /// An HTML page with Ferry's security headers.
    static func html(_ text: String, status: HTTPResponse.Status, head: Bool) -> Response {
        EdgeAnswer.html(text, status: status).response(head: head)
    }

    /// The click's query, kept only when it is bounded printable ASCII (it is copied into a Location header).
    static func safeQuery(_ query: String?) -> String? {
        guard let query, !query.isEmpty, query.utf8.count <= QueryString.maxBytes,
              query.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "#") })
        else { return nil }
        return query
    }

    static func bounded(_ text: String?, _ limit: Int) -> String? {
        guard let text, !text.isEmpty else { return nil }
        if text.utf8.count <= limit { return text }
        var cut = text.utf8.prefix(limit)
        while !cut.isEmpty, String(cut) == nil { cut = cut.dropLast() }
        return String(cut)
    }
}

/// Counters of the edge, for `/metrics`.
final class EdgeCounters: Sendable {
    /// Clicks answered by `EdgeFastPath`, from memory on their connection's event loop.
    let fastAnswers = Atomic<Int>(0)
    /// The server's metrics: the answers by kind, and the fast path's requests by status and time.
    let metrics: ServerMetrics

    init(metrics: ServerMetrics) { self.metrics = metrics }
}

/// A click on a slug the cache does not know, from an address over its limit of unknown slugs.
struct UnknownSlugFlood: Error {
    var retryAfter: Int
}

/// What the answer to a click depends on, taken from the request by whichever path serves it.
struct ClickRequest {
    var userAgent: String?
    var referer: String?
    var acceptLanguage: String?
    /// Every `X-Forwarded-For` field, in order.
    var forwardedFor: [String]
    /// The raw query, without `?`.
    var query: String?
    /// The socket peer.
    var peer: ClickOrigin.Peer
    /// What the fast path already knows of the user agent (it keeps the last one of its connection), or nil.
    var client: ClientInfo? = nil
    /// Whether the browser said the request is speculative (`PrefetchHeaders`).
    var prefetch = false

    /// Where the click comes from.
    var origin: ClickOrigin { ClickOrigin(peer: peer, forwardedFor: forwardedFor) }
}

/// An answer of the link domain, before it becomes the framework's `Response` or is written straight to a
/// connection by `EdgeFastPath`: both paths send the same status, headers and body.
struct EdgeAnswer {
    var status: HTTPResponse.Status
    /// Header fields in order (values are made legal when they are written: see `legal(_:)`).
    var fields: [(name: HTTPField.Name, value: String)]
    /// Nil for a redirect.
    var body: String?
    /// What it is, for `ferry_edge_answers_total`.
    var kind: EdgeAnswerKind = .otherPage

    /// A status page (404, 429, 503…) with the page headers.
    static func page(_ page: StatusPage) -> EdgeAnswer {
        var answer = html(page.render(), status: HTTPResponse.Status(code: page.status))
        answer.kind = .page(status: page.status)
        if page.status == 503 { answer.fields.append((.retryAfter, "5")) }
        return answer
    }

    /// 429 for an address that clicked too many slugs that do not exist.
    static func tooManyUnknownSlugs(retryAfter: Int) -> EdgeAnswer {
        var answer = page(.tooManyRequests)
        answer.fields.append((.retryAfter, String(retryAfter)))
        return answer
    }

    /// An HTML page with Ferry's security headers.
    static func html(_ text: String, status: HTTPResponse.Status) -> EdgeAnswer {
        EdgeAnswer(status: status, fields: [
            (.contentType, "text/html; charset=utf-8"), (.cacheControl, "no-store"),
            (EdgeController.contentSecurityPolicy, HTML.contentSecurityPolicy), (EdgeController.contentTypeOptions, "nosniff"),
            (EdgeController.frameOptions, "DENY"), (EdgeController.referrerPolicy, "strict-origin-when-cross-origin"),
        ], body: text)
    }

    /// A field with a legal value, as `HTTPField` makes it (a byte a field value may not hold becomes a space): the
    /// values are already legal but for a bug, so each is checked and only an illegal one is remade.
    static func legal(_ field: (name: HTTPField.Name, value: String)) -> (name: HTTPField.Name, value: String) {
        HTTPField.isValidValue(field.value) ? field : (field.name, HTTPField(name: field.name, value: field.value).value)
    }

    /// The framework's response; a HEAD answer has the body's length and no body.
    func response(head: Bool) -> Response {
        var headers = HTTPFields()
        for field in fields { headers.append(HTTPField(name: field.name, value: field.value)) }
        guard let body else { return Response(status: status, headers: headers) }
        if head {
            headers[.contentLength] = String(body.utf8.count)
            return Response(status: status, headers: headers)
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
#endif
