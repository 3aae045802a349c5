#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import CFerryHashing
import FerryAPI
import FerryCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Where a record of the click journal starts or ends: a segment's number and a byte offset in it. Positions are
/// ordered as the records were appended.
package struct JournalPosition: Comparable, Hashable, Sendable, CustomStringConvertible {
    package var segment: UInt64
    package var offset: Int64

    package init(segment: UInt64, offset: Int64) {
        self.segment = segment
        self.offset = offset
    }

    package static func < (a: Self, b: Self) -> Bool { (a.segment, a.offset) < (b.segment, b.offset) }
    package var description: String { "\(segment):\(offset)" }
}

/// An append-only file of the clicks the edge answered and the database has not yet stored: the click recorder appends
/// every click to it before anything else, and the database writer reads from it, so a click answered is kept however
/// far the database falls behind and whenever the process stops.
///
/// The journal is a directory of segment files (`00000000000000000001.clicks`, …, at most `segmentBytes` each; a new
/// one at every start), and a `checkpoint` file naming the position up to which the database has stored the clicks.
/// A record is its payload's length and CRC-32C (little-endian, 4 bytes each), then the payload: one click with the
/// keyed hashes of its address, never the address (`ClickRecordCoding`). Segments wholly before the checkpoint are
/// deleted. At start, a record cut short or damaged at the end of the last segment (the process was killed while
/// writing it) is cut off; everything from the checkpoint on is read again. The database's inserts ignore clicks it
/// already has, so a checkpoint written late only repeats work.
///
/// Appends come from one caller at a time (the recorder's journal thread); reads, commits and the counters may come
/// from any thread.
package final class ClickJournal: @unchecked Sendable {
    package struct Full: Error, CustomStringConvertible {
        package var description: String
    }

    private struct Shared {
        /// Where the next record will be appended; everything before it is in the files.
        var end: JournalPosition
        /// What the database has stored.
        var checkpoint: JournalPosition
        /// Sizes of the segments not yet deleted, by number.
        var sizes: [UInt64: Int64]
        /// Whether anything was appended since the last flush to the disk.
        var unsynced = false
        /// Damaged records skipped when reading.
        var damaged = 0
    }

    package let directory: URL
    package let maxBytes: Int64
    package let segmentBytes: Int64
    /// Free space the journal leaves on its file system, whatever `maxBytes` allows.
    package let reserveBytes: Int64
    /// How large the segment appended to grows before a commit that finds everything stored starts a new one.
    package var catchUpRoll: Int64 { min(segmentBytes, max(4096, maxBytes / 8), 1 << 20) }
    private let shared: Mutex<Shared>
    /// The segment appended to, open for writing.
    private let appendFile = Mutex<Int32>(-1)
    /// The directory's `lock` file, held (`flock`) while the journal is open: two processes never share a journal.
    private let lockFile: Int32

    /// Opens (or makes) the journal in `directory`: cuts off a damaged tail, deletes segments the checkpoint has passed,
    /// and starts a new segment for this run's appends.
    package init(directory: URL, maxBytes: Int64, segmentBytes: Int64 = 32 << 20, reserveBytes: Int64 = 1 << 30) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        self.segmentBytes = max(4096, segmentBytes)
        self.reserveBytes = reserveBytes
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        lockFile = open(directory.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFile >= 0 else { throw JournalError("cannot open the click journal in \(directory.path): errno \(errno)") }
        guard flock(lockFile, LOCK_EX | LOCK_NB) == 0 else {
            _ = close(lockFile)
            throw JournalError("the click journal \(directory.path) is in use by another Ferry process: give each node its own (FERRY_CLICK_JOURNAL)")
        }
        var numbers = try Self.segmentNumbers(in: directory)
        var checkpoint = Self.readCheckpoint(in: directory) ?? JournalPosition(segment: numbers.first ?? 1, offset: 0)
        for number in numbers where number < checkpoint.segment {
            try? FileManager.default.removeItem(at: Self.segmentURL(number, in: directory))
        }
        numbers.removeAll { $0 < checkpoint.segment }
        var sizes: [UInt64: Int64] = [:]
        for number in numbers {
            let url = Self.segmentURL(number, in: directory)
            // Every segment but the last was closed whole; the last may end in a record cut short.
            let size = number == numbers.last ? try Self.cutDamagedTail(url) : Self.fileSize(url)
            sizes[number] = size
        }
        if let first = numbers.first, checkpoint.segment < first { checkpoint = JournalPosition(segment: first, offset: 0) }
        let next = (numbers.last ?? (checkpoint.segment > 0 ? checkpoint.segment - 1 : 0)) + 1
        if numbers.isEmpty { checkpoint = JournalPosition(segment: next, offset: 0) }
        let descriptor = try Self.create(Self.segmentURL(next, in: directory))
        sizes[next] = 0
        shared = Mutex(Shared(end: JournalPosition(segment: next, offset: 0), checkpoint: checkpoint, sizes: sizes))
        appendFile.withLock { $0 = descriptor }
    }

    deinit {
        appendFile.withLock { if $0 >= 0 { _ = close($0) } }
        _ = close(lockFile)  // and with it the lock
    }

    /// Where the next record goes, and what the database has stored.
    package var positions: (end: JournalPosition, checkpoint: JournalPosition) {
        shared.withLock { ($0.end, $0.checkpoint) }
    }

    /// Bytes of the segments not yet deleted.
    package var bytes: Int64 { shared.withLock { $0.sizes.values.reduce(0, +) } }

    /// Bytes appended and not yet stored by the database.
    package var backlogBytes: Int64 {
        shared.withLock { shared in
            max(0, shared.sizes.filter { $0.key >= shared.checkpoint.segment }.values.reduce(0, +) - shared.checkpoint.offset)
        }
    }

    /// Damaged records skipped when reading since the journal was opened.
    package var damagedRecords: Int { shared.withLock { $0.damaged } }

    /// Appends records (each a payload, framed here) in one write; returns where each record starts and ends. Throws
    /// `Full`, and writes nothing, when they would take the journal past `maxBytes` or its file system below
    /// `reserveBytes`.
    package func append(_ payloads: [[UInt8]]) throws -> [(start: JournalPosition, end: JournalPosition)] {
        var records = JournalRecords()
        for payload in payloads { records.append { $0.append(contentsOf: payload) } }
        let start = try append(records)
        return records.ends.indices.map { index in
            (JournalPosition(segment: start.segment, offset: start.offset + Int64(index == 0 ? 0 : records.ends[index - 1])),
             JournalPosition(segment: start.segment, offset: start.offset + Int64(records.ends[index])))
        }
    }

    /// Appends records framed already, in one write; returns where the first starts (record `i` ends `ends[i]` bytes
    /// after it, in the same segment). Throws `Full`, and writes nothing, when they would take the journal past
    /// `maxBytes` or its file system below `reserveBytes`.
    package func append(_ records: JournalRecords) throws -> JournalPosition {
        let size = Int64(records.bytes.count)
        if let free = Self.freeBytes(directory), free - size < reserveBytes {
            throw Full(description: "the click journal's file system has \(free) bytes free, under the \(reserveBytes) it leaves free")
        }
        guard size > 0 else { return shared.withLock { $0.end } }
        // Under the file's lock, so that a commit that finds everything stored does not start a new segment between
        // this write and the end it moves.
        return try appendFile.withLock { descriptor in
            let (start, total) = shared.withLock { ($0.end, $0.sizes.values.reduce(0, +)) }
            if total + size > maxBytes {
                throw Full(description: "the click journal holds \(total) bytes of its limit of \(maxBytes)")
            }
            var at = start
            if at.offset > 0, at.offset + size > segmentBytes {
                // The segment is full: the next one takes these records.
                at = try startSegment(after: at.segment, replacing: &descriptor)
            }
            try records.bytes.withUnsafeBytes { try Self.writeAll(descriptor, $0) }
            shared.withLock { shared in
                shared.end = JournalPosition(segment: at.segment, offset: at.offset + size)
                shared.sizes[at.segment] = at.offset + size
                shared.unsynced = true
            }
            return at
        }
    }

    /// Closes the segment appended to (flushed to the disk) and makes the next one; called under `appendFile`'s lock.
    private func startSegment(after number: UInt64, replacing descriptor: inout Int32) throws -> JournalPosition {
        let next = number + 1
        let opened = try Self.create(Self.segmentURL(next, in: directory))
        _ = fsync(descriptor)
        _ = close(descriptor)
        descriptor = opened
        let start = JournalPosition(segment: next, offset: 0)
        shared.withLock { shared in
            shared.sizes[next] = 0
            shared.end = start
        }
        return start
    }

    /// Flushes what was appended to the disk (when anything was since the last time).
    package func sync() {
        let needed = shared.withLock { shared in
            defer { shared.unsynced = false }
            return shared.unsynced
        }
        guard needed else { return }
        appendFile.withLock { descriptor in _ = fsync(descriptor) }
    }

    /// Reads records from `position` up to the end, at most `count` of them. Returns the payloads with
    /// where each starts and ends, and the position after the last one read; past the end of a closed segment the
    /// position moves to the start of the next. A damaged record in a closed segment (a disk's fault) ends its segment:
    /// it is counted in `damagedRecords` and the rest of that segment is skipped.
    package func read(from position: JournalPosition, count: Int) throws
        -> (records: [(payload: [UInt8], start: JournalPosition, end: JournalPosition)], next: JournalPosition)
    {
        let (stop, sizes) = shared.withLock { ($0.end, $0.sizes) }
        var at = position
        var records: [(payload: [UInt8], start: JournalPosition, end: JournalPosition)] = []
        while records.count < count, at < stop {
            let segmentEnd = at.segment == stop.segment ? stop.offset : (sizes[at.segment] ?? 0)
            if at.offset >= segmentEnd {
                // The end of a closed segment (or of one deleted under us): on to the next that exists.
                guard at.segment < stop.segment else { break }
                let following = sizes.keys.filter { $0 > at.segment }.min() ?? stop.segment
                at = JournalPosition(segment: following, offset: 0)
                continue
            }
            let url = Self.segmentURL(at.segment, in: directory)
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw JournalError("cannot read \(url.path): errno \(errno)") }
            defer { _ = close(descriptor) }
            var offset = at.offset
            let chunk = Int(min(segmentEnd - offset, 4 << 20))
            var bytes = [UInt8](repeating: 0, count: chunk)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, chunk, off_t(offset)) }
            guard got > 0 else { throw JournalError("cannot read \(url.path) at \(offset): errno \(errno)") }
            var index = 0
            var damaged = false
            while records.count < count, index + 8 <= got {
                let length = Int(Self.uint32(bytes, at: index))
                let checksum = Self.uint32(bytes, at: index + 4)
                guard length <= 1 << 20 else { damaged = true; break }
                if index + 8 + length > got {
                    // A record longer than what is left of this read: read again from it, unless the segment ends.
                    if offset + Int64(index + 8 + length) > segmentEnd { damaged = true }
                    break
                }
                let payload = Array(bytes[(index + 8)..<(index + 8 + length)])
                guard CRC32C.checksum(payload) == checksum else { damaged = true; break }
                let start = JournalPosition(segment: at.segment, offset: offset + Int64(index))
                index += 8 + length
                records.append((payload, start, JournalPosition(segment: at.segment, offset: offset + Int64(index))))
            }
            offset += Int64(index)
            if damaged {
                shared.withLock { $0.damaged += 1 }
                at = JournalPosition(segment: at.segment, offset: segmentEnd)
            } else {
                at = JournalPosition(segment: at.segment, offset: offset)
                if index == 0 { break }
            }
        }
        return (records, at)
    }

    /// Records that the database has stored everything before `position`: writes the checkpoint and deletes the
    /// segments wholly before it. When everything appended is stored and the segment appended to has grown past
    /// `catchUpRoll`, the next appends go to a new segment, so that the stored one is deleted at once.
    package func commit(_ position: JournalPosition) throws {
        var position = position
        try appendFile.withLock { descriptor in
            let (end, size) = shared.withLock { ($0.end, $0.sizes[$0.end.segment] ?? 0) }
            guard position == end, size >= catchUpRoll else { return }
            position = try startSegment(after: end.segment, replacing: &descriptor)
        }
        let gone: [UInt64] = shared.withLock { shared in
            guard position > shared.checkpoint else { return [] }
            shared.checkpoint = position
            let gone = shared.sizes.keys.filter { $0 < position.segment }
            for number in gone { shared.sizes[number] = nil }
            return gone
        }
        let text = "\(position.segment) \(position.offset)\n"
        let temporary = directory.appendingPathComponent("checkpoint.new")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, directory.appendingPathComponent("checkpoint").path) == 0 else {
            throw JournalError("cannot write the checkpoint in \(directory.path): errno \(errno)")
        }
        for number in gone { try? FileManager.default.removeItem(at: Self.segmentURL(number, in: directory)) }
    }

    // MARK: Files

    static func segmentURL(_ number: UInt64, in directory: URL) -> URL {
        let digits = String(number)
        return directory.appendingPathComponent(String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".clicks")
    }

    static func segmentNumbers(in directory: URL) throws -> [UInt64] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).compactMap { name in
            guard name.hasSuffix(".clicks") else { return nil }
            return UInt64(name.dropLast(".clicks".count))
        }.sorted()
    }

    static func readCheckpoint(in directory: URL) -> JournalPosition? {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("checkpoint"), encoding: .utf8) else { return nil }
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let segment = UInt64(fields[0]), let offset = Int64(fields[1]), offset >= 0 else { return nil }
        return JournalPosition(segment: segment, offset: offset)
    }

    static func fileSize(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    /// Reads a segment's records from the start and cuts the file after the last whole, undamaged one; its new size.
    static func cutDamagedTail(_ url: URL) throws -> Int64 {
        let data = [UInt8]((try? Data(contentsOf: url)) ?? Data())
        var index = 0
        while index + 8 <= data.count {
            let length = Int(uint32(data, at: index))
            guard length <= 1 << 20, index + 8 + length <= data.count,
                  CRC32C.checksum(data[(index + 8)..<(index + 8 + length)]) == uint32(data, at: index + 4) else { break }
            index += 8 + length
        }
        if index < data.count {
            guard truncate(url.path, off_t(index)) == 0 else { throw JournalError("cannot cut \(url.path) at \(index): errno \(errno)") }
        }
        return Int64(index)
    }

    static func create(_ url: URL) throws -> Int32 {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw JournalError("cannot create \(url.path): errno \(errno)") }
        return descriptor
    }

    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let wrote = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if wrote < 0 {
                if errno == EINTR { continue }
                throw JournalError("cannot append to the click journal: errno \(errno)")
            }
            done += wrote
        }
    }

    static func freeBytes(_ directory: URL) -> Int64? {
        var stats = statvfs()
        guard statvfs(directory.path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    static func uint32(_ bytes: some RandomAccessCollection<UInt8>, at index: Int) -> UInt32 {
        let start = bytes.index(bytes.startIndex, offsetBy: index)
        var value: UInt32 = 0
        for (shift, byte) in bytes[start...].prefix(4).enumerated() { value |= UInt32(byte) << (8 * UInt32(shift)) }
        return value
    }
}

/// A click journal that cannot be read or written.
package struct JournalError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

/// Records framed for `ClickJournal.append(_:)`, each written in place: its length and CRC-32C, then its payload.
package struct JournalRecords {
    /// The framed records, one after another.
    package private(set) var bytes: [UInt8] = []
    /// Where each record ends in `bytes`.
    package private(set) var ends: [Int] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    package var count: Int { ends.count }

    /// Appends a record whose payload `write` appends to the bytes it is given.
    package mutating func append(_ write: (inout [UInt8]) -> Void) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 8))
        write(&bytes)
        let length = bytes.count - start - 8
        precondition(length <= Int(UInt32.max), "a journal record is at most 4 GiB")
        bytes.withUnsafeMutableBytes { buffer in
            let checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[(start + 8)...]))
            buffer.storeBytes(of: UInt32(length).littleEndian, toByteOffset: start, as: UInt32.self)
            buffer.storeBytes(of: checksum.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
        ends.append(bytes.count)
    }
}

/// CRC-32C (Castagnoli), the checksum of each journal record, for the tens of megabytes a second the journal takes at
/// the edge's full speed: on the processor's CRC-32C instructions where it has them (`CFerryHashing`), else eight bytes
/// a step from eight tables ("slicing by 8").
enum CRC32C {
    /// Whether `checksum` runs on the processor's instructions.
    static let onProcessor = ferry_crc32c_hardware() != 0

    /// `tables[k][b]`: the CRC of byte `b` followed by `k` zero bytes, one table after another.
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[index] = crc
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard onProcessor else { return tableChecksum(bytes) }
        guard let start = bytes.baseAddress else { return 0 }
        return ~ferry_crc32c_update(0xFFFF_FFFF, start, bytes.count)
    }

    /// The checksum from the tables, on any processor.
    static func tableChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { tables in
            var index = 0
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ UInt64(crc)
                crc = tables[7 * 256 + Int(word & 0xFF)] ^ tables[6 * 256 + Int(word >> 8 & 0xFF)]
                    ^ tables[5 * 256 + Int(word >> 16 & 0xFF)] ^ tables[4 * 256 + Int(word >> 24 & 0xFF)]
                    ^ tables[3 * 256 + Int(word >> 32 & 0xFF)] ^ tables[2 * 256 + Int(word >> 40 & 0xFF)]
                    ^ tables[1 * 256 + Int(word >> 48 & 0xFF)] ^ tables[Int(word >> 56)]
                index += 8
            }
            while index < bytes.count {
                crc = tables[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        bytes.withContiguousStorageIfAvailable { checksum(UnsafeRawBufferPointer($0)) } ?? Array(bytes).withUnsafeBytes { checksum($0) }
    }
}

/// A click as a journal record's payload: a version byte, then each field in a fixed order. Texts are a 4-byte length
/// and UTF-8, absent ones length 0xFFFFFFFF; the time is the bits of its seconds since 2001. The address is only ever
/// there as its keyed hashes: in version 2 as a tag byte, then for a digest (`AddressDigest`) its 16 bytes, or for any
/// other text the text; version 1, which an earlier release appended, has them as texts.
enum ClickRecordCoding {
    static let version: UInt8 = 2

    private enum HashTag: UInt8 {
        case absent = 0, digest = 1, text = 2
    }

    /// A click's record, its address hashes taken from its texts.
    static func encode(_ click: Click) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(click, into: &bytes)
        return bytes
    }

    /// Appends a click's record to `bytes`: its address hashes are `address`'s when given (nil digests: none), else
    /// the click's own; its traffic is `traffic` when given.
    static func encode(_ click: Click, address: (ip: AddressDigest?, network: AddressDigest?)? = nil, traffic: ClickTraffic? = nil,
                       into bytes: inout [UInt8]) {
        encodeHead(click, into: &bytes)
        func hash(_ given: AddressDigest??, _ value: String?) {
            if let given {
                encodeHash(given, into: &bytes)
            } else if let value, let digest = AddressDigest(hex: value) {
                encodeHash(digest, into: &bytes)
            } else if let value {
                bytes.append(HashTag.text.rawValue)
                text(value, into: &bytes)
            } else {
                encodeHash(nil, into: &bytes)
            }
        }
        hash(address.map(\.ip), click.ipHash)
        hash(address.map(\.network), click.networkHash)
        encodeTail(click, into: &bytes)
        encodeTraffic(traffic ?? click.traffic, into: &bytes)
    }

    /// The fields of a click's record before its address hashes.
    static func encodeHead(_ click: Click, into bytes: inout [UInt8]) {
        bytes.append(version)
        text(click.id, into: &bytes)
        text(click.linkID, into: &bytes)
        text(click.appID, into: &bytes)
        text(click.environment.rawValue, into: &bytes)
        withUnsafeBytes(of: click.createdAt.timeIntervalSinceReferenceDate.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// The address hashes of a record, as digests (nil: absent).
    static func encodeHashes(ip: AddressDigest?, network: AddressDigest?, into bytes: inout [UInt8]) {
        encodeHash(ip, into: &bytes)
        encodeHash(network, into: &bytes)
    }

    /// The fields of a click's record after its address hashes and before its traffic.
    static func encodeTail(_ click: Click, into bytes: inout [UInt8]) {
        text(click.userAgent, into: &bytes)
        text(click.platform.rawValue, into: &bytes)
        text(click.referer, into: &bytes)
        text(click.query, into: &bytes)
        text(click.acceptLanguage, into: &bytes)
        text(click.osVersion, into: &bytes)
        text(click.appleDevice, into: &bytes)
        text(click.userToken, into: &bytes)
    }

    /// The last field of a record.
    static func encodeTraffic(_ traffic: ClickTraffic, into bytes: inout [UInt8]) {
        text(traffic.rawValue, into: &bytes)
    }

    private static func text(_ value: String?, into bytes: inout [UInt8]) {
        guard let value else { return ClickJournal.appendUInt32(.max, to: &bytes) }
        ClickJournal.appendUInt32(UInt32(value.utf8.count), to: &bytes)
        bytes.append(contentsOf: value.utf8)
    }

    private static func encodeHash(_ digest: AddressDigest?, into bytes: inout [UInt8]) {
        guard let digest else { return bytes.append(HashTag.absent.rawValue) }
        bytes.append(HashTag.digest.rawValue)
        withUnsafeBytes(of: digest.high.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: digest.low.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The click a payload holds; nil when it is not one this version or an earlier one wrote.
    static func decode(_ bytes: [UInt8]) -> Click? {
        bytes.withUnsafeBytes { decode($0) }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> Click? {
        guard let version = bytes.first, version == 1 || version == 2 else { return nil }
        var reader = Reader(bytes: bytes, index: 1)
        let hash: (inout Reader) -> String? = version == 1 ? { $0.text() } : { $0.hash() }
        guard let id = reader.text(), let linkID = reader.text(), let appID = reader.text(),
              let environment = reader.text().flatMap(APIEnvironment.init(rawValue:)), let bits = reader.uint64() else { return nil }
        let createdAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
        let ipHash = hash(&reader), networkHash = hash(&reader), userAgent = reader.text()
        guard let platform = reader.text().flatMap(ClientPlatform.init(rawValue:)) else { return nil }
        let referer = reader.text(), query = reader.text(), acceptLanguage = reader.text(), osVersion = reader.text()
        let appleDevice = reader.text(), userToken = reader.text()
        guard let traffic = reader.text().flatMap(ClickTraffic.init(rawValue:)), !reader.failed, reader.index == bytes.count else { return nil }
        return Click(id: id, linkID: linkID, appID: appID, environment: environment, createdAt: createdAt, ipHash: ipHash, networkHash: networkHash,
                     userAgent: userAgent, platform: platform, referer: referer, query: query, acceptLanguage: acceptLanguage,
                     osVersion: osVersion, appleDevice: appleDevice, userToken: userToken, traffic: traffic)
    }

    /// Reads a payload's fields in order; once a field runs past the end, `failed` is set and every later one is nil.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index: Int
        var failed = false

        mutating func uint32() -> UInt32? {
            guard !failed, index + 4 <= bytes.count else { failed = true; return nil }
            defer { index += 4 }
            return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self))
        }

        mutating func uint64() -> UInt64? {
            guard !failed, index + 8 <= bytes.count else { failed = true; return nil }
            defer { index += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        }

        mutating func text() -> String? {
            guard let length = uint32(), length != .max else { return nil }
            guard index + Int(length) <= bytes.count else { failed = true; return nil }
            defer { index += Int(length) }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + Int(length))]), as: UTF8.self)
        }

        mutating func hash() -> String? {
            guard !failed, index < bytes.count else { failed = true; return nil }
            let tag = HashTag(rawValue: bytes[index])
            index += 1
            switch tag {
            case .absent: return nil
            case .text: return text()
            case .digest:
                guard let high = uint64(), let low = uint64() else { return nil }
                // Written most significant byte first.
                return AddressDigest(high: high.byteSwapped, low: low.byteSwapped).hex
            case nil:
                failed = true
                return nil
            }
        }
    }
}
#endif
