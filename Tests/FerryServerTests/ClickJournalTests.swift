#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The click journal on a real file system: records read back as written across segments, a checkpoint that survives
/// a reopen, a tail cut short by a kill, damage skipped, a bound that refuses, one process at a time. Then the
/// recorder through it over real SQLite: an outage far longer than the memory buffer loses nothing, a restart writes
/// what an earlier run left, a full journal drops and says so.
@Suite("Click journal", .takesTurns)
struct ClickJournalTests {
    static func payload(_ index: Int, size: Int = 100) -> [UInt8] {
        Array("record \(index) ".utf8) + [UInt8](repeating: UInt8(index & 0xFF), count: size)
    }

    static func readAll(_ journal: ClickJournal, from position: JournalPosition) throws -> (payloads: [[UInt8]], next: JournalPosition) {
        var at = position
        var payloads: [[UInt8]] = []
        while true {
            let (records, next) = try journal.read(from: at, count: 7)
            payloads += records.map(\.payload)
            if next == at { return (payloads, at) }
            at = next
        }
    }

    @Test func crc32cIsCastagnolis() {
        // The check value of CRC-32C, and the iSCSI test vector of 32 zero bytes (RFC 3720, B.4).
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        // Eight bytes a step gives what a bit at a time gives, for every length and alignment up to a few words.
        func bitwise(_ bytes: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return crc ^ 0xFFFF_FFFF
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<80).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for start in 0..<8 {
            for end in start...bytes.count {
                let slice = bytes[start..<end]
                #expect(CRC32C.checksum(slice) == bitwise(slice), "bytes \(start)..<\(end)")
                #expect(slice.withUnsafeBytes { CRC32C.tableChecksum($0) } == bitwise(slice), "tables, bytes \(start)..<\(end)")
            }
        }
        // A record's length, as the journal takes them: the processor's instructions and the tables agree.
        let record = (0..<4099).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(CRC32C.checksum(record) == record.withUnsafeBytes { CRC32C.tableChecksum($0) })
    }

    @Test func crc32cRunsOnTheProcessorWhereItCan() {
        // Every x86-64 server processor since 2008 has SSE 4.2, and every Mac with Apple silicon the CRC extension (a
        // build for 64-bit ARM Linux in general does not assume it, and uses the tables).
        #if arch(x86_64) || (arch(arm64) && os(macOS))
        #expect(CRC32C.onProcessor)
        #endif
    }

    @Test func aClickIsReadBackAsWrittenAndAnythingElseIsNotAClick() throws {
        let full = Click(id: "clk_1", linkID: "lnk_1", appID: "app_1", environment: .test, createdAt: Date(timeIntervalSince1970: 1_790_000_000.123456),
                         ipHash: "a1b2", networkHash: "c3d4", userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) “Ünïcode”",
                         platform: .iOS, referer: "https://t.co/x", query: "utm_source=mail&x=%20", acceptLanguage: "fr-FR,fr;q=0.9",
                         osVersion: "18.1", appleDevice: "iphone", userToken: "tok", traffic: .prefetch)
        let bare = Click(id: "clk_2", linkID: "lnk_2", appID: "app_2", environment: .live, createdAt: Date(timeIntervalSince1970: 0), ipHash: nil,
                         networkHash: nil, userAgent: nil, platform: .bot, referer: nil, query: "", acceptLanguage: nil)
        for click in [full, bare] {
            let bytes = ClickRecordCoding.encode(click)
            #expect(ClickRecordCoding.decode(bytes) == click)
            #expect(ClickRecordCoding.decode(Array(bytes.dropLast())) == nil, "cut short")
            #expect(ClickRecordCoding.decode(bytes + [0]) == nil, "with bytes after it")
        }
        #expect(ClickRecordCoding.decode([3] + ClickRecordCoding.encode(full).dropFirst()) == nil, "another version")
        #expect(ClickRecordCoding.decode([]) == nil)
        var unknownPlatform = ClickRecordCoding.encode(bare)
        let platform = try #require(unknownPlatform.firstRange(of: Array("bot".utf8)))
        unknownPlatform.replaceSubrange(platform, with: Array("car".utf8))
        #expect(ClickRecordCoding.decode(unknownPlatform) == nil)
    }

    @Test func addressDigestsAreKeptAsTheirBitsAndReadBackAsTheHashesTheDatabaseKeeps() throws {
        let hasher = AddressHasher(key: "journal-test-key")
        let address = try #require(IPAddress("203.0.113.9"))
        let click = Click(id: "clk_3", linkID: "lnk_3", appID: "app_3", environment: .live, createdAt: Date(timeIntervalSince1970: 1_790_000_000),
                          ipHash: nil, networkHash: nil, userAgent: "curl/8", platform: .desktop, referer: nil, query: nil, acceptLanguage: nil)
        var bytes: [UInt8] = []
        ClickRecordCoding.encode(click, address: (hasher.digest(address), hasher.networkDigest(address)), into: &bytes)
        var hashed = click
        hashed.ipHash = hasher.hash(address)
        hashed.networkHash = hasher.hashNetwork(address)
        #expect(ClickRecordCoding.decode(bytes) == hashed)
        // Hashes given replace the click's own, none given means none; a traffic given replaces the click's.
        var unresolved: [UInt8] = []
        ClickRecordCoding.encode(hashed, address: (nil, nil), traffic: .scanner, into: &unresolved)
        var scanner = click
        scanner.traffic = .scanner
        #expect(ClickRecordCoding.decode(unresolved) == scanner)
        // A click whose hashes are texts already keeps them: as bits when they are a digest's hex, else as they are.
        #expect(ClickRecordCoding.decode(ClickRecordCoding.encode(hashed)) == hashed)
        #expect(ClickRecordCoding.encode(hashed).count == bytes.count)
        var odd = click
        odd.ipHash = "not-hex"
        odd.networkHash = "ABCDEF0123456789ABCDEF0123456789"
        #expect(ClickRecordCoding.decode(ClickRecordCoding.encode(odd)) == odd)
    }

    @Test func recordsAnEarlierReleaseAppendedAreStillRead() throws {
        // Version 1 had the hashes as texts: a journal left by that release is read after the upgrade.
        let click = Click(id: "clk_4", linkID: "lnk_4", appID: "app_4", environment: .test, createdAt: Date(timeIntervalSince1970: 1_790_000_000.5),
                          ipHash: "0123456789abcdef0123456789abcdef", networkHash: "fedcba9876543210fedcba9876543210", userAgent: "Mozilla/5.0",
                          platform: .android, referer: nil, query: "a=b", acceptLanguage: "de", osVersion: "14", appleDevice: nil, userToken: nil,
                          traffic: .person)
        var bytes: [UInt8] = [1]
        func text(_ value: String?) {
            guard let value else { return bytes += [0xFF, 0xFF, 0xFF, 0xFF] }
            withUnsafeBytes(of: UInt32(value.utf8.count).littleEndian) { bytes += $0 }
            bytes += Array(value.utf8)
        }
        for value in [click.id, click.linkID, click.appID, click.environment.rawValue] { text(value) }
        withUnsafeBytes(of: click.createdAt.timeIntervalSinceReferenceDate.bitPattern.littleEndian) { bytes += $0 }
        for value in [click.ipHash, click.networkHash, click.userAgent, click.platform.rawValue, click.referer, click.query, click.acceptLanguage,
                      click.osVersion, click.appleDevice, click.userToken, click.traffic.rawValue] { text(value) }
        #expect(ClickRecordCoding.decode(bytes) == click)
    }

    @Test func recordsComeBackInOrderAcrossSegmentsAndTheCheckpointSurvivesAReopen() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var journal: ClickJournal? = try ClickJournal(directory: directory, maxBytes: 1 << 20, segmentBytes: 4096)
        let written = (0..<100).map { Self.payload($0) }
        var ranges: [(start: JournalPosition, end: JournalPosition)] = []
        for chunk in stride(from: 0, to: 100, by: 10) { ranges += try #require(journal).append(Array(written[chunk..<(chunk + 10)])) }
        #expect(Set(ranges.map(\.start.segment)).count >= 3, "4 KiB segments hold about 35 records")
        for (earlier, later) in zip(ranges, ranges.dropFirst()) { #expect(earlier.end <= later.start) }
        let start = try #require(journal).positions.checkpoint
        let all = try Self.readAll(try #require(journal), from: start)
        #expect(all.payloads == written)

        // The database stored the first 60: their whole segments go, and a reopened journal reads from the 61st.
        try #require(journal).commit(ranges[59].end)
        let before = try ClickJournal.segmentNumbers(in: directory)
        #expect(!before.contains(ranges[0].start.segment) && before.contains(ranges[59].end.segment))
        journal = nil
        let reopened = try ClickJournal(directory: directory, maxBytes: 1 << 20, segmentBytes: 4096)
        #expect(reopened.positions.checkpoint == ranges[59].end)
        #expect(try Self.readAll(reopened, from: reopened.positions.checkpoint).payloads == Array(written[60...]))
        #expect(reopened.backlogBytes == ranges[60...].reduce(0) { $0 + $1.end.offset - $1.start.offset })
        // Appends of the new run go after the old ones.
        let next = try reopened.append([Self.payload(100)])
        #expect(next[0].start.segment > ranges[99].end.segment)
        #expect(try Self.readAll(reopened, from: reopened.positions.checkpoint).payloads == Array(written[60...]) + [Self.payload(100)])
    }

    @Test func aRecordCutShortByAKillIsCutOffAndDamageIsSkipped() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var journal: ClickJournal? = try ClickJournal(directory: directory, maxBytes: 1 << 20, segmentBytes: 1 << 16)
        let ranges = try #require(journal).append((0..<10).map { Self.payload($0) })
        journal = nil
        // The process was killed in the middle of its next write: half a record at the end of the segment.
        let segment = ClickJournal.segmentURL(ranges[0].start.segment, in: directory)
        var bytes = try Data(contentsOf: segment)
        let whole = bytes.count
        var torn: [UInt8] = []
        ClickJournal.appendUInt32(200, to: &torn)
        ClickJournal.appendUInt32(CRC32C.checksum(Self.payload(10, size: 192)), to: &torn)
        bytes.append(contentsOf: torn + Self.payload(10, size: 192).prefix(50))
        try bytes.write(to: segment)

        let reopened = try ClickJournal(directory: directory, maxBytes: 1 << 20, segmentBytes: 1 << 16)
        #expect(ClickJournal.fileSize(segment) == Int64(whole), "the torn record is cut off")
        #expect(try Self.readAll(reopened, from: reopened.positions.checkpoint).payloads == (0..<10).map { Self.payload($0) })

        // A byte flipped in the fourth record of the closed segment: the rest of that segment is skipped, counted,
        // and the records of the next segment are still read.
        let later = try reopened.append([Self.payload(11)])
        var damaged = try Data(contentsOf: segment)
        damaged[Int(ranges[3].start.offset) + 12] ^= 0xFF
        try damaged.write(to: segment)
        let read = try Self.readAll(reopened, from: reopened.positions.checkpoint)
        #expect(read.payloads == (0..<3).map { Self.payload($0) } + [Self.payload(11)])
        #expect(read.next == later[0].end)
        #expect(reopened.damagedRecords == 1)
    }

    @Test func aFullJournalRefusesWholeAppendsAndOneProcessHoldsIt() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try ClickJournal(directory: directory, maxBytes: 9_000, segmentBytes: 4096)
        let batch = (0..<20).map { Self.payload($0) }  // 2,340 bytes framed
        _ = try journal.append(batch)
        _ = try journal.append(batch)
        _ = try journal.append(batch)
        #expect(throws: ClickJournal.Full.self) { try journal.append(batch) }
        #expect(try Self.readAll(journal, from: journal.positions.checkpoint).payloads.count == 60, "nothing of the refused append was written")
        // Stored, the journal has room again.
        try journal.commit(journal.positions.end)
        #expect(journal.backlogBytes == 0)
        _ = try journal.append(batch)

        #expect {
            _ = try ClickJournal(directory: directory, maxBytes: 10_000)
        } throws: { error in
            "\(error)".contains("in use by another Ferry process")
        }
    }

    // MARK: The recorder through the journal

    @Test(arguments: [false, true])
    func anOutageLongerThanTheBufferLosesNoClickAndEachIsStoredOnce(onTheWritingThread: Bool) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "spike", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let journal = try ClickJournal(directory: fixture.directory.appendingPathComponent("clicks"), maxBytes: 64 << 20, segmentBytes: 16_384)
        let faults = FaultPlan()
        faults.state.withLock { $0.down = true }
        let written = WrittenClicks()
        let recorder = ClickRecorder(store: ClickRecorderTests.failing(fixture.store, faults, onTheWritingThread: onTheWritingThread), journal: journal,
                                     flushInterval: .seconds(60), batchSize: 40, bufferLimit: 25, logger: RecordingLogHandler.Records().logger(.error),
                                     afterWrite: { written.add($0) })
        let ids = (0..<600).map { "clk_spike\($0)" }
        for chunk in stride(from: 0, to: 600, by: 20) {
            for id in ids[chunk..<(chunk + 20)] {
                #expect(recorder.record(ClickRecorderTests.click(id, linkID: link.id, appID: fixture.app.id)), "a click is never refused")
            }
            await recorder.flush()
        }
        #expect(recorder.statistics.dropped == 0)
        #expect(recorder.statistics.pending == 25, "memory holds only the latest 25; the rest is in the journal")
        #expect(try #require(recorder.journalStatistics).backlogBytes > 50_000)
        #expect(try ClickJournal.segmentNumbers(in: journal.directory).count > 3)
        #expect(try await ClickRecorderTests.stored(link, in: fixture) == (rows: 0, counted: 0))

        // The database is back: the backlog is read back from the journal, then the latest from memory.
        faults.state.withLock { $0.down = false }
        await recorder.flush()
        #expect(recorder.statistics == (pending: 0, recorded: 600, dropped: 0))
        #expect(try await ClickRecorderTests.stored(link, in: fixture) == (rows: 600, counted: 600))
        #expect(written.ids == ids, "stored in the order answered, each once")
        let stats = try #require(recorder.journalStatistics)
        #expect(stats.backlogBytes == 0 && stats.damaged == 0)
        #expect(try ClickJournal.segmentNumbers(in: journal.directory).count == 1, "stored segments are deleted")
    }

    @Test func clicksHandedOverFromManyThreadsAtOnceAreEachKeptWithTheirAddressesHashes() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "threads", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let hasher = AddressHasher(key: "journal-threads-key-0123456789")
        let journal = try ClickJournal(directory: fixture.directory.appendingPathComponent("clicks"), maxBytes: 64 << 20)
        let recorder = ClickRecorder(store: fixture.store, journal: journal, flushInterval: .seconds(60), batchSize: 500, bufferLimit: 10_000,
                                     logger: RecordingLogHandler.Records().logger(.error), hasher: hasher)
        // Each thread hands its clicks to an intake of its own; the appender takes them all. Behind the loopback proxy,
        // the forwarded address is the client's; a click without an origin keeps the hash it carries.
        let (threads, each) = (12, 150)
        @Sendable func client(_ n: Int) -> String { "203.0.\(113 + n % 3).\(n % 250 + 1)" }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for n in 0..<each {
                var click = ClickRecorderTests.click("clk_t\(thread)_\(n)", linkID: link.id, appID: fixture.app.id)
                if n == 0 {
                    click.ipHash = "carried"
                    recorder.record(click)
                } else {
                    recorder.record(click, origin: ClickOrigin(peer: "127.0.0.1", forwardedFor: [client(n)]))
                }
            }
        }
        #expect(recorder.isPending(clickID: "clk_t5_9") && !recorder.isPending(clickID: "clk_t5_999"))
        #expect(recorder.statistics == (pending: threads * each, recorded: 0, dropped: 0))
        await recorder.flush()
        #expect(recorder.statistics == (pending: 0, recorded: threads * each, dropped: 0))
        #expect(try await ClickRecorderTests.stored(link, in: fixture) == (rows: threads * each, counted: threads * each))
        for thread in 0..<threads {
            for n in 0..<each {
                let stored = try #require(try await fixture.store.click(id: "clk_t\(thread)_\(n)"))
                if n == 0 {
                    #expect(stored.ipHash == "carried" && stored.networkHash == nil)
                } else {
                    let address = try #require(IPAddress(client(n)))
                    #expect(stored.ipHash == hasher.hash(address) && stored.networkHash == hasher.hashNetwork(address), "clk_t\(thread)_\(n)")
                }
                #expect(stored.userAgent == UA.iPhoneSafari && stored.traffic == .person)
            }
        }
    }

    @Test func aRestartWritesWhatTheLastRunLeftAndNothingTwice() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "again", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let directory = fixture.directory.appendingPathComponent("clicks")
        let ids = (0..<50).map { "clk_again\($0)" }
        do {
            // The first run stores 20, appends 30 more while the database is away, and is killed (never stopped).
            let journal = try ClickJournal(directory: directory, maxBytes: 64 << 20)
            let faults = FaultPlan()
            let recorder = ClickRecorder(store: ClickRecorderTests.failing(fixture.store, faults, onTheWritingThread: true), journal: journal,
                                         flushInterval: .seconds(60), batchSize: 10, bufferLimit: 1_000, logger: RecordingLogHandler.Records().logger(.error))
            for id in ids.prefix(20) { recorder.record(ClickRecorderTests.click(id, linkID: link.id, appID: fixture.app.id)) }
            await recorder.flush()
            #expect(recorder.statistics.recorded == 20)
            faults.state.withLock { $0.down = true }
            for id in ids.suffix(30) { recorder.record(ClickRecorderTests.click(id, linkID: link.id, appID: fixture.app.id)) }
            await recorder.flush()
            #expect(recorder.statistics == (pending: 30, recorded: 20, dropped: 0))
        }
        // The checkpoint is lost too (as if the kill came between a commit and its checkpoint): the next run reads the
        // stored 20 again, and the database takes each click once.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("checkpoint"))
        let journal = try ClickJournal(directory: directory, maxBytes: 64 << 20)
        #expect(journal.backlogBytes > 0)
        let recorder = ClickRecorder(store: fixture.store, journal: journal, flushInterval: .milliseconds(20), batchSize: 10, bufferLimit: 1_000,
                                     logger: RecordingLogHandler.Records().logger(.error))
        let running = Task { try await recorder.run() }
        #expect(try await ClickRecorderTests.waitUntil { try await ClickRecorderTests.stored(link, in: fixture).rows == 50 })
        running.cancel()
        try await running.value
        #expect(try await ClickRecorderTests.stored(link, in: fixture) == (rows: 50, counted: 50))
        for id in ids { #expect(try await fixture.store.click(id: id) != nil) }
        #expect(journal.backlogBytes == 0)
    }

    @Test func aFullJournalDropsCountsAndRaisesTheAlarmUntilItHasRoom() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "full", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let journal = try ClickJournal(directory: fixture.directory.appendingPathComponent("clicks"), maxBytes: 8_192, segmentBytes: 4096)
        let faults = FaultPlan()
        faults.state.withLock { $0.down = true }
        let log = RecordingLogHandler.Records()
        let recorder = ClickRecorder(store: ClickRecorderTests.failing(fixture.store, faults, onTheWritingThread: true), journal: journal,
                                     flushInterval: .seconds(60), batchSize: 10, bufferLimit: 1_000, logger: log.logger(.trace))
        var kept = 0
        for round in 0..<20 {
            for index in 0..<5 { recorder.record(ClickRecorderTests.click("clk_full\(round)_\(index)", linkID: link.id, appID: fixture.app.id)) }
            await recorder.flush()
            if recorder.journalStatistics?.full == false { kept += 5 }
        }
        let full = try #require(recorder.journalStatistics)
        #expect(full.full && full.bytes <= 8_192)
        #expect(kept > 10 && kept < 100)
        #expect(recorder.statistics.dropped == 100 - kept)
        #expect(log.entries(saying: "click journal full: clicks are answered but dropped until the database catches up or the journal gets room").count == 1,
                "said once, not once per click")

        faults.state.withLock { $0.down = false }
        await recorder.flush()
        #expect(try await ClickRecorderTests.stored(link, in: fixture).rows == kept)
        recorder.record(ClickRecorderTests.click("clk_after", linkID: link.id, appID: fixture.app.id))
        await recorder.flush()
        #expect(recorder.journalStatistics?.full == false)
        #expect(log.entries(saying: "click journal has room again; clicks are kept").count == 1)
        #expect(try await fixture.store.click(id: "clk_after") != nil)
    }

    /// Through the whole server: a click answered moments ago, still on its way from the journal to the database, is
    /// found by the install its token reaches (the deterministic tier writes it first), and the journal holds it with
    /// the address's hashes only.
    @Test func anInstallFindsItsClickWhileItIsStillOnItsWayThroughTheJournal() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "journal", destination: "https://example.com/j"), app: fixture.app, environment: .live)
        var configuration = Fixture.configuration
        configuration.clickJournal = .directory(fixture.directory.appendingPathComponent("clicks").path)
        configuration.clickFlushInterval = .seconds(3600)  // only the install's own lookup writes the click
        let clickID = try await fixture.application(configuration).test(.router) { client in
            let clickID = try await clickOnIPhone(client, slug: "journal", address: "203.0.113.77", report: nil)
            #expect(try await fixture.store.click(id: clickID) == nil, "not written yet")
            let match = try await client.execute(
                uri: "/v1/attribution/match", method: .post, headers: headers(key: fixture.publishable, json: true, extra: [(.forwardedFor, "198.51.100.9")]),
                body: jsonBody(MatchRequest(installID: "IDFV-J", signals: iPhoneSignals, clickToken: "ferry:\(clickID)")))
            let answer = try match.decode(MatchResponse.self)
            #expect(answer.matched && answer.matchType == .deterministic && answer.confidence == 1)
            #expect(try await fixture.store.click(id: clickID)?.ipHash != nil)
            return clickID
        }
        let journal = fixture.directory.appendingPathComponent("clicks")
        let bytes = try ClickJournal.segmentNumbers(in: journal).map { try Data(contentsOf: ClickJournal.segmentURL($0, in: journal)) }
            .reduce(Data(), +)
        #expect(bytes.range(of: Data(clickID.utf8)) != nil, "the click is in the journal")
        #expect(bytes.range(of: Data("203.0.113.77".utf8)) == nil, "its address is not")
    }
}
#endif
