#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
@testable import FerryServer
import FerryTestSupport
import Testing

/// Reading DNS answers: what a DNS server (or anyone able to send datagrams to the port asked from) may send.
@Suite("DNS messages", .takesTurns)
struct DNSMessageTests {
    /// An answer to `query` carrying TXT records of one or more strings each, its name compressed or not.
    static func answer(to query: [UInt8], records: [[String]], rcode: UInt8 = 0, compressed: Bool = true) -> [UInt8] {
        let questionEnd = query.count - 11  // the OPT record (11 bytes) follows the question
        var bytes: [UInt8] = [query[0], query[1], 0x81, 0x80 | rcode, 0, 1, 0, UInt8(records.count), 0, 0, 0, 0]
        bytes += query[12..<questionEnd]
        for strings in records {
            let data = strings.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
            bytes += compressed ? [0xC0, 0x0C] : Array(query[12..<(questionEnd - 4)])
            bytes += [0, 16, 0, 1, 0, 0, 0, 60, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        }
        return bytes
    }

    @Test func readsTheRecordsOfItsOwnAnswer() throws {
        let query = try DNSMessage.query(id: 0x1234, name: "_ferry-challenge.go.example.com", type: DNSMessage.txt)
        #expect(query[0] == 0x12 && query[1] == 0x34 && query.contains(16))
        let message = Self.answer(to: query, records: [["v=spf1 -all"], ["ferry-verification=", "abc"]])
        #expect(try DNSMessage.textRecords(in: message, id: 0x1234) == ["v=spf1 -all", "ferry-verification=abc"])
        #expect(try DNSMessage.textRecords(in: Self.answer(to: query, records: [["x"]], compressed: false), id: 0x1234) == ["x"])
        // Another question's answer is not this one's; "no such name" is no record.
        #expect(try DNSMessage.textRecords(in: message, id: 0x1235) == nil)
        #expect(try DNSMessage.textRecords(in: Self.answer(to: query, records: [], rcode: 3), id: 0x1234) == [])
        #expect(throws: DNSTextLookup.LookupError.self) { try DNSMessage.textRecords(in: Self.answer(to: query, records: [], rcode: 2), id: 0x1234) }
        #expect(throws: DNSTextLookup.LookupError.self) { try DNSMessage.query(id: 1, name: String(repeating: "a", count: 64) + ".com", type: 16) }
    }

    @Test func aBrokenAnswerIsNoAnswerAndNeverACrash() throws {
        let query = try DNSMessage.query(id: 7, name: "_ferry-challenge.example.net", type: DNSMessage.txt)
        let good = Self.answer(to: query, records: [["ferry-verification=abc", "def"], ["other"]])
        // Every cut of a good answer.
        for length in 0..<good.count {
            _ = try? DNSMessage.textRecords(in: Array(good.prefix(length)), id: 7)
        }
        // Lengths that point past the end, and random bytes after a valid header.
        var broken = good
        broken[broken.count - 8] = 0xFF  // the last record's length, far past the end
        #expect((try? DNSMessage.textRecords(in: broken, id: 7)) ?? nil == nil)
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<20_000 {
            var bytes = Array(good.prefix(12))
            bytes += (0..<Int.random(in: 0..<80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? DNSMessage.textRecords(in: bytes, id: 7)
            // And random damage to a good answer.
            var damaged = good
            for _ in 0..<3 { damaged[Int.random(in: 12..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = try? DNSMessage.textRecords(in: damaged, id: 7)
        }
    }
}
#endif
