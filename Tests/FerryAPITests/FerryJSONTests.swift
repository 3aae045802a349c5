import FerryTestSupport
import Foundation
import Testing
@testable import FerryAPI

@Suite("FerryJSON", .takesTurns)
struct FerryJSONTests {
    /// 2026-01-31T12:00:00Z
    static let noon = Date(timeIntervalSince1970: 1_769_860_800)

    private struct Stamped: Codable, Equatable {
        var at: Date
        var url: String
    }

    @Test(arguments: [
        ("2026-01-31T12:00:00Z", 0.0),
        ("2026-01-31T12:00:00.000Z", 0.0),
        ("2026-01-31T12:00:00.5Z", 0.5),
        ("2026-01-31T12:00:00.123Z", 0.123),
        ("2026-01-31T12:00:00.250000Z", 0.25),
        ("2026-01-31T14:00:00+02:00", 0.0),
        ("2026-01-31T07:00:00-05:00", 0.0),
        ("2026-01-31T14:00:00.750+02:00", 0.75),
        ("2026-01-31T12:00:00-00:00", 0.0),
        ("2026-01-31T12:00:00.123456789Z", 0.123),
    ])
    func parsesWithAndWithoutFractionalSeconds(text: String, fraction: Double) throws {
        let date = try #require(FerryJSON.parseDate(text))
        #expect(abs(date.timeIntervalSince1970 - (Self.noon.timeIntervalSince1970 + fraction)) < 0.0005)
    }

    @Test(arguments: [
        "",
        " ",
        "yesterday",
        "garbage",
        "2026",
        "2026-01-31",
        "12:00:00Z",
        "2026-13-01T12:00:00Z",
        "2026-01-32T12:00:00Z",
        "2026-01-31T25:00:00Z",
        "2026-01-31T12:61:00Z",
        "2026-01-31T24:00:00Z",
        "2026-01-31T12:00:60Z",
        "2026-02-30T12:00:00Z",
        "2025-02-29T12:00:00Z",
        "2026-00-10T12:00:00Z",
        "2026-01-00T12:00:00Z",
        "2026-1-31T12:00:00Z",
        "2026-01-31T12:00:00Zjunk",
        "2026-01-31T12:00:00Z ",
        "2026-01-31T12:00:00",
        "2026-01-31T12:00Z",
        "2026-01-31t12:00:00z",
        "2026-01-31T12:00:00 Z",
        "2026-01-31T12:00:00.Z",
        "2026-01-31T12:00:00.1234567890Z",
        "2026-01-31T12:00:00+25:00",
        "2026-01-31T12:00:00+02:60",
        "2026-01-31T12:00:00+0200",
        "2026-01-31T12:00:00+02",
        "+2026-01-31T12:00:00Z",
        "0000-01-01T00:00:00Z",
        "２０２６-01-31T12:00:00Z",
        "1769860800",
        "2026/01/31T12:00:00Z",
        "2026-01-31T12:00:00Z" + String(repeating: " ", count: 60),
        String(repeating: "9", count: 65),
        String(repeating: "2026-01-31T12:00:00Z", count: 4),
    ])
    func rejectsGarbage(text: String) {
        #expect(FerryJSON.parseDate(text) == nil)
    }

    @Test func acceptsLeapDays() throws {
        let date = try #require(FerryJSON.parseDate("2028-02-29T00:00:00Z"))
        #expect(FerryJSON.formatDate(date) == "2028-02-29T00:00:00.000Z")
        #expect(FerryJSON.parseDate("2000-02-29T00:00:00Z") != nil)
        #expect(FerryJSON.parseDate("2100-02-29T00:00:00Z") == nil)
    }

    @Test func formatsWithMilliseconds() {
        #expect(FerryJSON.formatDate(Self.noon) == "2026-01-31T12:00:00.000Z")
        #expect(FerryJSON.formatDate(Self.noon.addingTimeInterval(0.5)) == "2026-01-31T12:00:00.500Z")
        #expect(FerryJSON.formatDate(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    @Test func formattedDatesParseBack() throws {
        for offset in [0.0, 0.001, 0.999, 86_400 * 365.25, -3_600] {
            let date = Self.noon.addingTimeInterval(offset)
            let parsed = try #require(FerryJSON.parseDate(FerryJSON.formatDate(date)))
            #expect(abs(parsed.timeIntervalSince(date)) < 0.001)
        }
    }

    @Test func encoderWritesISODatesSortedKeysAndUnescapedSlashes() throws {
        let data = try FerryJSON.makeEncoder().encode(Stamped(at: Self.noon, url: "https://example.com/a/b"))
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(text == #"{"at":"2026-01-31T12:00:00.000Z","url":"https://example.com/a/b"}"#)
    }

    @Test(arguments: ["2026-01-31T12:00:00Z", "2026-01-31T12:00:00.000Z", "2026-01-31T13:00:00+01:00"])
    func decoderAcceptsBothForms(text: String) throws {
        let json = #"{"at":"\#(text)","url":"x"}"#
        let value = try FerryJSON.makeDecoder().decode(Stamped.self, from: Data(json.utf8))
        #expect(value.at == Self.noon)
    }

    @Test(arguments: [#""not a date""#, #""2026-01-31""#, "1769860800", "null", #""""#])
    func decoderRejectsGarbageDates(value: String) {
        let json = #"{"at":\#(value),"url":"x"}"#
        #expect(throws: DecodingError.self) {
            try FerryJSON.makeDecoder().decode(Stamped.self, from: Data(json.utf8))
        }
    }

    @Test func encoderAndDecoderRoundTrip() throws {
        let value = Stamped(at: Self.noon.addingTimeInterval(0.125), url: "https://example.com/")
        let data = try FerryJSON.makeEncoder().encode(value)
        #expect(try FerryJSON.makeDecoder().decode(Stamped.self, from: data) == value)
    }
}
