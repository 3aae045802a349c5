import FerryAPI
import FerryCore
import Foundation

/// The store's candidate selection, in memory: the same query the SQLite store runs (`CandidateQuery`), over
/// indexes by address, network and device fingerprint.
///
/// - Candidates are unconsumed clicks of the install's platform made in `[install − window, install + 60 s]`
///   (and, since the simulator replays history, no later than the install itself: a click made after the
///   request does not exist yet when it is answered) that share the install's address, network or fingerprint.
/// - Each key gives at most `CandidateQuery.limitPerKey` clicks, newest first.
/// - The counts (all clicks in the window, clicks from the address, from the network) include consumed clicks,
///   as the store's `COUNT(*)` does.
struct ClickIndex {
    private let clicks: [SimClick]
    private var consumed: [Bool]
    /// Click indices (ascending, so in time order) per `platform|key`.
    private var byAddress: [String: [Int]] = [:]
    private var byNetwork: [String: [Int]] = [:]
    private var byFingerprint: [String: [Int]] = [:]
    private var byPlatform: [String: [Int]] = [:]
    private let start: Date

    init(clicks: [SimClick], start: Date) {
        self.clicks = clicks
        self.start = start
        consumed = [Bool](repeating: false, count: clicks.count)
        for click in clicks {
            let platform = click.platform.rawValue
            byPlatform[platform, default: []].append(click.index)
            if let address = click.evidence.addressHash { byAddress[platform + "|" + address, default: []].append(click.index) }
            if let network = click.evidence.networkHash { byNetwork[platform + "|" + network, default: []].append(click.index) }
            if let fingerprint = click.fingerprint { byFingerprint[platform + "|" + fingerprint, default: []].append(click.index) }
        }
    }

    func isConsumed(_ index: Int) -> Bool { consumed[index] }

    mutating func consume(_ index: Int) {
        precondition(!consumed[index], "a click was handed to a second install")
        consumed[index] = true
    }

    /// The click a deterministic signal names, when it is unconsumed and inside the window.
    func unconsumedClick(index: Int, since: Date) -> Int? {
        guard clicks.indices.contains(index), !consumed[index], clicks[index].evidence.createdAt >= since else { return nil }
        return index
    }

    /// The candidate set for an install, as `SQLiteStore.candidates(_:platform:)` builds it: clicks of `platform`, or,
    /// for an install that does not say its platform, of every platform apps are installed on
    /// (`CandidateQuery.attributablePlatforms`).
    func candidates(_ query: CandidateQuery, platform: String?, now: Date) -> CandidateSet {
        let since = query.since, until = min(query.until, now)
        let platforms = platform.map { [$0] } ?? CandidateQuery.attributablePlatforms.map(\.rawValue)
        /// The clicks of the platforms asked for under `key` of `index`, in time order.
        func list(_ index: [String: [Int]], _ key: String) -> [Int]? {
            let lists = platforms.compactMap { index[$0 + "|" + key] }
            return lists.count <= 1 ? lists.first : lists.joined().sorted()
        }
        var chosen = Set<Int>()
        func collect(_ list: [Int]?) {
            guard let list else { return }
            var position = upperBound(list, until) - 1
            var taken = 0
            while position >= 0, taken < CandidateQuery.limitPerKey {
                let index = list[position]
                if clicks[index].evidence.createdAt < since { break }
                if !consumed[index] {
                    chosen.insert(index)
                    taken += 1
                }
                position -= 1
            }
        }
        func count(_ list: [Int]?) -> Int {
            guard let list else { return 0 }
            return upperBound(list, until) - lowerBound(list, since)
        }
        var sameAddress = 0, sameNetwork = 0
        if let address = query.addressHash {
            let found = list(byAddress, address)
            collect(found)
            sameAddress = count(found)
        }
        if let network = query.networkHash {
            let found = list(byNetwork, network)
            collect(found)
            sameNetwork = count(found)
        }
        if let fingerprint = query.fingerprint { collect(list(byFingerprint, fingerprint)) }
        let evidence = chosen.map { clicks[$0].evidence }.sorted {
            $0.createdAt > $1.createdAt || ($0.createdAt == $1.createdAt && $0.clickID < $1.clickID)
        }
        let crowd = platforms.reduce(0) { $0 + count(byPlatform[$1]) }
        return CandidateSet(clicks: evidence, clicksInWindow: crowd, sameAddressClicks: sameAddress, sameNetworkClicks: sameNetwork)
    }

    /// First position whose click is at or after `date`.
    private func lowerBound(_ list: [Int], _ date: Date) -> Int {
        var low = 0, high = list.count
        while low < high {
            let mid = (low + high) / 2
            if clicks[list[mid]].evidence.createdAt < date { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// First position whose click is after `date`.
    private func upperBound(_ list: [Int], _ date: Date) -> Int {
        var low = 0, high = list.count
        while low < high {
            let mid = (low + high) / 2
            if clicks[list[mid]].evidence.createdAt <= date { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
