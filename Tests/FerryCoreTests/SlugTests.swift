import FerryTestSupport
import Testing
@testable import FerryCore

@Suite("Slug", .takesTurns)
struct SlugTests {
    @Test(arguments: [
        ("summer", "summer"),
        ("Summer", "summer"),
        ("SUMMER-SALE_2026", "summer-sale_2026"),
        ("a", "a"),
        ("0", "0"),
        ("-", "-"),
        ("_", "_"),
        ("AbCdEfGhIjKlMnOpQrStUvWxYz", "abcdefghijklmnopqrstuvwxyz"),
        ("0123456789", "0123456789"),
    ])
    func normalizeFoldsCase(text: String, expected: String) {
        #expect(Slug.normalize(text) == expected)
    }

    @Test(arguments: [
        "", " ", "a b", "a//b", "a.b", "a%20b", "%41", "a?b", "a#b", "a+b", "a=b", "a~b", "a\u{0}b", "a\nb",
        "é", "café", "ß", "ǅ", "ａ", "𝐚", "\u{212A}", "İ", "🔗", "../etc", ".well-known", "a\\b",
    ])
    func normalizeRejectsOtherCharacters(text: String) {
        #expect(Slug.normalize(text) == nil)
    }

    @Test func normalizeLengthLimit() {
        #expect(Slug.maxLength == 64)
        #expect(Slug.normalize(String(repeating: "a", count: 64)) == String(repeating: "a", count: 64))
        #expect(Slug.normalize(String(repeating: "A", count: 64)) == String(repeating: "a", count: 64))
        #expect(Slug.normalize(String(repeating: "a", count: 65)) == nil)
        #expect(Slug.normalize(String(repeating: "a", count: 10_000)) == nil)
    }

    @Test func normalizeTakesSubstrings() {
        let path = "/Summer/extra"
        let segment = path.split(separator: "/")[0]
        #expect(Slug.normalize(segment) == "summer")
    }

    @Test(arguments: ["Summer", "summer-2026", "x", "A_B-c"])
    func validateCustomLowercases(text: String) throws {
        #expect(try Slug.validateCustom(text) == text.lowercased())
    }

    @Test func validateCustomLength() throws {
        #expect(try Slug.validateCustom(String(repeating: "Z", count: 64)) == String(repeating: "z", count: 64))
        let error = validationError { try Slug.validateCustom(String(repeating: "z", count: 65)) }
        #expect(error?.field == "slug")
        #expect(error?.code == .invalidField)
        #expect(error?.message.contains("64") == true)
    }

    @Test func validateCustomRefusesEmpty() {
        let error = validationError { try Slug.validateCustom("") }
        #expect(error?.field == "slug")
        #expect(error?.message.contains("empty") == true)
    }

    @Test(arguments: ["a b", "sale!", "über", "a//b", "a.b", " x", "x "])
    func validateCustomRefusesAlphabet(text: String) {
        #expect(validationError { try Slug.validateCustom(text) }?.field == "slug")
    }

    @Test(arguments: Slug.reserved.sorted())
    func validateCustomRefusesReservedWords(word: String) {
        let error = validationError { try Slug.validateCustom(word) }
        #expect(error?.field == "slug")
        #expect(error?.message.contains("reserved") == true)
        #expect(validationError { try Slug.validateCustom(word.uppercased()) }?.message.contains("reserved") == true)
    }

    @Test func reservedWordsCoverFerryRoutes() throws {
        for word in ["v1", "api", "dashboard", "healthz", "readyz", "metrics", "well-known", "openapi", "apple-app-site-association"] {
            #expect(Slug.reserved.contains(word))
        }
        #expect(try Slug.validateCustom("apis") == "apis", "only exact words are reserved")
    }

    @Test func validateCustomUsesTheGivenField() {
        #expect(validationError { try Slug.validateCustom("", field: "suffix") }?.field == "suffix")
        #expect(validationError { try Slug.validateCustom("a b", field: "suffix") }?.field == "suffix")
    }
}
