import FerryCore
import Synchronization

/// A value kept once and handed out by reference: a cached link or app reaches a click without its many fields
/// being copied (and each of their strings retained and released) on every lookup.
public final class Shared<Value: Sendable>: Sendable {
    /// The value.
    public let value: Value

    /// Keeps a value.
    public init(_ value: Value) {
        self.value = value
    }
}

/// What the edge needs to answer a click, kept in memory.
public struct ResolvedLink: Sendable {
    let sharedLink: Shared<Link>
    let sharedApp: Shared<App>

    /// The link.
    public var link: Link { sharedLink.value }
    /// Its app.
    public var app: App { sharedApp.value }

    /// A link and its app, as the cache shares them.
    init(link: Shared<Link>, app: Shared<App>) {
        sharedLink = link
        sharedApp = app
    }

    /// A link and its app.
    public init(link: Link, app: App) {
        self.init(link: Shared(link), app: Shared(app))
    }

    /// Whether the app answering the host may answer this link: it is the link's app and still has the link's domain.
    /// A link is never answered by another app that took its domain, nor on a domain its app dropped.
    var isServedHere: Bool {
        let link = sharedLink.value, app = sharedApp.value
        return link.appID == app.id && app.domains.contains(link.domain)
    }
}

/// A bounded in-memory cache of links (by domain and slug) and apps (by host), with negative entries for unknown
/// slugs and hosts so that floods of misses do not reach the database.
///
/// Writes through the API invalidate their entry at once; changes made by other processes are caught by
/// `CacheRefresher`, which forgets each link the store's log of changes names, and empties the cache when an app, a
/// domain or a key changed. What an emptying drops is kept
/// aside as *stale* entries, which the edge serves only when the database cannot be asked (an outage): a link is
/// better redirected to where it pointed a moment ago than not at all.
public final class LinkCache: Sendable {
    /// A cached answer: a value, or the knowledge that there is none.
    public enum Entry<Value: Sendable>: Sendable {
        case found(Value)
        case missing

        func map<Other>(_ transform: (Value) -> Other) -> Entry<Other> {
            switch self {
            case .found(let value): .found(transform(value))
            case .missing: .missing
            }
        }
    }

    private struct Slot<Value> {
        var value: Value
        var ticket: UInt64
    }

    /// A link's place: its domain and slug (two strings hashed, rather than one string joined from them per lookup).
    private struct Key: Hashable {
        var domain: String
        var slug: String
    }

    private struct State {
        var links: [Key: Slot<Entry<Shared<Link>>>] = [:]
        var hosts: [String: Slot<Entry<Shared<App>>>] = [:]
        var order: [(key: Key, ticket: UInt64)] = []
        var head = 0
        var nextTicket: UInt64 = 0
        var generation: UInt64 = 0
        var staleLinks: [Key: Entry<Shared<Link>>] = [:]
        var staleHosts: [String: Entry<Shared<App>>] = [:]
        var hits = 0
        var misses = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    /// Creates a cache holding at most `capacity` links.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// A snapshot number that changes whenever the cache is emptied; a filler that read the store under an older
    /// generation does not write its (possibly stale) answer.
    public var generation: UInt64 { state.withLock { $0.generation } }

    private static func key(domain: String, slug: String) -> Key { Key(domain: domain, slug: slug) }

    /// The cached link for a domain and slug, or nil when the cache does not know. `countingMisses: false` is for a
    /// caller that asks again on a miss (the edge's fast path), so that a miss is counted once.
    public func link(domain: String, slug: String, countingMisses: Bool = true) -> Entry<Shared<Link>>? {
        let key = Self.key(domain: domain, slug: slug)
        return state.withLock { state in
            let entry = state.links[key]?.value
            if entry == nil { if countingMisses { state.misses += 1 } } else { state.hits += 1 }
            return entry
        }
    }

    /// Counters for `/metrics`: link lookups answered from memory and not, and links held now.
    public var statistics: (hits: Int, misses: Int, links: Int) {
        state.withLock { ($0.hits, $0.misses, $0.links.count) }
    }

    /// Remembers a link (or its absence), unless the cache was emptied since `generation`: then the answer may be
    /// out of date and is kept only as a stale entry.
    @discardableResult
    public func store(_ entry: Entry<Link>, domain: String, slug: String, generation: UInt64) -> Entry<Shared<Link>> {
        let key = Self.key(domain: domain, slug: slug)
        let entry = entry.map(Shared.init)
        state.withLock { state in
            guard state.generation == generation else {
                if state.staleLinks.count < capacity || state.staleLinks[key] != nil { state.staleLinks[key] = entry }
                return
            }
            state.nextTicket += 1
            let ticket = state.nextTicket
            state.links[key] = Slot(value: entry, ticket: ticket)
            state.order.append((key, ticket))
            while state.links.count > capacity, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if state.links[oldest.key]?.ticket == oldest.ticket { state.links[oldest.key] = nil }
            }
            if state.head > 1024 && state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
        return entry
    }

    /// The cached app of a host, or nil when the cache does not know.
    public func app(host: String) -> Entry<Shared<App>>? {
        state.withLock { $0.hosts[host]?.value }
    }

    /// Remembers the app of a host (or that it has none); as a stale entry when the cache was emptied since
    /// `generation`.
    @discardableResult
    public func store(_ entry: Entry<App>, host: String, generation: UInt64) -> Entry<Shared<App>> {
        let entry = entry.map(Shared.init)
        state.withLock { state in
            guard state.generation == generation else {
                if state.staleHosts.count < 10_000 || state.staleHosts[host] != nil { state.staleHosts[host] = entry }
                return
            }
            if state.hosts.count >= 10_000 { state.hosts.removeAll(keepingCapacity: true) }
            state.hosts[host] = Slot(value: entry, ticket: 0)
        }
        return entry
    }

    /// Forgets one link, stale copy included (this process changed it: what it knew is wrong, not old).
    public func invalidate(domain: String, slug: String) {
        state.withLock { state in
            let key = Self.key(domain: domain, slug: slug)
            state.links[key] = nil
            state.staleLinks[key] = nil
            state.generation += 1
        }
    }

    /// Forgets everything, keeping what it held as stale entries for outages. Stale entries gathered by earlier
    /// emptyings stay too (an outage may bring several), within the cache's capacity.
    public func removeAll() {
        state.withLock { state in
            var staleLinks = state.staleLinks.count + state.links.count <= capacity ? state.staleLinks : [:]
            for (key, slot) in state.links { staleLinks[key] = slot.value }
            var staleHosts = state.staleHosts.count + state.hosts.count <= 10_000 ? state.staleHosts : [:]
            for (key, slot) in state.hosts { staleHosts[key] = slot.value }
            state = State(generation: state.generation + 1, staleLinks: staleLinks, staleHosts: staleHosts, hits: state.hits, misses: state.misses)
        }
    }

    /// What the cache last knew of a link before it was emptied, for when the database cannot be asked.
    public func staleLink(domain: String, slug: String) -> Entry<Shared<Link>>? {
        state.withLock { $0.staleLinks[Self.key(domain: domain, slug: slug)] }
    }

    /// What the cache last knew of a host's app before it was emptied, for when the database cannot be asked.
    public func staleApp(host: String) -> Entry<Shared<App>>? {
        state.withLock { $0.staleHosts[host] }
    }
}
