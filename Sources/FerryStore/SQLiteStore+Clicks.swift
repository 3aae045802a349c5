#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import GRDB

extension SQLiteStore {
    package func recordClicks(_ clicks: [Click]) async throws {
        guard !clicks.isEmpty else { return }
        try await observation.measure(.write) { try await writer.write { db in _ = try Self.insertClicks(clicks[...], db: db) } }
    }

    /// Writes on the calling thread (GRDB runs a synchronous write there, once the writer connection is free), in
    /// transactions sized to hold the database for about `clickTransactionTarget` each: the recorder's thread runs
    /// at a low priority, and while the processor is saturated it writes many times slower, so its transactions
    /// shrink rather than keep a link's creation waiting for seconds. A transaction also gives way to any other
    /// write that comes meanwhile: it commits what it has written, lets that write through, and goes on. A
    /// transaction during which the thread had the processor less than a quarter of the time says the machine is
    /// saturated: the thread then waits (a tenth of a second, doubling up to two seconds) before taking the database
    /// again, so that a starved writer holds it as little as it can.
    package func recordClicksBlocking(_ clicks: [Click]) throws {
        var rest = clicks[...]
        while !rest.isEmpty {
            let pause = starvedWriterPause.load(ordering: .relaxed)
            if pause > 0 { Thread.sleep(forTimeInterval: Double(pause) / 1e9) }
            let chunk = rest.prefix(clickTransactionSize.load(ordering: .relaxed))
            let started = ContinuousClock.now
            let startedWorking = ThreadClock.now()
            let written = try observation.measureBlocking(.write) {
                try writer.write { db in
                    try Self.insertClicks(chunk, db: db, givingWay: { self.otherWrites.load(ordering: .relaxed) > 0 })
                }
            }
            let elapsed = ContinuousClock.now - started
            let perClick = elapsed / written
            let fitting = perClick > .zero ? Int(Self.clickTransactionTarget / perClick) : Int.max
            clickTransactionSize.store(min(Self.largestClickTransaction, max(Self.clicksBetweenYields, fitting)), ordering: .relaxed)
            rest = rest.dropFirst(written)
            let working = startedWorking.flatMap { start in ThreadClock.now().map { $0 - start } }
            if let working, elapsed > .milliseconds(10), working * 4 < elapsed {
                starvedWriterPause.store(min(max(pause * 2, Self.starvedPause), Self.longestStarvedPause), ordering: .relaxed)
            } else {
                starvedWriterPause.store(0, ordering: .relaxed)
            }
        }
    }

    /// How long a starved click writer first waits before taking the database again, and at most (nanoseconds).
    static let starvedPause: Int64 = 100_000_000
    static let longestStarvedPause: Int64 = 2_000_000_000

    /// How long a transaction of clicks written by `recordClicksBlocking` should hold the database.
    static let clickTransactionTarget = Duration.milliseconds(200)
    /// The most clicks in one transaction (more clicks per transaction write fewer index pages per click).
    static let largestClickTransaction = 20_000

    /// How many clicks are inserted between two looks at whether another write is waiting, and the fewest a
    /// transaction takes.
    static let clicksBetweenYields = 16

    /// Inserts clicks (ignoring ids already stored) and adds the roll-up increments of those stored; stops early,
    /// after a multiple of `clicksBetweenYields`, once `givingWay` says so. Returns how many it took.
    static func insertClicks(_ clicks: ArraySlice<Click>, db: Database, givingWay: () -> Bool = { false }) throws -> Int {
        let statement = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO clicks (id, link_id, app_id, environment, created_at, ip_hash, network_hash, user_agent,
                platform, referer, query, accept_language, os_version, apple_device, user_token, traffic)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var stored: [Click] = []
        stored.reserveCapacity(clicks.count)
        var taken = 0
        for click in clicks {
            if taken > 0, taken % clicksBetweenYields == 0, givingWay() { break }
            taken += 1
            try statement.execute(arguments: [
                click.id, click.linkID, click.appID, click.environment.rawValue, click.createdAt.timeIntervalSince1970,
                click.ipHash, click.networkHash, click.userAgent, click.platform.rawValue, click.referer, click.query,
                click.acceptLanguage, click.osVersion, click.appleDevice, click.userToken, click.traffic.rawValue,
            ])
            if db.changesCount > 0 { stored.append(click) }
        }
        try addClickStats(stored, db: db)
        return taken
    }

    package func clickCount(linkID: String) async throws -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM clicks WHERE link_id = ?", arguments: [linkID]) ?? 0 }
    }

    package func click(id: String) async throws -> Click? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM clicks WHERE id = ?", arguments: [id]).map(Click.init(row:))
        }
    }

    package func reclassifyClicks(ids: [String], from: Set<ClickTraffic>, to traffic: ClickTraffic) async throws -> [Click] {
        guard !ids.isEmpty, !from.isEmpty else { return [] }
        return try await write { db in
            let read = try db.cachedStatement(sql: "SELECT * FROM clicks WHERE id = ?")
            let update = try db.cachedStatement(sql: "UPDATE clicks SET traffic = ? WHERE id = ?")
            var changed: [Click] = []
            for id in Set(ids) {
                guard let click = try Row.fetchOne(read, arguments: [id]).map(Click.init(row:)),
                      click.traffic != traffic, from.contains(click.traffic) else { continue }
                try update.execute(arguments: [traffic.rawValue, id])
                changed.append(click)
            }
            guard !changed.isEmpty else { return [] }
            let utm = try Self.linkUTM(of: changed, db: db)
            let change = StatsRollup.reclassification(of: changed, to: traffic) { utm[$0.linkID] }
            var counts = change.increments
            counts.merge(try Self.removeVisitors(change.removedVisitors, db: db), uniquingKeysWith: +)
            counts.merge(try Self.addVisitors(change.addedVisitors, db: db), uniquingKeysWith: +)
            try Self.addStats(counts.filter { $0.value != 0 }, db: db)
            return changed.map { click in
                var now = click
                now.traffic = traffic
                return now
            }
        }
    }

    /// Nothing to ready: one table, indexed by time.
    package func prepareClickStorage(now: Date) async throws {}

    package func expireClicks(before cutoff: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM clicks WHERE created_at < ?", arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }
}

/// The processor time the calling thread has used.
enum ThreadClock {
    /// Now, on the calling thread's clock; nil where the system has no such clock.
    static func now() -> Duration? {
        #if os(Linux)
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return nil }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        #else
        return nil
        #endif
    }
}
#endif
