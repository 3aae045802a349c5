#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Crypto
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Logging
import Synchronization

/// Firebase Dynamic Links long links (`https://DOMAIN/?link=…`) as links: each distinct long link of an app is stored
/// the first time it is followed, under an id and slug worked out from its canonical query, so that its clicks are
/// recorded, counted and attributed like a short link's, and its owner can find, change or disable it through
/// `/v1/links`. A stored long link is answered as stored (a disabled one is 404); one not stored yet is answered
/// from its URL at once, and stored without making the click wait.
struct LongLinks: Sendable {
    let resolver: LinkResolver
    let store: any FerryDatabase
    let now: @Sendable () -> Date
    let logger: Logger
    /// How many long links are being stored in the background; beyond `maxPendingCreations` a new one is answered
    /// but not stored until a later click.
    let pending = PendingCreations()

    /// Most long links stored at once in the background.
    static let maxPendingCreations = 64
    /// Slugs of long links start with this, which a custom slug may not (`Slug.validateCustom`).
    static let slugPrefix = Slug.longLinkPrefix

    /// What a long link comes to.
    enum Outcome {
        /// The link to answer with (stored, or just made from the URL).
        case link(ResolvedLink)
        /// The long link is not valid for this app: a 400 page naming the parameter.
        case refused(LongLinkRefusal)
        /// No link: no app on the host, the address is over its limit, or the database is away.
        case resolution(LinkResolution)
    }

    /// When a long link that is not stored yet is stored.
    enum Storing {
        /// Before answering (the API, where an open is recorded against it).
        case now
        /// Without making the answer wait (a click).
        case inBackground
        /// Not at all (the debug view, which is not a click).
        case never
    }

    /// The link of a long link's query on a host, stored as `storing` says when it is new.
    func resolve(host: String, query: String, asker: LinkResolver.Asker, storing: Storing = .inBackground) async throws -> Outcome {
        guard let app = try await resolver.app(forHost: host)?.value else { return .resolution(.unknown) }
        let domain = app.linkDomain(forHost: host) ?? host
        let long: LongLink
        do { long = try LongLink(query: query) } catch { return .refused(error) }
        let (id, slug) = Self.identity(appID: app.id, domain: domain, canonicalQuery: long.canonicalQuery)
        let resolution = try await resolver.resolve(.click, host: host, slug: slug, asker: asker)
        switch resolution {
        case .unknown: break
        case .link(let stored) where stored.isServedHere: return .link(stored)
        default: return .resolution(resolution)
        }
        let link: Link
        do { link = try long.link(app: app, domain: domain, id: id, slug: slug, now: now()) } catch { return .refused(error) }
        switch storing {
        case .now:
            try await create(link)
        case .inBackground where pending.begin(limit: Self.maxPendingCreations):
            Task {
                defer { pending.end() }
                do { try await create(link) } catch {
                    logger.warning("a long link could not be stored; it is stored on a later click", metadata: ["error": "\(error)"])
                }
            }
        case .inBackground, .never:
            break
        }
        return .link(ResolvedLink(link: link, app: app))
    }

    /// Stores a long link; one stored meanwhile (by another click, another node) is as good.
    private func create(_ link: Link) async throws {
        do { try await store.createLink(link) } catch is StoreConflict {}
    }

    /// The id (`lnk_` and 22 characters) and slug (`_fdl_` and 26) of a long link: from a hash of the app, the
    /// domain and the canonical query, so that every node names one long link alike.
    static func identity(appID: String, domain: String, canonicalQuery: String) -> (id: String, slug: String) {
        var generator = DigestGenerator(seed: "\(appID)\n\(domain)\n\(canonicalQuery)")
        let id = Identifiers.make(prefix: "lnk", using: &generator)
        let slug = slugPrefix + Identifiers.slug(length: 26, using: &generator)
        return (id, slug)
    }
}

/// Counts long links being stored in the background.
final class PendingCreations: Sendable {
    private let count = Mutex(0)

    /// Takes a place if fewer than `limit` are taken.
    func begin(limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Gives a place back.
    func end() { count.withLock { $0 -= 1 } }
}

/// A deterministic stream of numbers from SHA-256: the hash of the seed and a counter, eight bytes at a time.
struct DigestGenerator: RandomNumberGenerator {
    private let seed: Data
    private var counter: UInt64 = 0
    private var buffer: [UInt8] = []

    init(seed: String) { self.seed = Data(seed.utf8) }

    mutating func next() -> UInt64 {
        if buffer.count < 8 {
            var input = seed
            withUnsafeBytes(of: counter.bigEndian) { input.append(contentsOf: $0) }
            counter += 1
            buffer.append(contentsOf: SHA256.hash(data: input))
        }
        let value = buffer.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        buffer.removeFirst(8)
        return value
    }
}
#endif
