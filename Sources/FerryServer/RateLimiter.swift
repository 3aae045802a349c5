#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// A limit: at most `count` requests in `period`, with bursts up to `count` (a token bucket that refills evenly).
package struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Requests allowed per period, and the largest burst.
    package var count: Int
    /// The period, in seconds.
    package var seconds: Int

    /// Creates a limit of `count` requests per `seconds`.
    package init(_ count: Int, per seconds: Int) {
        self.count = count
        self.seconds = seconds
    }

    /// Reads `COUNT/PERIOD`: `60/min`, `10/s`, `1000/h`, `10/5min`, or a number of seconds as in `300/60`; nil when
    /// malformed. Periods up to a day.
    package init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[0].trimmingCharacters(in: .whitespaces)), count > 0, count <= 100_000_000 else { return nil }
        // The period: a unit (`min`), a number of seconds (`300`), or both (`5min`).
        let period = parts[1].trimmingCharacters(in: .whitespaces).lowercased()
        let digits = period.prefix { $0.isASCII && $0.isNumber }
        let multiple = digits.isEmpty ? 1 : Int(digits) ?? 0
        let unitSeconds: Int
        switch period.dropFirst(digits.count) {
        case "": unitSeconds = digits.isEmpty ? 0 : 1
        case "s", "sec", "second", "seconds": unitSeconds = 1
        case "m", "min", "minute", "minutes": unitSeconds = 60
        case "h", "hour", "hours": unitSeconds = 3600
        default: unitSeconds = 0
        }
        let seconds = multiple * unitSeconds
        guard seconds > 0, seconds <= 86400 else { return nil }
        self.init(count, per: seconds)
    }

    package var description: String {
        switch seconds {
        case 1: "\(count)/s"
        case 60: "\(count)/min"
        case 3600: "\(count)/h"
        default: seconds % 60 == 0 ? "\(count)/\(seconds / 60)min" : "\(count)/\(seconds)"
        }
    }
}

/// The rules Ferry limits requests by, each per client address or per API key. Routes that a flood could use to
/// exhaust the database or guess secrets have both an address limit (a misbehaving device or network) and a key
/// limit (a leaked publishable key used from many addresses).
package enum RateLimitRule: String, Sendable, CaseIterable, Hashable {
    /// Install matches (`/v1/attribution/match` and the compatible deferred routes), per address.
    case matchAddress = "match"
    /// Install matches, per key.
    case matchKey = "match-key"
    /// Looking up a link's data by slug (`/v1/links/resolve`, the compatible dynamic-link route), per address.
    case resolveAddress = "resolve"
    /// Resolves, per key.
    case resolveKey = "resolve-key"
    /// SDK events and user binding (`/v1/events`, `/v1/attribution/user`, the compatible event route), per address.
    case eventsAddress = "events"
    /// Events, per key.
    case eventsKey = "events-key"
    /// Link creation (`POST /v1/links`, the compatible referral-link route, the dashboard's form), per address.
    case linksAddress = "links"
    /// Link creation, per key.
    case linksKey = "links-key"
    /// Links made in the app with a publishable key (`POST /v1/links`, `POST /v1/shortLinks`), per address: one
    /// device's share button, or one office behind one address.
    case clientLinksAddress = "client-links"
    /// Links made in the app, per publishable key: every install of the app together.
    case clientLinksKey = "client-links-key"
    /// Failed dashboard sign-ins, per address.
    case signIn = "sign-in"
    /// Failed sign-ins to one person's account, from any address.
    case signInAccount = "sign-in-account"
    /// Clicks on slugs that do not exist and are not yet known to be missing (each one costs a database read), per
    /// address.
    case unknownSlugs = "unknown-slugs"
    /// Device reports of the interstitial page (`/.ferry/signals`), per address: one per click on an iPhone.
    case signalsAddress = "signals"
    /// Asking for a link domain and checking its proof (`POST /v1/domains`, `…/verify`: each check asks DNS and may
    /// read a web page), per address.
    case domainsAddress = "domains"
    /// Domain requests and checks, per key.
    case domainsKey = "domains-key"

    /// The limit used unless configured otherwise: generous for one device or one office behind one address, far
    /// below what would hurt the database.
    package var defaultLimit: RateLimit {
        switch self {
        case .matchAddress: RateLimit(120, per: 60)
        case .matchKey: RateLimit(60_000, per: 60)
        case .resolveAddress: RateLimit(600, per: 60)
        case .resolveKey: RateLimit(120_000, per: 60)
        case .eventsAddress: RateLimit(1200, per: 60)
        case .eventsKey: RateLimit(240_000, per: 60)
        case .linksAddress: RateLimit(600, per: 60)
        case .linksKey: RateLimit(6000, per: 60)
        case .clientLinksAddress: RateLimit(30, per: 60)
        case .clientLinksKey: RateLimit(3000, per: 60)
        case .signIn: RateLimit(10, per: 300)
        case .signInAccount: RateLimit(10, per: 900)
        case .unknownSlugs: RateLimit(300, per: 60)
        case .signalsAddress: RateLimit(120, per: 60)
        case .domainsAddress: RateLimit(30, per: 60)
        case .domainsKey: RateLimit(60, per: 60)
        }
    }

    /// What a limited request is told it did too often.
    var activity: String {
        switch self {
        case .matchAddress, .matchKey: "install matches"
        case .resolveAddress, .resolveKey: "link lookups"
        case .eventsAddress, .eventsKey: "events"
        case .linksAddress, .linksKey: "link creations"
        case .clientLinksAddress, .clientLinksKey: "links made in the app"
        case .signIn, .signInAccount: "failed sign-ins"
        case .unknownSlugs: "clicks on links that do not exist"
        case .signalsAddress: "device reports"
        case .domainsAddress, .domainsKey: "domain requests and checks"
        }
    }

    var perKey: Bool { rawValue.hasSuffix("-key") }
}

/// The limits in force: every rule's limit, or none at all (`FERRY_RATE_LIMITS=off`).
package struct RateLimitSettings: Sendable, Hashable {
    /// Per rule; a rule left out is not limited.
    package var limits: [RateLimitRule: RateLimit]

    /// Every rule at its default.
    package static let defaults = RateLimitSettings(limits: Dictionary(uniqueKeysWithValues: RateLimitRule.allCases.map { ($0, $0.defaultLimit) }))
    /// Nothing limited.
    package static let off = RateLimitSettings(limits: [:])

    package init(limits: [RateLimitRule: RateLimit]) { self.limits = limits }

    /// Reads `off`, or a comma-separated list of `RULE=LIMIT` (`match=60/min,sign-in=5/min,unknown-slugs=off`)
    /// applied over the defaults.
    package init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "off" {
            self = .off
            return
        }
        self = .defaults
        for entry in trimmed.split(separator: ",") {
            let pair = entry.split(separator: "=", maxSplits: 1)
            let names = RateLimitRule.allCases.map(\.rawValue).joined(separator: ", ")
            guard pair.count == 2, let rule = RateLimitRule(rawValue: pair[0].trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw ConfigurationError("FERRY_RATE_LIMITS: '\(entry)' is not RULE=COUNT/PERIOD; the rules are \(names)")
            }
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.lowercased() == "off" {
                limits[rule] = nil
            } else if let limit = RateLimit(parsing: value) {
                limits[rule] = limit
            } else {
                throw ConfigurationError("FERRY_RATE_LIMITS: '\(value)' is not a limit such as 60/min, 10/s or 1000/h")
            }
        }
    }
}

/// Who a limit is counted for: a client address (IPv6 by its /64, the block one subscriber gets), or an API key.
enum RateLimitSubject: Hashable, Sendable {
    case address(IPAddress)
    case key(String)
    /// A person's account, by email.
    case account(String)

    static func address(of address: IPAddress) -> RateLimitSubject {
        switch address.unmapped {
        case .v4(let value): .address(.v4(value))
        case .v6(let high, _): .address(.v6(high, 0))
        }
    }
}

/// Token buckets per rule and subject, in memory on each node (a load balancer spreading one client over N nodes
/// gives it up to N times the limit). Thread-safe; bounded: buckets that have refilled are forgotten, and when a
/// flood of distinct subjects fills the table, the oldest are dropped.
package final class RateLimiter: Sendable {
    /// The answer to one request.
    enum Decision: Equatable {
        case allowed
        /// Refused; the client may try again after this many whole seconds.
        case limited(retryAfter: Int)
    }

    struct Bucket {
        /// Tokens left (fractions accrue as time passes).
        var tokens: Double
        var updated: UInt64
    }

    final class Shard: Sendable {
        let buckets = Mutex<[BucketKey: Bucket]>([:])
    }

    struct BucketKey: Hashable {
        var rule: RateLimitRule
        var subject: RateLimitSubject
    }

    let settings: RateLimitSettings
    private let shards: [Shard]
    private let capacityPerShard: Int
    private let clock: @Sendable () -> UInt64
    /// Refusals per rule (rare, so one lock is enough).
    private let limitedCounts = Mutex<[RateLimitRule: Int]>([:])

    /// `capacity`: buckets kept at most (all rules and subjects together); `clock`: monotonic nanoseconds.
    package init(settings: RateLimitSettings, capacity: Int = 200_000,
                clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.settings = settings
        shards = (0..<16).map { _ in Shard() }
        capacityPerShard = max(16, capacity / 16)
        self.clock = clock
    }

    /// Takes one request's token from the subject's bucket, or says how long to wait.
    func take(_ rule: RateLimitRule, for subject: RateLimitSubject) -> Decision {
        update(rule, subject, taking: true)
    }

    /// Whether the subject's bucket has a token left, without taking it (for limits charged only on failure).
    func check(_ rule: RateLimitRule, for subject: RateLimitSubject) -> Decision {
        update(rule, subject, taking: false)
    }

    /// Requests refused per rule since start, for `/metrics`.
    var limitedTotals: [(rule: RateLimitRule, count: Int)] {
        let counts = limitedCounts.withLock { $0 }
        return RateLimitRule.allCases.map { ($0, counts[$0] ?? 0) }
    }

    /// Buckets held, all shards together.
    var bucketCount: Int { shards.reduce(0) { $0 + $1.buckets.withLock { $0.count } } }

    private func update(_ rule: RateLimitRule, _ subject: RateLimitSubject, taking: Bool) -> Decision {
        guard let limit = settings.limits[rule] else { return .allowed }
        let key = BucketKey(rule: rule, subject: subject)
        let now = clock()
        let capacity = Double(limit.count)
        let nanosPerToken = Double(limit.seconds) * 1e9 / capacity
        var hasher = Hasher()
        hasher.combine(key)
        let shard = shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
        let decision: Decision = shard.buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
            if now > bucket.updated {
                bucket.tokens = min(capacity, bucket.tokens + Double(now - bucket.updated) / nanosPerToken)
                bucket.updated = now
            }
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                let wait = (1 - bucket.tokens) * nanosPerToken / 1e9
                return .limited(retryAfter: max(1, Int(wait.rounded(.up))))
            }
            if taking {
                bucket.tokens -= 1
                if buckets[key] == nil, buckets.count >= capacityPerShard { makeRoom(in: &buckets, now: now) }
                buckets[key] = bucket
            }
            return .allowed
        }
        if case .limited = decision { limitedCounts.withLock { $0[rule, default: 0] += 1 } }
        return decision
    }

    /// Forgets buckets that have had time to refill (they would start full anyway); if that frees too little (a
    /// flood of distinct subjects), the least recently used half.
    private func makeRoom(in buckets: inout [BucketKey: Bucket], now: UInt64) {
        buckets = buckets.filter { key, bucket in
            guard let limit = settings.limits[key.rule] else { return false }
            let refill = (Double(limit.count) - bucket.tokens) * Double(limit.seconds) * 1e9 / Double(limit.count)
            return Double(now > bucket.updated ? now - bucket.updated : 0) < refill
        }
        if buckets.count >= capacityPerShard * 3 / 4 {
            let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(buckets.count / 2)
            for (key, _) in oldest { buckets[key] = nil }
        }
    }
}

/// A 429 naming what was done too often, with `Retry-After`.
extension APIError {
    static func rateLimited(_ rule: RateLimitRule, retryAfter: Int) -> APIError {
        let who = rule.perKey ? "with this API key" : "from this address"
        return APIError(.rateLimited, message: "too many \(rule.activity) \(who); try again in \(retryAfter) s",
                        headers: [.retryAfter: String(retryAfter)])
    }
}

/// The rate limiter with the rules of who a request comes from: the client address as the trusted proxies report
/// it, and the API key it presents.
struct RequestLimits: Sendable {
    let limiter: RateLimiter
    let addresses: ClientAddressResolver

    /// The client address's subject, or nil when the address cannot be told (then only key limits apply).
    func addressSubject(peer: String?, forwardedFor: [String]) -> RateLimitSubject? {
        addresses.clientAddress(peer: peer, forwardedFor: forwardedFor).map(RateLimitSubject.address(of:))
    }

    func addressSubject(_ origin: ClickOrigin) -> RateLimitSubject? {
        addressSubject(peer: origin.peer, forwardedFor: origin.forwardedFor)
    }

    func addressSubject(_ request: Request, context: FerryRequestContext) -> RateLimitSubject? {
        addressSubject(peer: context.peerAddress, forwardedFor: request.headers[values: EdgeController.forwardedFor])
    }

    /// The presented key's subject, when it has the form of a Ferry key (anything else fails authentication anyway).
    static func keySubject(_ request: Request) -> RateLimitSubject? {
        guard let text = presentedKey(request), APIKeyFormat(parsing: text) != nil else { return nil }
        return .key(text)
    }

    /// The key a request presents: in a header, or as Firebase's REST API takes it, in the `key` query parameter.
    static func presentedKey(_ request: Request) -> String? {
        KeyAuthenticator.presentedKey(request) ?? request.uri.queryParameters["key"].map(String.init)
    }

    /// Takes a token of the address rule and, when a key is presented, of the key rule; the error of the first one
    /// that is exhausted.
    func take(_ addressRule: RateLimitRule, _ keyRule: RateLimitRule?, request: Request, context: FerryRequestContext) -> APIError? {
        if let subject = addressSubject(request, context: context), case .limited(let wait) = limiter.take(addressRule, for: subject) {
            return .rateLimited(addressRule, retryAfter: wait)
        }
        if let keyRule, let subject = Self.keySubject(request), case .limited(let wait) = limiter.take(keyRule, for: subject) {
            return .rateLimited(keyRule, retryAfter: wait)
        }
        return nil
    }
}

/// Answers 429 with `Retry-After` to requests over their route's limits, before the route does any work. The
/// compatible LinkTrace-style routes get the error in their own envelope.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = FerryRequestContext
    let limits: RequestLimits
    let errors: ErrorMiddleware

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The key's kind is read only on the link creation routes, which limit links made in the app apart.
        let publishable = { RequestLimits.presentedKey(request).flatMap { APIKeyFormat(parsing: $0) }?.kind == .publishable }
        guard let (addressRule, keyRule) = Self.rules(method: request.method, path: request.uri.path, publishable: publishable),
              let error = limits.take(addressRule, keyRule, request: request, context: context)
        else { return try await next(request, context) }
        if Self.linkTracePaths.contains(Self.trimmed(request.uri.path)) {
            return try await LinkTraceEnvelope.wrap(request, errors: errors) { throw error }
        }
        if Self.trimmed(request.uri.path) == FirebaseRESTController.shortLinks { return try FirebaseEnvelope.response(error) }
        throw error
    }

    static let linkTracePaths: Set<String> = [CompatibilityController.referralLinks, CompatibilityController.attributions]
    /// The compatible dynamic-link route up to its slug.
    static let dynamicLinkPrefix = String(CompatibilityController.dynamicLink.dropLast(":slug".count))

    /// The address and key rules of a route, or nil for a route without limits. Links made with a publishable key
    /// have limits of their own.
    static func rules(method: HTTPRequest.Method, path rawPath: String, publishable: () -> Bool) -> (RateLimitRule, RateLimitRule?)? {
        let path = trimmed(rawPath)
        switch method {
        case .post:
            switch path {
            case FerryRoutes.links where publishable(), FirebaseRESTController.shortLinks where publishable():
                return (.clientLinksAddress, .clientLinksKey)
            case FirebaseRESTController.shortLinks: return (.linksAddress, .linksKey)
            case FerryRoutes.attributionMatch, CompatibilityController.attributions: return (.matchAddress, .matchKey)
            case FerryRoutes.events, FerryRoutes.attributionUser, CompatibilityController.statsEvent: return (.eventsAddress, .eventsKey)
            case FerryRoutes.links, CompatibilityController.referralLinks: return (.linksAddress, .linksKey)
            case HTML.signalsPath: return (.signalsAddress, nil)
            case FerryRoutes.domains: return (.domainsAddress, .domainsKey)
            default:
                if path.hasPrefix(FerryRoutes.domains + "/"), path.hasSuffix("/verify") { return (.domainsAddress, .domainsKey) }
                return nil
            }
        case .get, .head:  // HEAD is answered by running GET's route
            if path == CompatibilityController.deferredDeepLink { return (.matchAddress, .matchKey) }
            if path.hasPrefix(FerryRoutes.resolve(slug: "")) || path.hasPrefix(dynamicLinkPrefix) { return (.resolveAddress, .resolveKey) }
            return nil
        default:
            return nil
        }
    }

    /// The path without trailing slashes, which the router ignores too.
    static func trimmed(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
#endif
