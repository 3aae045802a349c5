@testable import FerryAPI
import Testing

@Suite("API key scopes", .takesTurns)
struct APIKeyScopeTests {
    @Test func aListIsParsedFromCommasOrSpacesAndUnknownNamesAreRefusedByName() throws {
        #expect(try APIKeyScope.parseList("links:read,stats:read") == [.linksRead, .statsRead])
        #expect(try APIKeyScope.parseList("links:write stats:read,links:write") == [.linksWrite, .statsRead])
        #expect(throws: APIKeyScope.ScopeListError.unknown("links:admin")) { try APIKeyScope.parseList("links:read,links:admin") }
        #expect(throws: APIKeyScope.ScopeListError.empty) { try APIKeyScope.parseList(" , ") }
        #expect(APIKeyScope.ScopeListError.unknown("x").description.contains("links:read"), "the refusal lists the scopes there are")
    }

    @Test func writingGrantsReadingButNotTheReverse() {
        #expect(APIKeyScope.linksRead.isGranted(by: [.linksWrite]))
        #expect(!APIKeyScope.linksWrite.isGranted(by: [.linksRead]))
        #expect(APIKeyScope.settingsRead.isGranted(by: [.settingsWrite]))
        #expect(APIKeyScope.webhooksRead.isGranted(by: [.webhooksWrite]))
        #expect(!APIKeyScope.statsRead.isGranted(by: [.linksWrite, .webhooksWrite, .settingsWrite]))
        #expect(!APIKeyScope.auditRead.isGranted(by: []))
        #expect(APIKeyScope.text([.statsRead, .linksRead]) == "links:read stats:read", "stored and shown in one order")
    }
}
