#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import Synchronization

/// How many clicks an attribution window holds, remembered for a few seconds once the number is large.
///
/// The matcher weighs a candidate against the crowd of clicks the install could hide in. Counting that crowd is
/// cheap while it is small and costs a scan of the window's index when it holds hundreds of thousands of clicks
/// (tens of milliseconds at a million); at that size a count ten seconds old differs from the true one by the
/// clicks of those seconds, a fraction that moves the matcher's answer by nothing. Small crowds are counted afresh
/// every time.
///
/// When a remembered count grows old, one caller counts again while the others go on with the old count, rather
/// than every match in flight scanning the same index at once (which stalled all of them every ten seconds).
final class CrowdCounts: Sendable {
    struct Key: Hashable {
        var appID: String
        var environment: APIEnvironment
        var platform: ClientPlatform?
        var windowSeconds: Int
    }

    private struct Entry {
        var count: Int
        var at: Date
        /// When a caller took it on itself to count again (a claim older than `lifetime` is void: its counting failed).
        var recountingSince: Date?
    }

    /// Counts below this are never remembered.
    static let rememberedFrom = 10_000
    /// How long a remembered count is used as it is.
    static let lifetime: TimeInterval = 10
    /// How long an old count is still used while one caller counts again.
    static let staleLimit: TimeInterval = 60

    private let counts = Mutex([Key: Entry]())

    static func key(_ query: CandidateQuery, platform: ClientPlatform?) -> Key {
        Key(appID: query.appID, environment: query.environment, platform: platform,
            windowSeconds: Int(query.until.timeIntervalSince(query.since).rounded()))
    }

    /// The count to use at `now` (the install's time), or nil when the caller is to count the crowd and
    /// `remember` what it counted. A count older than `lifetime` is handed to one caller to count again (nil) and
    /// still used by the others meanwhile, up to `staleLimit`.
    func remembered(_ key: Key, now: Date) -> Int? {
        counts.withLock { counts in
            guard var entry = counts[key] else { return nil }
            let age = abs(now.timeIntervalSince(entry.at))
            if age < Self.lifetime { return entry.count }
            guard age < Self.staleLimit else { return nil }
            if let since = entry.recountingSince, abs(now.timeIntervalSince(since)) < Self.lifetime { return entry.count }
            entry.recountingSince = now
            counts[key] = entry
            return nil
        }
    }

    /// Keeps a count made at `now` when it is large enough to be worth keeping.
    func remember(_ count: Int, for key: Key, now: Date) {
        counts.withLock { counts in
            guard count >= Self.rememberedFrom else {
                counts[key] = nil
                return
            }
            if counts.count > 1000 { counts.removeAll() }  // many apps and windows: start again rather than grow
            counts[key] = Entry(count: count, at: now)
        }
    }
}
#endif
