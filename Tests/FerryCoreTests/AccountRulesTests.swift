import FerryCore
import Testing

@Suite("Account rules", .takesTurns)
struct AccountRulesTests {
    @Test func emailsAreLowercasedAndMalformedOnesRefused() throws {
        #expect(try AccountRules.validateEmail("  Ana.Lopez@Example.COM ") == "ana.lopez@example.com")
        for bad in ["", "ana", "ana@", "@example.com", "ana@example", "ana@@example.com", "ana lopez@example.com", "ana@.example.com",
                    "ana@example.com.", "<ana@example.com>", "ana@exa\u{0}mple.com", String(repeating: "a", count: 250) + "@example.com"] {
            #expect(throws: ValidationError.self, "\(bad)") { try AccountRules.validateEmail(bad) }
        }
    }

    @Test func weakPasswordsAreRefusedWithTheirReason() {
        let common: Set<String> = ["password1234", "qwertyuiop12"]
        func reason(_ password: String, email: String? = "ana.lopez@example.com") -> String? {
            do { try AccountRules.checkPassword(password, email: email, common: common); return nil } catch { return error.message }
        }
        #expect(reason("short-pw1")?.contains("at least 12 characters") == true)
        #expect(reason(String(repeating: "é", count: 600))?.contains("at most 1024 bytes") == true, "long in bytes, not in characters")
        #expect(reason("Password1234")?.contains("commonest passwords") == true, "compared in lowercase")
        #expect(reason("abababababab")?.contains("repeats one or two characters") == true)
        #expect(reason("abcdefghijklm")?.contains("consecutive characters") == true)
        #expect(reason("987654321098") == nil, "a wrap-around from 0 to 9 is not one run")
        #expect(reason("ana.lopez-rules-2026")?.contains("contains your email") == true)
        #expect(reason("ferry tales under the bridge") == nil)
        #expect(reason("correct horse battery", email: nil) == nil)
    }

    @Test func eachRoleMayDoWhatTheRolesBelowItMay() {
        #expect(MemberRole.allCases.sorted() == [.viewer, .editor, .admin, .owner])
        #expect(MemberRole.viewer.may(.read) && !MemberRole.viewer.may(.editLinks))
        #expect(MemberRole.editor.may(.editLinks) && !MemberRole.editor.may(.manageSettings))
        #expect(MemberRole.admin.may(.manageSettings) && !MemberRole.admin.may(.manageDomains) && !MemberRole.admin.may(.manageMembers))
        #expect(MemberAction.allCases.allSatisfy { MemberRole.owner.may($0) })
    }
}
