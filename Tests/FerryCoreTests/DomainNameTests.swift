import FerryTestSupport
import Testing
@testable import FerryCore

@Suite("DomainName", .takesTurns)
struct DomainNameTests {
    @Test(arguments: [
        ("go.example.com", "go.example.com"),
        ("GO.Example.COM", "go.example.com"),
        ("localhost", "localhost"),
        ("localhost:8080", "localhost:8080"),
        ("example.com:1", "example.com:1"),
        ("example.com:65535", "example.com:65535"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("a-b.c-d.e", "a-b.c-d.e"),
        ("127.0.0.1:8080", "127.0.0.1:8080"),
        ("123.example", "123.example"),
    ])
    func validatesAndLowercases(text: String, expected: String) throws {
        #expect(try DomainName.validate(text) == expected)
    }

    @Test(arguments: [
        "", " ", "go example.com", "go.example.com/", "https://go.example.com", "go.example.com/path", "user@go.example.com",
        "go..example.com", ".go.example.com", "go.example.com.", "-go.example.com", "go-.example.com", "go_link.example.com",
        "bücher.de", "例え.jp", "go.example.com\n", "go.example.com\u{0}", "go.example.com:", "go.example.com:0",
        "go.example.com:65536", "go.example.com:-1", "go.example.com:+80", "go.example.com:080", "go.example.com:8o",
        "go.example.com: 80", "go.example.com:80:80", ":8080", "[::1]", "[::1]:8080", "*.example.com", "go.example.com?x",
        "go.example.com#x", "go%2eexample.com",
        // Lowercased, the Kelvin sign is `k`: refused as the non-ASCII text it is, as the description's pattern says.
        "\u{212A}.example.com", "go.\u{212A}\u{212A}",
    ])
    func refusesInvalidDomains(text: String) {
        #expect(validationError { try DomainName.validate(text) }?.field == "domain")
    }

    @Test func labelAndTotalLengths() throws {
        let label63 = String(repeating: "a", count: 63)
        #expect(try DomainName.validate("\(label63).com") == "\(label63).com")
        #expect(validationError { try DomainName.validate("\(label63)a.com") } != nil)

        let labels = Array(repeating: String(repeating: "b", count: 49), count: 5)  // 5 * 49 + 4 dots = 249
        let name253 = labels.joined(separator: ".") + ".abc"
        #expect(name253.utf8.count == 253)
        #expect(try DomainName.validate(name253) == name253)
        #expect(validationError { try DomainName.validate(name253 + "d") } != nil)
    }

    @Test func usesTheGivenField() {
        #expect(validationError { try DomainName.validate("bad domain", field: "domains[1]") }?.field == "domains[1]")
    }

    @Test(arguments: [
        ("go.example.com", "go.example.com"),
        ("localhost:8080", "localhost"),
        ("[::1]:8080", "[::1]"),
        ("[::1]", "[::1]"),
        ("127.0.0.1:80", "127.0.0.1"),
    ])
    func hostPart(domain: String, host: String) {
        #expect(DomainName.hostPart(of: domain) == host)
    }

    @Test(arguments: [
        ("go.example.com", "go.example.com"),
        ("GO.Example.COM", "go.example.com"),
        ("go.example.com.", "go.example.com"),
        ("go.example.com:8080", "go.example.com:8080"),
        ("go.example.com.:8080", "go.example.com:8080"),
        ("Localhost:8080", "localhost:8080"),
        ("[::1]:8080", "[::1]:8080"),
    ])
    func normalizesHostHeaders(header: String, expected: String) {
        #expect(DomainName.normalizeHostHeader(header) == expected)
    }

    @Test func refusesAbsentAndAbsurdHostHeaders() {
        #expect(DomainName.normalizeHostHeader(nil) == nil)
        #expect(DomainName.normalizeHostHeader("") == nil)
        #expect(DomainName.normalizeHostHeader(String(repeating: "a", count: 260)) == nil)
        #expect(DomainName.normalizeHostHeader(String(repeating: "a", count: 259)) == String(repeating: "a", count: 259))
    }

    @Test(arguments: [":", ":80", ".", ".:80", "::", ":.", "a:", "[", "]:"])
    func hostHeadersThatStartOddlyDoNotCrash(header: String) {
        // Any header a client sends must come back as a string or nil; never trap.
        let normalized = DomainName.normalizeHostHeader(header)
        #expect(normalized == nil || normalized!.utf8.count <= header.utf8.count)
    }
}
