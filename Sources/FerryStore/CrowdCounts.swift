import FerryAPI
import FerryCore
import Foundation
import Synchronization

/// How many clicks an attribution window holds, remembered for a few seconds once the number is large.
///
/// The matcher weighs a candidate against the crowd of clicks the install could hide in. Counting that crowd is
/// cheap while it is small and costs a scan of the window's index when it holds hundreds of thousands of clicks;
/// at that size a count ten seconds old differs from the true one by the clicks of those seconds, a fraction that
/// moves the matcher's answer by nothing. Small crowds are counted afresh every time.
final class CrowdCounts: Sendable {
    struct Key: Hashable {
        var appID: String
        var environment: APIEnvironment
        var platform: ClientPlatform?
        var windowSeconds: Int
    }

    /// Counts below this are never remembered.
    static let rememberedFrom = 10_000
    /// How long a remembered count is used.
    static let lifetime: TimeInterval = 10

    private let counts = Mutex([Key: (count: Int, at: Date)]())

    static func key(_ query: CandidateQuery, platform: ClientPlatform?) -> Key {
        Key(appID: query.appID, environment: query.environment, platform: platform,
            windowSeconds: Int(query.until.timeIntervalSince(query.since).rounded()))
    }

    /// A remembered count still fresh at `now` (the install's time), or nil.
    func remembered(_ key: Key, now: Date) -> Int? {
        counts.withLock { counts in
            guard let entry = counts[key], abs(now.timeIntervalSince(entry.at)) < Self.lifetime else { return nil }
            return entry.count
        }
    }

    /// Keeps a count made at `now` when it is large enough to be worth keeping.
    func remember(_ count: Int, for key: Key, now: Date) {
        guard count >= Self.rememberedFrom else { return }
        counts.withLock { counts in
            if counts.count > 1000 { counts.removeAll() }  // many apps and windows: start again rather than grow
            counts[key] = (count, now)
        }
    }
}
