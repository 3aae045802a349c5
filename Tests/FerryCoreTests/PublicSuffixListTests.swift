import FerryTestSupport
import Testing
@testable import FerryCore

@Suite("Public suffix list", .takesTurns)
struct PublicSuffixListTests {
    /// A few rules of each kind, as the list writes them.
    static let list = PublicSuffixList(text: """
        // ===BEGIN ICANN DOMAINS===
        com
        co.uk
        uk
        *.ck
        !www.ck
        公司.cn
        cn
        *.kawasaki.jp
        !city.kawasaki.jp
        jp
        // ===BEGIN PRIVATE DOMAINS===
        github.io
        s3.amazonaws.com   and a comment after white space
        """)

    @Test(arguments: ["com", "uk", "co.uk", "github.io", "s3.amazonaws.com", "any.ck", "xn--55qx5d.cn", "any.kawasaki.jp", "example", "internal"])
    func suffixes(host: String) {
        #expect(Self.list.isPublicSuffix(host))
    }

    @Test(arguments: ["example.com", "example.co.uk", "me.github.io", "www.ck", "city.kawasaki.jp", "a.any.ck", "example.xn--55qx5d.cn",
                      "bucket.s3.amazonaws.com", "amazonaws.com"])
    func registrableNames(host: String) {
        #expect(!Self.list.isPublicSuffix(host))
    }

    @Test(arguments: [("bücher", "bcher-kva"), ("例え", "r8jz45g"), ("公司", "55qx5d"), ("münchen", "mnchen-3ya"), ("ñ", "ida")])
    func punycode(label: String, encoded: String) {
        #expect(Punycode.encode(label) == encoded)
    }
}

@Suite("Domain ownership", .takesTurns)
struct DomainOwnershipTests {
    @Test(arguments: [
        ("go.example.com", "go.example.com", true), ("go.example.com", "x.go.example.com", true), ("example.com", "a.b.example.com", true),
        ("go.example.com", "ogo.example.com", false), ("go.example.com", "example.org", false),
        ("localhost", "localhost:8080", true), ("localhost:8080", "localhost:8081", false), ("localhost:8080", "app.localhost:8080", true),
        ("go.example.com:8443", "x.go.example.com", true), ("go.example.com:8443", "x.go.example.com:443", false),
        ("127.0.0.1", "127.0.0.1:8080", true), ("127.0.0.1", "0.0.1", false), ("10.0.0.1", "0.0.1", false),
    ])
    func overlap(a: String, b: String, expected: Bool) {
        #expect(DomainName.overlap(a, b) == expected)
        #expect(DomainName.overlap(b, a) == expected)
    }

    @Test func whoMayOwnWhat() {
        let suffixes = PublicSuffixListTests.list
        #expect(DomainName.ownershipRefusal("com", suffixes: suffixes)?.contains("single label") == true)
        #expect(DomainName.ownershipRefusal("co.uk", suffixes: suffixes)?.contains("public suffix") == true)
        #expect(DomainName.ownershipRefusal("github.io:8443", suffixes: suffixes)?.contains("public suffix") == true)
        for ownable in ["example.co.uk", "go.example.com:8443", "localhost", "localhost:8080", "dev.localhost", "127.0.0.1:8080", "203.0.113.9"] {
            #expect(DomainName.ownershipRefusal(ownable, suffixes: suffixes) == nil, "\(ownable)")
        }
        // Without a list only this machine's names and addresses can be checked.
        #expect(DomainName.ownershipRefusal("example.co.uk", suffixes: nil)?.contains("public suffix list") == true)
        #expect(DomainName.ownershipRefusal("localhost:8080", suffixes: nil) == nil)
        #expect(DomainName.isLoopback("localhost:8080") && DomainName.isLoopback("127.0.0.1") && DomainName.isLoopback("a.localhost"))
        #expect(!DomainName.isLoopback("localhost.example.com") && !DomainName.isLoopback("10.0.0.1"))
    }
}
