import FerryTestSupport
import Testing
@testable import FerryCore

@Suite("QueryString", .takesTurns)
struct QueryStringTests {
    private func pairs(_ query: QueryString) -> [String] {
        query.items.map { item in item.value.map { "\(item.name)=\($0)" } ?? "\(item.name)<nil>" }
    }

    @Test func parsesPairsInOrder() {
        let query = QueryString("a=1&b=2&flag&c=")
        #expect(pairs(query) == ["a=1", "b=2", "flag<nil>", "c="])
        #expect(query.encoded == "a=1&b=2&flag&c=")
        #expect(!query.isEmpty)
    }

    @Test func keepsEverythingAfterTheFirstEqualsSign() {
        let query = QueryString("next=/a?b=c&x==y")
        #expect(query.value(of: "next") == "/a?b=c")
        #expect(query.value(of: "x") == "=y")
    }

    @Test func dropsEmptyPairsAndEmptyNames() {
        let query = QueryString("&&a=1&=orphan&&b=2&")
        #expect(pairs(query) == ["a=1", "b=2"])
        #expect(query.encoded == "a=1&b=2")
    }

    @Test(arguments: ["", "&", "&&&", "=", "=x&=y"])
    func emptyQueries(text: String) {
        let query = QueryString(text)
        #expect(query.isEmpty)
        #expect(query.encoded == "")
        #expect(query.items.isEmpty)
    }

    @Test func parsesSubstrings() {
        let url = "https://example.com/p?q=1&r=2"
        let query = QueryString(url[url.index(after: url.firstIndex(of: "?")!)...])
        #expect(query.encoded == "q=1&r=2")
    }

    @Test(arguments: [
        ("%41%42", "AB"),
        ("a+b", "a b"),
        ("a%20b", "a b"),
        ("%2B", "+"),
        ("%2b", "+"),
        ("%e2%9c%93", "✓"),
        ("%E2%9C%93", "✓"),
        ("100%", "100%"),
        ("%4", "%4"),
        ("%zz", "%zz"),
        ("%%41", "%A"),
        ("%G1", "%G1"),
        ("a%26b%3Dc", "a&b=c"),
        ("plain", "plain"),
        ("", ""),
    ])
    func decodesPercentEscapesAndPlus(text: String, decoded: String) {
        #expect(QueryString.decode(Substring(text)) == decoded)
    }

    @Test func invalidUTF8DecodesToReplacementCharacters() {
        #expect(QueryString.decode("%FF") == "\u{FFFD}")
    }

    @Test(arguments: [
        ("abcXYZ019-._~", "abcXYZ019-._~"),
        ("a b", "a%20b"),
        ("a+b", "a%2Bb"),
        ("a&b=c", "a%26b%3Dc"),
        ("✓", "%E2%9C%93"),
        ("/?#[]@!$'()*,;", "%2F%3F%23%5B%5D%40%21%24%27%28%29%2A%2C%3B"),
        ("\n\r\0", "%0A%0D%00"),
        ("%", "%25"),
    ])
    func encodesAllButUnreserved(text: String, encoded: String) {
        #expect(QueryString.encode(text) == encoded)
        #expect(QueryString.decode(Substring(encoded)) == text)
    }

    @Test(arguments: ["", "hello world", "a+b=c&d", "ünïcødé ✓ 🔗", "%41 stays %41", "\"<script>\""])
    func encodeDecodeRoundTrips(text: String) {
        #expect(QueryString.decode(Substring(QueryString.encode(text))) == text)
    }

    @Test func lookupUsesDecodedNamesAndValues() {
        let query = QueryString("utm%5Fsource=news%20letter&q=a+b&empty=&flag")
        #expect(query.contains("utm_source"))
        #expect(!query.contains("utm%5Fsource"))
        #expect(query.value(of: "utm_source") == "news letter")
        #expect(query.value(of: "q") == "a b")
        #expect(query.value(of: "empty") == "")
        #expect(query.contains("flag"))
        #expect(query.value(of: "flag") == nil)
        #expect(query.value(of: "missing") == nil)
        #expect(!query.contains("missing"))
    }

    @Test func valueReturnsTheFirstOfRepeatedNames() {
        #expect(QueryString("a=1&a=2").value(of: "a") == "1")
    }

    @Test func setReplacesEveryPairOfTheNameInPlace() {
        var query = QueryString("a=1&b=2&a=3&c=4")
        query.set("a", "x y")
        #expect(query.encoded == "a=x%20y&b=2&c=4")
    }

    @Test func setKeepsTheOriginalRawName() {
        var query = QueryString("utm%5Fsource=old&z=1")
        query.set("utm_source", "new")
        #expect(query.encoded == "utm%5Fsource=new&z=1")
    }

    @Test func setAppendsNewNamesEncoded() {
        var query = QueryString("a=1")
        query.set("ü k", "v&w")
        #expect(query.encoded == "a=1&%C3%BC%20k=v%26w")
        #expect(query.value(of: "ü k") == "v&w")
    }

    @Test func setOnAnEmptyQuery() {
        var query = QueryString("")
        query.set("ferry_click_id", "clk_1")
        #expect(query.encoded == "ferry_click_id=clk_1")
    }

    @Test func setGivesAValueToABareFlag() {
        var query = QueryString("flag&b=2")
        query.set("flag", "on")
        #expect(query.encoded == "flag=on&b=2")
    }

    @Test func setIfAbsentKeepsExistingRawEncoding() {
        var query = QueryString("q=a%20b+c&utm_source=site")
        query.setIfAbsent("utm_source", "newsletter")
        query.setIfAbsent("q", "other")
        #expect(query.encoded == "q=a%20b+c&utm_source=site")
        query.setIfAbsent("utm_medium", "e mail")
        #expect(query.encoded == "q=a%20b+c&utm_source=site&utm_medium=e%20mail")
    }

    @Test func setIfAbsentSeesEncodedNames() {
        var query = QueryString("utm%5fsource=x")
        query.setIfAbsent("utm_source", "y")
        #expect(query.encoded == "utm%5fsource=x")
    }

    @Test func overlayReplacesSameNamesAndAppendsTheRestRaw() {
        var query = QueryString("a=1&b=2&b=3&c=4")
        query.overlay(QueryString("b=x+y&d=%7E&flag"))
        #expect(query.encoded == "a=1&c=4&b=x+y&d=%7E&flag")
    }

    @Test func overlayMatchesDecodedNames() {
        var query = QueryString("utm_source=newsletter")
        query.overlay(QueryString("utm%5Fsource=twitter"))
        #expect(query.encoded == "utm%5Fsource=twitter")
        #expect(query.value(of: "utm_source") == "twitter")
    }

    @Test func overlayWithEmptyChangesNothing() {
        var query = QueryString("a=1&b=%20")
        query.overlay(QueryString(""))
        #expect(query.encoded == "a=1&b=%20")
    }

    @Test func hostileValuesPassThroughOverlayUnchanged() {
        // What a visitor sent is forwarded as sent; it is never decoded into raw CR/LF.
        var query = QueryString("a=1")
        query.overlay(QueryString("x=%0D%0ASet-Cookie:%20y&next=javascript:alert(1)"))
        #expect(query.encoded == "a=1&x=%0D%0ASet-Cookie:%20y&next=javascript:alert(1)")
        #expect(!query.encoded.contains("\r") && !query.encoded.contains("\n"))
    }

    @Test func keepsAtMost64Items() {
        let text = (0..<100).map { "p\($0)=\($0)" }.joined(separator: "&")
        let query = QueryString(text)
        #expect(QueryString.maxItems == 64)
        #expect(query.items.count == 64)
        #expect(query.items.first?.name == "p0")
        #expect(query.items.last?.name == "p63")
        #expect(!query.contains("p64"))
    }

    @Test func dropsQueriesOver4096Bytes() {
        #expect(QueryString.maxBytes == 4096)
        let fits = "a=" + String(repeating: "x", count: 4094)
        #expect(fits.utf8.count == 4096)
        #expect(QueryString(fits).value(of: "a")?.count == 4094)
        #expect(QueryString(fits + "x").isEmpty)
        #expect(QueryString(String(repeating: "a=1&", count: 100_000)).isEmpty)
    }

    @Test func equalityFollowsRawPairs() {
        #expect(QueryString("a=1&b=2") == QueryString("a=1&b=2"))
        #expect(QueryString("a=1&b=2") != QueryString("b=2&a=1"))
        #expect(QueryString("a=%20") != QueryString("a=+"))
        #expect(QueryString("a=1&&b=2") == QueryString("a=1&b=2"))
        #expect(Set([QueryString("a=1"), QueryString("a=1"), QueryString("a=2")]).count == 2)
    }
}

@Suite("URLParts", .takesTurns)
struct URLPartsTests {
    @Test(arguments: [
        ("https://x.com/p?a=1&b=2#frag", "https://x.com/p", "a=1&b=2", "frag"),
        ("https://x.com/p?a=1", "https://x.com/p", "a=1", nil),
        ("https://x.com/p#frag", "https://x.com/p", "", "frag"),
        ("https://x.com/p", "https://x.com/p", "", nil),
        ("https://x.com/p#f?x=1", "https://x.com/p", "", "f?x=1"),
        ("https://x.com/p?a=1#f#g", "https://x.com/p", "a=1", "f#g"),
        ("https://x.com/p?a=1?b=2", "https://x.com/p", "a=1?b=2", nil),
        ("https://x.com/p#", "https://x.com/p", "", ""),
        ("https://x.com?q", "https://x.com", "q", nil),
    ] as [(String, String, String, String?)])
    func splits(url: String, base: String, query: String, fragment: String?) {
        let parts = URLParts(url)
        #expect(parts.base == base)
        #expect(parts.query.encoded == query)
        #expect(parts.fragment == fragment)
        #expect(parts.url == url, "splitting and joining gives the URL back")
    }

    @Test func joinPutsTheQueryBeforeTheFragment() {
        var parts = URLParts("https://x.com/p#section")
        parts.query.set("utm_source", "news")
        #expect(parts.url == "https://x.com/p?utm_source=news#section")
    }

    @Test func emptyQueryMarkIsDropped() {
        #expect(URLParts("https://x.com/p?").url == "https://x.com/p")
        #expect(URLParts("https://x.com/p?#f").url == "https://x.com/p#f")
    }

    @Test func keepsEveryPairOfALongDestinationQuery() {
        // The 64-pair cap is for what visitors send, not for the link's own destination.
        let query = (0..<200).map { "p\($0)=\($0)" }.joined(separator: "&")
        let url = "https://x.com/search?" + query + "#end"
        let parts = URLParts(url)
        #expect(parts.query.items.count == 200)
        #expect(parts.url == url)
    }
}

@Suite("UserClickToken", .takesTurns)
struct UserClickTokenTests {
    static let token = "fu_" + "0123456789abcdef0123456789abcdef"

    @Test func aClickCarriesOneWellFormedToken() {
        #expect(UserClickToken.isWellFormed(Self.token))
        #expect(UserClickToken.token(inQuery: "ferry_user=\(Self.token)") == Self.token)
        #expect(UserClickToken.token(inQuery: "utm_source=site&ferry_user=\(Self.token)&x=1") == Self.token)
        // The name may come percent-encoded, as any parameter's.
        #expect(UserClickToken.token(inQuery: "ferry%5Fuser=\(Self.token)") == Self.token)
    }

    @Test func anythingElseIsIgnored() {
        let other = "fu_" + String(repeating: "f", count: 32)
        for query: String? in [nil, "", "ferry_user", "ferry_user=", "ferry_user=\(Self.token.uppercased())", "ferry_user=\(Self.token.dropLast())",
                               "ferry_user=\(Self.token)0", "ferry_user=fx_0123456789abcdef0123456789abcdef",
                               "ferry_user=fu_0123456789abcdef0123456789abcdeg", "ferry_user=\(Self.token)&ferry_user=\(other)",
                               "xferry_user=\(Self.token)", "ferry_users=\(Self.token)"] {
            #expect(UserClickToken.token(inQuery: query) == nil, "\(query ?? "nil")")
        }
    }
}
