#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Synchronization

/// A value kept once and handed out by reference: a cached link or app reaches a click without its many fields
/// being copied (and each of their strings retained and released) on every lookup.
package final class Shared<Value: Sendable>: Sendable {
    /// The value.
    package let value: Value

    /// Keeps a value.
    package init(_ value: Value) {
        self.value = value
    }
}

/// What the edge needs to answer a click, kept in memory.
package struct ResolvedLink: Sendable {
    let sharedLink: Shared<Link>
    let sharedApp: Shared<App>

    /// The link.
    package var link: Link { sharedLink.value }
    /// Its app.
    package var app: App { sharedApp.value }

    /// A link and its app, as the cache shares them.
    init(link: Shared<Link>, app: Shared<App>) {
        sharedLink = link
        sharedApp = app
    }

    /// A link and its app.
    package init(link: Link, app: App) {
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
package final class LinkCache: Sendable {
    /// A cached answer: a value, or the knowledge that there is none.
    package enum Entry<Value: Sendable>: Sendable {
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
        var hosts = RecentHosts(capacity: LinkCache.hostCapacity)
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
    /// The most hosts (and hosts known to have no app) held at once; the one used least recently makes room.
    static let hostCapacity = 10_000

    /// Creates a cache holding at most `capacity` links.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// A snapshot number that changes whenever the cache is emptied; a filler that read the store under an older
    /// generation does not write its (possibly stale) answer.
    package var generation: UInt64 { state.withLock { $0.generation } }

    private static func key(domain: String, slug: String) -> Key { Key(domain: domain, slug: slug) }

    /// The cached link for a domain and slug, or nil when the cache does not know. `countingMisses: false` is for a
    /// caller that asks again on a miss (the edge's fast path), so that a miss is counted once.
    package func link(domain: String, slug: String, countingMisses: Bool = true) -> Entry<Shared<Link>>? {
        let key = Self.key(domain: domain, slug: slug)
        return state.withLock { state in
            let entry = state.links[key]?.value
            if entry == nil { if countingMisses { state.misses += 1 } } else { state.hits += 1 }
            return entry
        }
    }

    /// Counters for `/metrics`: link lookups answered from memory and not, and links held now.
    package var statistics: (hits: Int, misses: Int, links: Int) {
        state.withLock { ($0.hits, $0.misses, $0.links.count) }
    }

    /// Remembers a link (or its absence), unless the cache was emptied since `generation`: then the answer may be
    /// out of date and is kept only as a stale entry.
    @discardableResult
    package func store(_ entry: Entry<Link>, domain: String, slug: String, generation: UInt64) -> Entry<Shared<Link>> {
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

    /// The cached app of a host, or nil when the cache does not know; a host found becomes the most recently used.
    package func app(host: String) -> Entry<Shared<App>>? {
        state.withLock { $0.hosts.use(host) }
    }

    /// Remembers the app of a host (or that it has none); as a stale entry when the cache was emptied since
    /// `generation`.
    @discardableResult
    package func store(_ entry: Entry<App>, host: String, generation: UInt64) -> Entry<Shared<App>> {
        let entry = entry.map(Shared.init)
        state.withLock { state in
            guard state.generation == generation else {
                if state.staleHosts.count < Self.hostCapacity || state.staleHosts[host] != nil { state.staleHosts[host] = entry }
                return
            }
            state.hosts.set(entry, for: host)
        }
        return entry
    }

    /// Forgets one link, stale copy included (this process changed it: what it knew is wrong, not old).
    package func invalidate(domain: String, slug: String) {
        state.withLock { state in
            let key = Self.key(domain: domain, slug: slug)
            state.links[key] = nil
            state.staleLinks[key] = nil
            state.generation += 1
        }
    }

    /// Forgets everything, keeping what it held as stale entries for outages. Stale entries gathered by earlier
    /// emptyings stay too (an outage may bring several), within the cache's capacity.
    package func removeAll() {
        state.withLock { state in
            var staleLinks = state.staleLinks.count + state.links.count <= capacity ? state.staleLinks : [:]
            for (key, slot) in state.links { staleLinks[key] = slot.value }
            var staleHosts = state.staleHosts.count + state.hosts.count <= Self.hostCapacity ? state.staleHosts : [:]
            state.hosts.forEach { staleHosts[$0] = $1 }
            state = State(generation: state.generation + 1, staleLinks: staleLinks, staleHosts: staleHosts, hits: state.hits, misses: state.misses)
        }
    }

    /// What the cache last knew of a link before it was emptied, for when the database cannot be asked.
    package func staleLink(domain: String, slug: String) -> Entry<Shared<Link>>? {
        state.withLock { $0.staleLinks[Self.key(domain: domain, slug: slug)] }
    }

    /// What the cache last knew of a host's app before it was emptied, for when the database cannot be asked.
    package func staleApp(host: String) -> Entry<Shared<App>>? {
        state.withLock { $0.staleHosts[host] }
    }
}

/// Hosts and what the cache knows of their apps, at most `capacity` of them: when full, the host used least recently
/// makes room for a new one, so that a flood of made-up `Host` names costs the hosts that real clicks use nothing
/// but their turn. Every operation is O(1): a dictionary of places in an array of entries chained from the most to
/// the least recently used (places, not references, so that a lookup retains and releases nothing).
struct RecentHosts {
    private struct Node {
        var host: String
        var entry: LinkCache.Entry<Shared<App>>
        /// The places of the next more and next less recently used hosts, or -1.
        var newer: Int
        var older: Int
    }

    private let capacity: Int
    private var places: [String: Int] = [:]
    private var nodes: [Node] = []
    private var newest = -1
    private var oldest = -1

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { nodes.count }

    /// The entry of a host, which becomes the most recently used; nil when the host is not held.
    mutating func use(_ host: String) -> LinkCache.Entry<Shared<App>>? {
        guard let place = places[host] else { return nil }
        moveToNewest(place)
        return nodes[place].entry
    }

    /// Holds a host's entry as the most recently used, in the place of the least recently used host when full.
    mutating func set(_ entry: LinkCache.Entry<Shared<App>>, for host: String) {
        if let place = places[host] {
            nodes[place].entry = entry
            moveToNewest(place)
            return
        }
        let place: Int
        if nodes.count < capacity {
            place = nodes.count
            nodes.append(Node(host: host, entry: entry, newer: -1, older: -1))
        } else {
            place = oldest
            unlink(place)
            places[nodes[place].host] = nil
            nodes[place] = Node(host: host, entry: entry, newer: -1, older: -1)
        }
        places[host] = place
        linkAsNewest(place)
    }

    /// Every host held and its entry, in no particular order.
    func forEach(_ body: (String, LinkCache.Entry<Shared<App>>) -> Void) {
        for node in nodes { body(node.host, node.entry) }
    }

    private mutating func moveToNewest(_ place: Int) {
        guard place != newest else { return }
        unlink(place)
        linkAsNewest(place)
    }

    private mutating func unlink(_ place: Int) {
        let newer = nodes[place].newer, older = nodes[place].older
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[place].newer = -1
        nodes[place].older = -1
    }

    private mutating func linkAsNewest(_ place: Int) {
        nodes[place].older = newest
        if newest >= 0 { nodes[newest].newer = place } else { oldest = place }
        newest = place
    }
}
#endif
