import FerryTestSupport
import Testing
@testable import FerryAPI

@Suite("APIKeyFormat", .takesTurns)
struct APIKeyFormatTests {
    /// 32 ASCII letters and digits: a well-formed random part.
    static let random = "0123456789abcdefghijABCDEFGHIJ01"

    @Test func randomFixtureHasTheRightLength() {
        #expect(Self.random.utf8.count == APIKeyFormat.randomLength)
        #expect(APIKeyFormat.totalLength == 40)
    }

    @Test(arguments: [
        ("fk_live_", APIKeyKind.publishable, APIEnvironment.live),
        ("fk_test_", .publishable, .test),
        ("fs_live_", .secret, .live),
        ("fs_test_", .secret, .test),
    ])
    func parsesEveryPrefix(prefix: String, kind: APIKeyKind, environment: APIEnvironment) throws {
        let format = try #require(APIKeyFormat(parsing: prefix + Self.random))
        #expect(format.kind == kind)
        #expect(format.environment == environment)
        #expect(format == APIKeyFormat(kind: kind, environment: environment))
        #expect(format.prefix == prefix)
    }

    @Test(arguments: APIKeyKind.allCases, APIEnvironment.allCases)
    func prefixRoundTrips(kind: APIKeyKind, environment: APIEnvironment) {
        let format = APIKeyFormat(kind: kind, environment: environment)
        #expect(format.prefix.utf8.count == APIKeyFormat.totalLength - APIKeyFormat.randomLength)
        #expect(APIKeyFormat(parsing: format.prefix + Self.random) == format)
    }

    @Test func kindPrefixes() {
        #expect(APIKeyKind.publishable.prefix == "fk")
        #expect(APIKeyKind.secret.prefix == "fs")
        #expect(APIEnvironment.live.rawValue == "live")
        #expect(APIEnvironment.test.rawValue == "test")
    }

    @Test func parsesSubstrings() {
        let text = "Bearer fs_live_\(Self.random)"
        let key = text.dropFirst("Bearer ".count)
        #expect(APIKeyFormat(parsing: key) == APIKeyFormat(kind: .secret, environment: .live))
    }

    @Test func acceptsAllDigitsAndAllLetters() {
        #expect(APIKeyFormat(parsing: "fk_live_" + String(repeating: "9", count: 32)) != nil)
        #expect(APIKeyFormat(parsing: "fk_live_" + String(repeating: "z", count: 32)) != nil)
        #expect(APIKeyFormat(parsing: "fk_live_" + String(repeating: "Z", count: 32)) != nil)
        #expect(APIKeyFormat(parsing: "fk_live_" + String(repeating: "a", count: 16) + String(repeating: "0", count: 16)) != nil)
    }

    @Test(arguments: [
        // empty and wrong lengths
        "",
        "fk_live_",
        "fk_live_" + String(random.dropLast()),
        "fk_live_" + random + "x",
        "fk_live_" + random + random,
        // wrong prefixes
        "fx_live_" + random,
        "gk_live_" + random,
        "ks_live_" + random,
        "Fk_live_" + random,
        "FK_LIVE_" + random,
        "fk_LIVE_" + random,
        "fk_prod_" + random,
        "fk_tset_" + random,
        "fk_livex" + String(random.dropLast()),
        "pk_live_" + random,
        "sk_test_" + random,
        // bad separators
        "fk-live_" + random,
        "fk_live-" + random,
        "fk.live." + random,
        "fk live " + random,
        "fklive__" + random,
        "fk__live" + random,
    ])
    func rejectsMalformedPrefixesAndLengths(key: String) {
        #expect(APIKeyFormat(parsing: key) == nil)
    }

    @Test(arguments: [
        "-", "_", " ", "!", ".", "/", "+", "=", "\0", "\n", "\u{7F}",
    ])
    func rejectsASCIINonAlphanumerics(character: String) {
        for position in [0, 15, 31] {
            var characters = Array(Self.random)
            characters[position] = Character(character)
            let key = "fs_test_" + String(characters)
            #expect(key.utf8.count == APIKeyFormat.totalLength)
            #expect(APIKeyFormat(parsing: key) == nil, "\(character.debugDescription) at \(position)")
        }
    }

    @Test(arguments: [
        "é",          // 2 bytes
        "１",          // fullwidth digit, 3 bytes
        "٣",          // Arabic-Indic digit, 2 bytes
        "🔑",          // 4 bytes
        "\u{00A0}",   // no-break space, 2 bytes
    ])
    func rejectsUnicodeEvenWhenTheByteCountFits(character: String) {
        let bytes = character.utf8.count
        let key = "fk_live_" + String(Self.random.prefix(32 - bytes)) + character
        #expect(key.utf8.count == APIKeyFormat.totalLength)
        #expect(APIKeyFormat(parsing: key) == nil)
        // The same character in place of one ASCII character (so the byte count is off) is refused too.
        #expect(APIKeyFormat(parsing: "fk_live_" + String(Self.random.dropLast()) + character) == nil)
    }

    @Test func rejectsSurroundingWhitespace() {
        #expect(APIKeyFormat(parsing: " fk_live_" + Self.random) == nil)
        #expect(APIKeyFormat(parsing: "fk_live_" + Self.random + "\n") == nil)
        #expect(APIKeyFormat(parsing: " fk_live_" + String(Self.random.dropLast())) == nil)
    }
}
