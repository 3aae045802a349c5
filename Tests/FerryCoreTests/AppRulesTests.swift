import FerryTestSupport
import Testing
@testable import FerryCore

@Suite("AppRules", .takesTurns)
struct AppRulesTests {
    // MARK: team id

    @Test(arguments: [("ABCDE12345", "ABCDE12345"), ("abcde12345", "ABCDE12345"), ("0123456789", "0123456789"), ("AbCdEfGhIj", "ABCDEFGHIJ")])
    func teamIDsAreUppercased(text: String, expected: String) throws {
        #expect(try AppRules.validateTeamID(text) == expected)
    }

    @Test(arguments: ["", "ABCDE1234", "ABCDE123456", "ABCDE-2345", "ABCDE 2345", "ABCDE.2345", "ÄBCDE12345", "ABCDE1234ß", " ABCDE12345"])
    func badTeamIDsAreRefused(text: String) {
        #expect(validationError { try AppRules.validateTeamID(text) }?.field == "teamID")
    }

    // MARK: bundle id

    @Test(arguments: ["com.acme.app", "com.acme", "com.acme.app-beta", "com.acme.app_2", "io.A1.B2.c3"])
    func bundleIDsAreAccepted(text: String) throws {
        #expect(try AppRules.validateBundleID(text) == text)
    }

    @Test(arguments: ["", "acme", "com..acme", ".com.acme", "com.acme.", "com.acme app", "com.acme/app", "com.äcme.app", "com.acme.app\n",
                      "com." + String(repeating: "a", count: 152)])
    func badBundleIDsAreRefused(text: String) {
        #expect(validationError { try AppRules.validateBundleID(text) }?.field == "bundleID")
        #expect(validationError { try AppRules.validateBundleID(text, field: "packageName") }?.field == "packageName")
    }

    @Test func bundleIDLengthLimit() throws {
        let longest = "com." + String(repeating: "a", count: 151)
        #expect(longest.utf8.count == 155)
        #expect(try AppRules.validateBundleID(longest) == longest)
    }

    // MARK: App Store id

    @Test(arguments: [("1234567890", "1234567890"), ("id1234567890", "1234567890"), ("1", "1"), ("id1", "1"), ("123456789012", "123456789012")])
    func appStoreIDsWithOrWithoutPrefix(text: String, expected: String) throws {
        #expect(try AppRules.validateAppStoreID(text) == expected)
    }

    @Test(arguments: ["", "id", "idid123", "1234567890123", "id1234567890123", "12a4", "id 123", "-123", "１２３", "https://apps.apple.com/app/id123"])
    func badAppStoreIDsAreRefused(text: String) {
        #expect(validationError { try AppRules.validateAppStoreID(text) }?.field == "appStoreID")
    }

    // MARK: URL scheme

    @Test(arguments: [("myapp", "myapp"), ("MyApp", "myapp"), ("myapp://", "myapp"), ("com.acme.app", "com.acme.app"), ("my-app+v2", "my-app+v2"),
                      ("fb1234567890", "fb1234567890")])
    func urlSchemesAreNormalised(text: String, expected: String) throws {
        #expect(try AppRules.validateURLScheme(text) == expected)
    }

    @Test(arguments: ["", "://", "http", "HTTPS", "https://", "javascript", "JavaScript://", "data", "file", "vbscript", "1app", "my app", "my_app",
                      "myapp://path", "myapp:", "myapp:x", "my:app", "myapp:/", "é", String(repeating: "a", count: 65)])
    func badURLSchemesAreRefused(text: String) {
        #expect(validationError { try AppRules.validateURLScheme(text) }?.field == "urlScheme")
    }

    // MARK: fingerprints

    static let colonForm = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    @Test(arguments: [
        colonForm,
        colonForm.lowercased(),
        colonForm.replacingOccurrences(of: ":", with: ""),
        colonForm.replacingOccurrences(of: ":", with: "").lowercased(),
    ])
    func fingerprintsAreNormalisedToUppercaseWithColons(text: String) throws {
        #expect(try AppRules.normalizeFingerprint(text) == Self.colonForm)
    }

    @Test func normalisedFingerprintShape() throws {
        let normalized = try AppRules.normalizeFingerprint(String(repeating: "ab", count: 32))
        #expect(normalized.split(separator: ":").count == 32)
        #expect(normalized.split(separator: ":").allSatisfy { $0 == "AB" })
        #expect(normalized.utf8.count == 95)
    }

    @Test(arguments: [
        "",
        String(repeating: "A", count: 62),
        String(repeating: "A", count: 66),
        String(repeating: "G", count: 64),
        String(repeating: "A", count: 63) + " ",
        String(repeating: "AB ", count: 32),
        String(repeating: "AB-", count: 31) + "AB",
        String(repeating: "AB:", count: 20),
        String(repeating: "Ａ", count: 64),
        "SHA256:" + String(repeating: "A", count: 64),
    ])
    func badFingerprintsAreRefused(text: String) {
        #expect(validationError { try AppRules.normalizeFingerprint(text) }?.field == "sha256")
    }
}
