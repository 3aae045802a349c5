import FerryAPI
import Foundation

/// Finds email security scanners by how they click. A service that checks a message's links before its reader sees
/// them opens all of them within seconds, from one address with one user agent; a person reading the message opens
/// one or two, seconds to hours apart. So a person's-looking click is a scanner's when, from its address and user
/// agent, ``distinctLinks`` different links of one app were opened within ``window`` — and so are the burst's earlier
/// clicks, which the caller takes back out of the figures they were counted in.
///
/// The detector sees the clicks of one node (clicks of one message spread over several nodes behind a load balancer
/// that does not keep an address on one node are found only when enough of them reach one). It keeps at most
/// ``maximumTracked`` recent clicks: under a flood, the oldest are forgotten first.
package struct ScannerBurstDetector: Sendable {
    /// How close together the clicks of a burst are.
    package static let window: TimeInterval = 10
    /// How many different links of one app make a burst.
    package static let distinctLinks = 3
    /// The most clicks remembered.
    package static let maximumTracked = 100_000

    private struct Key: Hashable {
        var appID: String
        var environment: APIEnvironment
        var address: String
        var userAgent: String
    }

    private struct Seen {
        var clickID: String
        var linkID: String
    }

    /// The recent clicks of one address and user agent, in the order they came (from `head` on), with how many of
    /// them each link has: each click is added and forgotten in constant time, however many the address makes.
    private struct Burst {
        var clicks: [Seen] = []
        var head = 0
        var links: [String: Int] = [:]
        /// Clicks before this index are known to be a scanner's.
        var flaggedUpTo = 0
        /// When the last click found to be a scanner's was made.
        var lastScanner: Date?

        mutating func append(_ seen: Seen) {
            clicks.append(seen)
            links[seen.linkID, default: 0] += 1
        }

        mutating func dropOldest() {
            let oldest = clicks[head]
            head += 1
            if let count = links[oldest.linkID], count > 1 { links[oldest.linkID] = count - 1 } else { links[oldest.linkID] = nil }
            if head > 64, head * 2 > clicks.count {
                clicks.removeFirst(head)
                flaggedUpTo = max(0, flaggedUpTo - head)
                head = 0
            }
        }

        var isEmpty: Bool { head == clicks.count }
    }

    private var recent: [Key: Burst] = [:]
    /// Every remembered click's key and time, oldest first, from `head` on.
    private var order: [(time: Date, key: Key)] = []
    private var head = 0

    /// Creates an empty detector.
    package init() {}

    /// What a click's burst says: whether the click is a scanner's, and the ids of the burst's earlier clicks that
    /// were taken for a person's until now.
    package struct Verdict: Sendable, Hashable {
        package var isScanner: Bool
        package var earlier: [String]

        /// Creates a verdict.
        package init(isScanner: Bool, earlier: [String]) {
            self.isScanner = isScanner
            self.earlier = earlier
        }
    }

    /// Notes a person's-looking click that has its address hash; a click of another kind, or without an address,
    /// is not a person's burst and is left alone.
    package mutating func observe(_ click: Click) -> Verdict {
        guard click.traffic == .person, let address = click.ipHash else { return Verdict(isScanner: false, earlier: []) }
        forget(before: click.createdAt.addingTimeInterval(-Self.window))
        let key = Key(appID: click.appID, environment: click.environment, address: address, userAgent: click.userAgent ?? "")
        order.append((click.createdAt, key))
        let verdict = Self.add(click, to: &recent[key, default: Burst()])
        if order.count - head > Self.maximumTracked { forget(before: order[head].time.addingTimeInterval(0.001)) }
        return verdict
    }

    /// Adds a click to its address's burst, in place.
    private static func add(_ click: Click, to burst: inout Burst) -> Verdict {
        burst.append(Seen(clickID: click.id, linkID: click.linkID))
        let continues = burst.lastScanner.map { click.createdAt.timeIntervalSince($0) <= window } ?? false
        guard continues || burst.links.count >= distinctLinks else { return Verdict(isScanner: false, earlier: []) }
        let last = burst.clicks.count - 1
        let earlier = burst.clicks[max(burst.head, burst.flaggedUpTo)..<last].map(\.clickID)
        burst.flaggedUpTo = burst.clicks.count
        burst.lastScanner = click.createdAt
        return Verdict(isScanner: true, earlier: earlier)
    }

    /// How many clicks are remembered.
    package var tracked: Int { order.count - head }

    /// Forgets clicks made before `cutoff`.
    private mutating func forget(before cutoff: Date) {
        while head < order.count, order[head].time < cutoff {
            let key = order[head].key
            head += 1
            // The key's oldest click is this one: both are in the order the clicks came.
            recent[key]?.dropOldest()
            if recent[key]?.isEmpty == true { recent[key] = nil }
        }
        // The queue's consumed front is dropped once it is most of it, so each click is moved at most once more.
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
