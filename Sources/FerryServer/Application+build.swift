#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import NIOCore

/// Builds the Ferry server: routes, the click recorder and the cache refresher, over the configured store.
///
/// - Parameters:
///   - configuration: settings read at the entry point.
///   - store: an open store; the configured database is opened when nil.
///   - onServerRunning: called with the bound port once the server listens.
package func buildApplication(
    _ configuration: FerryConfiguration,
    store providedStore: (any FerryDatabase)? = nil,
    logger providedLogger: Logger? = nil,
    processServices: [any Service] = [],
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    var logger = providedLogger ?? Logger(label: "ferry")
    if providedLogger == nil { logger.logLevel = configuration.logLevel }
    let store: any FerryDatabase
    if let providedStore { store = providedStore } else { store = try await configuration.database.open() }
    let hashKey: String
    if let key = configuration.ipHashKey {
        hashKey = key
    } else {
        hashKey = try await store.insertSettingIfAbsent("ip_hash_key", value: Secrets.makeHashKey())
    }
    // The public suffix list is read once, beside start-up rather than in it, so that the first request that needs it
    // (a host looked up under its parents, a new domain) does not wait for it.
    Task.detached(priority: .utility) { _ = PublicSuffixList.bundled }
    let cache = LinkCache(capacity: configuration.linkCacheCapacity)
    // The server's own metrics registry (see ServerMetrics), which the store measures its operations into.
    let metrics = ServerMetrics()
    store.observe(with: StoreMetrics(system: store.metricsSystemName, connections: store.connectionCapacity, factory: metrics.factory))
    let admin = FerryAdmin(store: store)
    let outbox = WebhookOutbox(store: store, now: admin.now, logger: logger, allowPrivateDestinations: configuration.webhookAllowPrivateDestinations)
    let addresses = ClientAddressResolver(trustedProxies: configuration.trustedProxies)
    let hasher = AddressHasher(key: hashKey)
    let journal = try configuration.clickJournal.directory(for: providedStore == nil ? configuration.database : nil).map { path in
        try ClickJournal(directory: URL(fileURLWithPath: path, isDirectory: true), maxBytes: configuration.clickJournalMaxBytes)
    }
    let recorder = ClickRecorder(
        store: store, journal: journal, flushInterval: configuration.clickFlushInterval, batchSize: configuration.clickBatchSize,
        bufferLimit: configuration.clickBufferLimit, logger: logger, addresses: addresses, hasher: hasher,
        writerPriority: configuration.clickWriterPriority, scannerNetworks: configuration.allScannerNetworks,
        metrics: metrics, afterWrite: { await outbox.clicksStored($0) }
    )
    var dispatcher = WebhookDispatcher(
        store: store, pollInterval: configuration.webhookPollInterval, retryBase: configuration.webhookRetryBase, now: admin.now, logger: logger,
        allowPrivateDestinations: configuration.webhookAllowPrivateDestinations, settings: configuration.webhookDelivery)
    dispatcher.metrics = metrics
    let refresher = CacheRefresher(cache: cache, store: store, interval: configuration.cacheRefreshInterval, logger: logger)
    let janitor = AttributionJanitor(store: store, interval: configuration.purgeInterval, clickRetention: configuration.clickRetention,
                                     observationRetention: configuration.attributionObservationRetention,
                                     auditRetention: configuration.auditRetention, logger: logger)
    let learnt = LearntMatchers(store: store, now: admin.now, logger: logger)
    let learner = AttributionLearnerService(
        refitter: AttributionRefitter(store: store, now: admin.now, logger: logger) { learnt.forget(appID: $0.appID, environment: $0.environment) },
        interval: configuration.attributionRefitInterval)
    // Proof files are read by the client that delivers webhooks: the same checks of where a request may go, the
    // same limits.
    let domains = AppDomains(admin: admin, selfService: configuration.domainSelfService, cache: cache, prover: DomainProver(
        dns: DNSTextLookup(server: try DNSTextLookup.server(named: configuration.dnsServer)),
        fetch: { [client = dispatcher.client] url in try await client.readProofFile(url) }))
    let (router, edge) = try buildRouter(
        store: store, admin: admin, cache: cache, recorder: recorder, outbox: outbox, domains: domains,
        addresses: addresses, hasher: hasher, maxBodyBytes: configuration.maxBodyBytes,
        lookupTimeout: configuration.edgeLookupTimeout, dashboardSessions: DashboardSessions(store: store), logger: logger,
        metricsAllowed: configuration.metricsAllowed, rateLimits: configuration.rateLimits, learnt: learnt,
        accounts: Accounts(admin: admin, hasher: PasswordHash(logCost: configuration.passwordHashCost)), metrics: metrics
    )
    return Application(
        router: router,
        // Off, every request goes to the router. At debug level the router's middleware logs the requests it answers
        // and the fast path logs the clicks it answers itself.
        server: .ferry(edge: configuration.edgeFastPath ? edge : nil, serverName: "Ferry", readTimeout: configuration.readTimeout),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Ferry"),
        // A store that is a service (PostgreSQL's pool) goes first, so that it is shut down last.
        // Services of the process (the span exporter) go before everything: they stop last, after the last span.
        services: processServices + ((store as? any Service).map { [$0] } ?? []) + [recorder, refresher, janitor, learner, dispatcher],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

/// The router, and the edge that answers clicks (its fast path sits in front of the router on live connections).
func buildRouter(
    store: any FerryDatabase, admin: FerryAdmin, cache: LinkCache, recorder: ClickRecorder, outbox: WebhookOutbox, domains: AppDomains,
    addresses: ClientAddressResolver,
    hasher: AddressHasher, maxBodyBytes: Int, lookupTimeout: Duration, dashboardSessions: DashboardSessions, logger: Logger,
    metricsAllowed: [IPNetwork] = [], rateLimits: RateLimitSettings = .defaults, learnt: LearntMatchers? = nil, accounts: Accounts,
    metrics: ServerMetrics
) throws -> (Router<FerryRequestContext>, EdgeController) {
    // HEAD on a route that has only GET is answered as that GET without its body (RFC 9110 asks it of every server).
    let router = Router(context: FerryRequestContext.self, options: .autoGenerateHeadEndpoints)
    // First, so that it sees every answer as it leaves, the errors' included.
    router.add(middleware: ObservationMiddleware(metrics: metrics))
    // Every request logged at debug level, when the log level shows them (the middleware costs per request).
    if logger.logLevel <= .debug { router.add(middleware: LogRequestsMiddleware(.debug)) }
    let errors = ErrorMiddleware(store: store, logger: logger)
    router.add(middleware: StrictTransportSecurityMiddleware())
    router.add(middleware: errors)
    router.add(middleware: HostCheckMiddleware(errors: errors))
    let limits = RequestLimits(limiter: RateLimiter(settings: rateLimits), addresses: addresses)
    router.add(middleware: RateLimitMiddleware(limits: limits, errors: errors))
    router.get("/healthz") { _, _ in try JSONBody.response(["status": "ok"]) }
    router.get("/readyz") { _, _ in
        do {
            try await store.checkHealth()
            return try JSONBody.response(["status": "ready"])
        } catch {
            return try JSONBody.response(["status": "unavailable"], status: .serviceUnavailable)
        }
    }
    let edgeCounters = EdgeCounters(metrics: metrics)
    MetricsController(metrics: metrics, cache: cache, recorder: recorder, edge: edgeCounters, limiter: limits.limiter, store: store,
                      allowed: metricsAllowed, addresses: addresses, started: .now, now: admin.now)
        .register(on: router)
    router.get("/openapi.yaml") { _, _ in
        guard let text = OpenAPIDocument.text else {
            throw APIError(.notFound, message: "the API description was not deployed with this binary (Ferry_FerryServer.resources)")
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/yaml; charset=utf-8"
        headers[.cacheControl] = "public, max-age=300"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
    let authenticator = KeyAuthenticator(store: store, addresses: addresses)
    let resolver = LinkResolver(
        store: store, cache: cache, lookups: EdgeLookups(store: store, timeout: lookupTimeout), immediateReader: store as? any ImmediateLinkReading,
        limits: limits
    )
    // The services every kind of route shares: the native API, the compatible routes, the dashboard and the edge.
    let links = LinkEditor(admin: admin, cache: cache)
    let reports = Reports(links: links)
    let attributor = Attributor(store: store, recorder: recorder, matcher: AttributionMatcher(), hasher: hasher, now: admin.now, logger: logger,
                                outbox: outbox, learnt: learnt, metrics: metrics)
    let edge = EdgeController(
        attributor: attributor, resolver: resolver, recorder: recorder, classifier: UserAgentClassifier(), clickRouter: ClickRouter(),
        now: admin.now, counters: edgeCounters, associations: AssociationFileSource(store: store, now: admin.now),
        longLinks: LongLinks(resolver: resolver, store: store, now: admin.now, logger: logger)
    )
    let opener = LinkOpener(store: store, resolver: resolver, admin: admin, longLinks: edge.longLinks)
    LinksController(links: links, authenticator: authenticator, maxBodyBytes: maxBodyBytes, debugger: edge.debugger).register(on: router)
    StatsController(reports: reports, authenticator: authenticator, now: admin.now).register(on: router)
    QRCodeController(links: links, authenticator: authenticator).register(on: router)
    ExportController(reports: reports, authenticator: authenticator, now: admin.now).register(on: router)
    AttributionController(attributor: attributor, opener: opener, authenticator: authenticator, addresses: addresses, maxBodyBytes: maxBodyBytes)
        .register(on: router)
    WebhooksController(authenticator: authenticator, outbox: outbox, maxBodyBytes: maxBodyBytes).register(on: router)
    AuditController(store: store, authenticator: authenticator).register(on: router)
    DomainsController(domains: domains, authenticator: authenticator, maxBodyBytes: maxBodyBytes).register(on: router)
    try DashboardController(links: links, reports: reports, admin: admin, authenticator: authenticator, outbox: outbox, domains: domains,
                            sessions: dashboardSessions, accounts: accounts,
                            library: DashboardTemplates.library(), maxBodyBytes: maxBodyBytes, limits: limits,
                            attributionReports: AttributionReports(reporter: AttributionReporter(store: store, fixed: attributor.matcher)),
                            refitter: AttributionRefitter(store: store, now: admin.now, logger: logger) { learnt?.forget(appID: $0.appID, environment: $0.environment) },
                            debugger: edge.debugger, imports: ImportJobs(now: admin.now))
        .register(on: router)
    CompatibilityController(
        opener: opener, attributor: attributor, links: links, classifier: edge.classifier, authenticator: authenticator, addresses: addresses,
        maxBodyBytes: maxBodyBytes, errors: errors
    ).register(on: router)
    let firebase = FirebaseRESTController(links: links, reports: reports, authenticator: authenticator, errors: errors, maxBodyBytes: maxBodyBytes,
                                          now: admin.now)
    firebase.register(on: router)
    MethodGuard.register(on: router, CompatibilityController.allowedMethods)
    MethodGuard.register(on: router, [
        ("/healthz", ["GET"]),
        ("/readyz", ["GET"]),
        ("/openapi.yaml", ["GET"]),
        (FerryRoutes.links, ["GET", "POST", "DELETE"]),
        (FirebaseRESTController.shortLinks, ["POST"]),
        ("\(FerryRoutes.links)/:id", ["GET", "PATCH", "DELETE"]),
        (AttributionController.resolvePath, ["GET"]),
        (FerryRoutes.resolveURL, ["GET"]),
        (FerryRoutes.attributionMatch, ["POST"]),
        (FerryRoutes.attributionUser, ["POST"]),
        (FerryRoutes.attributionUserTokens, ["POST"]),
        (FerryRoutes.sdkValidate, ["POST"]),
        (FerryRoutes.events, ["POST"]),
        (FerryRoutes.stats, ["GET"]),
        ("\(FerryRoutes.links)/:id/stats", ["GET"]),
        ("\(FerryRoutes.links)/:id/qr", ["GET"]),
        ("\(FerryRoutes.links)/:id/debug", ["GET"]),
        (FerryRoutes.exportClicks, ["GET"]),
        (FerryRoutes.exportAttributions, ["GET"]),
        (FerryRoutes.webhooks, ["GET", "POST"]),
        ("\(FerryRoutes.webhooks)/:id", ["DELETE"]),
        ("\(FerryRoutes.webhooks)/:id/deliveries", ["GET"]),
        (FerryRoutes.domains, ["GET", "POST"]),
        ("\(FerryRoutes.domains)/:domain", ["PATCH", "DELETE"]),
        ("\(FerryRoutes.domains)/:domain/verify", ["POST"]),
        (FerryRoutes.auditLog, ["GET"]),
    ])
    for method in MethodGuard.methods where method != .head {
        router.on("/v1/**", method: method) { request, _ in try await firebase.apiFallback(request) }
    }
    edge.register(on: router)
    return (router, edge)
}

/// Answers 405 with `Allow` for the methods a route does not have (the API's, and the fixed paths of a link domain).
enum MethodGuard {
    /// Every method a client may send to an API path; OPTIONS, TRACE and QUERY too, so that no method of a known route
    /// is answered as if the route did not exist. HEAD is answered as GET without the body wherever GET is allowed
    /// (the router makes those answers), and 405 elsewhere.
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!]

    static func register(on router: Router<FerryRequestContext>, _ routes: [(path: String, allowed: [String])]) {
        for (path, allowed) in routes {
            let list = allowed.joined(separator: ", ")
            for method in methods where !allowed.contains(method.rawValue) && !(method == .head && allowed.contains("GET")) {
                router.on(RouterPath(path), method: method) { _, _ -> Response in
                    throw APIError(.methodNotAllowed, message: "use \(list) on this route", headers: [.allow: list])
                }
            }
        }
    }
}

/// Turns unexpected errors into a JSON 500 without details, and logs them; API errors pass through.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = FerryRequestContext
    let store: any FerryDatabase
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && !Self.isAPIPath(request.uri.path) {
            // Any other path on a link domain is a link that does not exist: a page for people, not JSON.
            return EdgeController.html(StatusPage.notFound.render(), status: .notFound, head: request.method == .head)
        } catch {
            throw apiError(for: error, path: request.uri.path)
        }
    }

    /// The JSON error an error is answered with: API errors as they are, the framework's with a code, a database
    /// outage as 503 `database_unavailable`, anything else as a 500 without details (logged).
    func apiError(for error: any Error, path: String) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as HTTPError:
            return APIError(status: error.status, code: Self.code(for: error.status), message: error.body ?? error.status.reasonPhrase)
        case let error as ValidationError:
            return APIError(error)
        case let conflict as StoreConflict:
            return APIError(.conflict, message: conflict.message, field: conflict.field)
        case let error where store.isOutage(error):
            logger.warning("database away", metadata: ["path": "\(path)", "error": "\(error)"])
            return APIError(.databaseUnavailable, message: "the database cannot be reached; try again shortly",
                            headers: [.retryAfter: "5"])
        default:
            logger.error("request failed", metadata: ["path": "\(path)", "error": "\(error)"])
            return APIError(.internal, message: "something went wrong; the error was logged")
        }
    }

    static func isAPIPath(_ path: String) -> Bool {
        path.hasPrefix("/v1/") || path == "/v1" || path.hasPrefix("/api/")
    }

    static func code(for status: HTTPResponse.Status) -> APIErrorCode {
        switch status.code {
        case 404: .notFound
        case 405: .methodNotAllowed
        case 413: .bodyTooLarge
        case 500...: .internal
        default: .badRequest
        }
    }
}
#endif
