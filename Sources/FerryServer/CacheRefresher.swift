#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import FerryStore
import Logging
import ServiceLifecycle

/// Keeps the link cache in step with the store when links, apps, domains or keys change elsewhere (the CLI, another
/// node): a changed link is forgotten by itself, read from the log of link changes; a change to an app, a domain or
/// a key empties the cache. It looks every `interval`, and at once on each of the store's change notices
/// (PostgreSQL's LISTEN/NOTIFY, when the store has them).
package struct CacheRefresher: Service {
    let cache: LinkCache
    let store: any FerryDatabase
    let interval: Duration
    let logger: Logger

    /// Creates a refresher.
    package init(cache: LinkCache, store: any FerryDatabase, interval: Duration, logger: Logger) {
        self.cache = cache
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Where the refresher stands: the counter of app, domain and key changes and the mark in the log of link
    /// changes it last read, and when it last read them.
    struct Position {
        var epoch: Int64?
        var mark: Int64?
        var lastRead: ContinuousClock.Instant?
    }

    /// Looks every `interval` and on each change notice, until shutdown.
    package func run() async throws {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            if let notices = store.changeNotifications() {
                group.addTask {
                    await cancelWhenGracefulShutdown { for await _ in notices { wake.yield() } }
                }
            }
            group.addTask {
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                    wake.yield()
                }
                wake.finish()
            }
            group.addTask {
                var position = Position()
                await self.look(&position)
                for await _ in wakes { await self.look(&position) }
            }
            await group.waitForAll()
        }
    }

    /// Reads what changed since `position` and makes the cache forget it.
    func look(_ position: inout Position) async {
        do {
            let epoch = try await store.changeEpoch()
            let now = ContinuousClock.now
            // A refresher that could not read the log for longer than the log is kept may have missed entries.
            let outOfReach = position.lastRead.map { now - $0 > .seconds(LinkChanges.retention / 2) } ?? false
            if position.epoch != nil && (position.epoch != epoch || outOfReach) {
                cache.removeAll()
                position.mark = nil
            }
            position.epoch = epoch
            let changes = try await store.linkChanges(since: position.mark)
            if let places = changes.places {
                for place in places { cache.invalidate(domain: place.domain, slug: place.slug) }
            } else {
                cache.removeAll()
            }
            position.mark = changes.mark
            position.lastRead = now
        } catch {
            logger.warning("cannot read what changed", metadata: ["error": "\(error)"])
        }
    }
}
#endif
