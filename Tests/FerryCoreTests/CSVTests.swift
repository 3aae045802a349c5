import FerryCore
import FerryTestSupport
import Testing

@Suite("CSV", .takesTurns)
struct CSVTests {
    @Test func fieldsAreQuotedOnlyWhenNeededAndFormulasAreDisarmed() {
        #expect(CSV.line(["a", nil, "b c"]) == "a,,b c\r\n")
        #expect(CSV.field("x,y") == "\"x,y\"")
        #expect(CSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSV.field("two\nlines") == "\"two\nlines\"")
        #expect(CSV.field("=HYPERLINK(\"http://evil\")") == "\"'=HYPERLINK(\"\"http://evil\"\")\"")
        #expect(CSV.field("+1") == "'+1")
        #expect(CSV.field("@SUM(A1)") == "'@SUM(A1)")
        #expect(CSV.field("-12.5") == "-12.5", "negative numbers stay numbers")
        #expect(CSV.field("-cmd") == "'-cmd")
        #expect(CSV.field("a\r\nb") == "\"a\r\nb\"", "a CRLF inside a value is quoted too")
        #expect(CSV.field("a\rb") == "\"a\rb\"")
    }

    @Test func whatIsWrittenReadsBack() throws {
        let rows = [["name", "note"], ["a,b", "he said \"no\""], ["multi\nline", ""], ["ünïcødé ✓", "x"], ["crlf\r\ninside", "y"]]
        let text = rows.map { CSV.line($0) }.joined()
        #expect(try CSV.parse(text) == rows)
        #expect(try CSV.parse("\u{FEFF}a,b\nc,d") == [["a", "b"], ["c", "d"]], "a byte-order mark and a last line without a break")
        #expect(try CSV.parse("a,b\r\n\r\nc,d\r") == [["a", "b"], ["c", "d"]], "blank lines are skipped")
        #expect(try CSV.parse("a,,\n") == [["a", "", ""]])
    }

    @Test func brokenQuotingIsRefusedWithItsLine() {
        #expect(throws: CSVError.self) { try CSV.parse("a,b\n\"open,c\n") }
        do {
            _ = try CSV.parse("a\n\"x\"y,z\n")
            Issue.record("text after a closing quote was accepted")
        } catch {
            #expect(error.line == 2)
        }
    }
}
