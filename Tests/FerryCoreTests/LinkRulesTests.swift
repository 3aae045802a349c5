import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

@Suite("LinkRules.makeLink", .takesTurns)
struct LinkRulesMakeLinkTests {
    static let now = Fixtures.now

    static func context(app: App = Fixtures.app(), environment: APIEnvironment = .live) -> LinkRules.Context {
        LinkRules.Context(app: app, environment: environment, id: "lnk_new", generatedSlug: "abc1234", now: now)
    }

    static func make(_ request: CreateLinkRequest, app: App = Fixtures.app()) throws -> Link {
        try LinkRules.makeLink(from: request, context: context(app: app))
    }

    static func error(_ request: CreateLinkRequest, app: App = Fixtures.app()) -> ValidationError? {
        validationError { try make(request, app: app) }
    }

    static func params(count: Int, valueBytes: Int = 1) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { (String(format: "k%02d", $0), String(repeating: "v", count: valueBytes)) })
    }

    @Test func minimalRequestUsesDefaults() throws {
        let link = try Self.make(CreateLinkRequest(destination: "https://acme.com/"))
        #expect(link.id == "lnk_new")
        #expect(link.appID == "app_1")
        #expect(link.environment == .live)
        #expect(link.domain == "go.acme.com", "the app's first domain is the default")
        #expect(link.slug == "abc1234", "the generated slug is used when none is given")
        #expect(link.destination == "https://acme.com/")
        #expect(link.iosURL == nil && link.androidURL == nil)
        #expect(link.params.isEmpty)
        #expect(link.utm.isEmpty)
        #expect(link.social.isEmpty)
        #expect(link.campaign == nil && link.referrer == nil && link.expiresAt == nil)
        #expect(link.disabled == false)
        #expect(link.createdAt == Self.now && link.updatedAt == Self.now)
        #expect(link.shortURL == "https://go.acme.com/abc1234")
    }

    @Test func environmentComesFromTheContext() throws {
        let link = try LinkRules.makeLink(from: CreateLinkRequest(destination: "https://acme.com/"), context: Self.context(environment: .test))
        #expect(link.environment == .test)
    }

    @Test func fullRequestIsCopied() throws {
        let expiry = Self.now.addingTimeInterval(86_400)
        let request = CreateLinkRequest(
            domain: "acme.link", slug: "Summer-Sale", destination: "https://acme.com/sale", iosURL: "acme://sale",
            androidURL: "https://acme.com/app/sale", params: ["screen": "sale", "id": "42"],
            utm: UTMParameters(source: "newsletter", medium: "email", campaign: "summer", content: "a", term: "shoes"),
            campaign: "summer", referrer: "user_9",
            social: SocialMetadata(title: "Sale", description: "Big\nsale", imageURL: "https://acme.com/sale.png"),
            expiresAt: expiry, disabled: true
        )
        let link = try Self.make(request)
        #expect(link.domain == "acme.link")
        #expect(link.slug == "summer-sale", "custom slugs are lowercased")
        #expect(link.iosURL == "acme://sale")
        #expect(link.androidURL == "https://acme.com/app/sale")
        #expect(link.params == ["screen": "sale", "id": "42"])
        #expect(link.utm == request.utm)
        #expect(link.campaign == "summer")
        #expect(link.referrer == "user_9")
        #expect(link.social == request.social)
        #expect(link.expiresAt == expiry)
        #expect(link.disabled)
        #expect(link.shortURL == "https://acme.link/summer-sale")
    }

    @Test func requestedDomainIsNormalised() throws {
        #expect(try Self.make(CreateLinkRequest(domain: "ACME.Link", destination: "https://acme.com/")).domain == "acme.link")
    }

    @Test(arguments: ["evil.com", "go.acme.com.evil.com", "acme.com", "go.acme.com:8080"])
    func foreignDomainIsRefused(domain: String) {
        let error = Self.error(CreateLinkRequest(domain: domain, destination: "https://acme.com/"))
        #expect(error?.field == "domain")
    }

    @Test(arguments: ["bad domain", "", "go.acme.com/x", "https://go.acme.com"])
    func malformedDomainIsRefused(domain: String) {
        #expect(Self.error(CreateLinkRequest(domain: domain, destination: "https://acme.com/"))?.field == "domain")
    }

    @Test func appWithoutDomainsCannotCreateLinks() {
        let error = Self.error(CreateLinkRequest(destination: "https://acme.com/"), app: Fixtures.app(domains: []))
        #expect(error?.field == "domain")
    }

    @Test(arguments: ["", "a b", "ünicode", "api", "Dashboard", String(repeating: "a", count: 65)])
    func badCustomSlugIsRefused(slug: String) {
        #expect(Self.error(CreateLinkRequest(slug: slug, destination: "https://acme.com/"))?.field == "slug")
    }

    /// Any expiry is kept; one already past makes a link that is expired from the start, as a change to it does.
    @Test func anExpiryMayBeAnyInstant() throws {
        for offset in [-86_400.0 * 365 * 30, -1, 0, 1] {
            let link = try Self.make(CreateLinkRequest(destination: "https://acme.com/", expiresAt: Self.now.addingTimeInterval(offset)))
            #expect(link.expiresAt == Self.now.addingTimeInterval(offset))
            #expect(link.status(at: Self.now) == (offset > 0 ? .active : .expired), "offset \(offset)")
        }
    }

    @Test(arguments: [
        ("javascript:alert(1)", "destination"), ("data:text/html,x", "destination"), ("//evil.com", "destination"),
        ("acme://sale", "destination"), ("", "destination"),
    ])
    func destinationIsValidated(destination: String, field: String) {
        #expect(Self.error(CreateLinkRequest(destination: destination))?.field == field)
    }

    @Test func appURLsAreValidated() {
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", iosURL: "javascript:alert(1)"))?.field == "iosURL")
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", iosURL: "http://acme.com/"))?.field == "iosURL")
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", androidURL: "acme:"))?.field == "androidURL")
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", androidURL: "vbscript:x"))?.field == "androidURL")
    }

    // MARK: params

    @Test func paramCountLimit() throws {
        #expect(try Self.make(CreateLinkRequest(destination: "https://acme.com/", params: Self.params(count: 50))).params.count == 50)
        let error = Self.error(CreateLinkRequest(destination: "https://acme.com/", params: Self.params(count: 51)))
        #expect(error?.field == "params")
    }

    @Test func paramValueLimit() throws {
        let ok = ["big": String(repeating: "x", count: 1024)]
        #expect(try Self.make(CreateLinkRequest(destination: "https://acme.com/", params: ok)).params == ok)
        let error = Self.error(CreateLinkRequest(destination: "https://acme.com/", params: ["big": String(repeating: "x", count: 1025)]))
        #expect(error?.field == "params.big")
        // The limit is in characters, as JSON Schema's maxLength counts them: 1024 two-byte or four-byte characters fit,
        // 1025 do not, and a character of several scalars counts each.
        for character in ["é", "😀"] {
            #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", params: ["u": String(repeating: character, count: 1024)])) == nil)
            #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", params: ["u": String(repeating: character, count: 1025)]))?.field == "params.u")
        }
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", params: ["u": String(repeating: "e\u{301}", count: 513)]))?.field == "params.u")
    }

    @Test func paramKeyLimits() throws {
        let key128 = String(repeating: "k", count: 128)
        #expect(try Self.make(CreateLinkRequest(destination: "https://acme.com/", params: [key128: "v"])).params[key128] == "v")
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", params: [key128 + "k": "v"]))?.field == "params")
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", params: ["": "v"]))?.field == "params")
    }

    @Test(arguments: ["a b", "a\nb", "a\rb", "a\tb", "\u{0}", "a\u{7}", "a\u{1B}[31m", "a\u{7F}", "a\u{85}b"])
    func paramKeysRefuseSpacesAndControlCharacters(key: String) {
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", params: [key: "v"]))?.field == "params")
    }

    @Test func paramValuesRefuseNUL() throws {
        #expect(Self.error(CreateLinkRequest(destination: "https://acme.com/", params: ["k": "a\u{0}b"]))?.field == "params.k")
        // Other text, even multi-line, is data for the app.
        let link = try Self.make(CreateLinkRequest(destination: "https://acme.com/", params: ["k": "line 1\nline 2 ✓ \"quoted\""]))
        #expect(link.params["k"] == "line 1\nline 2 ✓ \"quoted\"")
    }

    @Test func paramsTotalSize() throws {
        // 15 × (3-byte key + 1024-byte value) = 15 405 bytes: fits in 16 KiB.
        #expect(try Self.make(CreateLinkRequest(destination: "https://acme.com/", params: Self.params(count: 15, valueBytes: 1024))).params.count == 15)
        // 16 × 1027 = 16 432 bytes: over.
        let error = Self.error(CreateLinkRequest(destination: "https://acme.com/", params: Self.params(count: 16, valueBytes: 1024)))
        #expect(error?.field == "params")
        #expect(error?.message.contains("\(LinkRules.maxParamsTotalLength)") == true)
    }

    // MARK: text

    @Test(arguments: [
        "campaign", "referrer", "utm.source", "utm.medium", "utm.campaign", "utm.content", "utm.term",
    ])
    func shortTextLimits(field: String) throws {
        func request(_ text: String) -> CreateLinkRequest {
            var request = CreateLinkRequest(destination: "https://acme.com/")
            switch field {
            case "campaign": request.campaign = text
            case "referrer": request.referrer = text
            case "utm.source": request.utm = UTMParameters(source: text)
            case "utm.medium": request.utm = UTMParameters(medium: text)
            case "utm.campaign": request.utm = UTMParameters(campaign: text)
            case "utm.content": request.utm = UTMParameters(content: text)
            default: request.utm = UTMParameters(term: text)
            }
            return request
        }
        _ = try Self.make(request(String(repeating: "a", count: 256)))
        #expect(Self.error(request(String(repeating: "a", count: 257)))?.field == field)
        // Characters, not bytes: 256 four-byte ones fit.
        _ = try Self.make(request(String(repeating: "😀", count: 256)))
        #expect(Self.error(request(String(repeating: "😀", count: 257)))?.field == field)
        #expect(Self.error(request("a\nb"))?.field == field)
        #expect(Self.error(request("a\u{0}b"))?.field == field)
        #expect(Self.error(request("\u{1B}[2J"))?.field == field)
        _ = try Self.make(request("Ünïcödé ✓ <fine>"))
    }

    @Test func socialTextLimits() throws {
        func request(_ social: SocialMetadata) -> CreateLinkRequest {
            CreateLinkRequest(destination: "https://acme.com/", social: social)
        }
        _ = try Self.make(request(SocialMetadata(title: String(repeating: "t", count: 300))))
        #expect(Self.error(request(SocialMetadata(title: String(repeating: "t", count: 301))))?.field == "social.title")
        #expect(Self.error(request(SocialMetadata(title: "two\nlines")))?.field == "social.title")
        _ = try Self.make(request(SocialMetadata(description: String(repeating: "d", count: 1000))))
        #expect(Self.error(request(SocialMetadata(description: String(repeating: "d", count: 1001))))?.field == "social.description")
        _ = try Self.make(request(SocialMetadata(description: "line 1\r\nline 2\tindented")))
        #expect(Self.error(request(SocialMetadata(description: "bell\u{7}")))?.field == "social.description")
    }

    @Test(arguments: [
        "javascript:alert(1)", "data:image/png;base64,AAAA", "/relative.png", "//evil.com/i.png", "ftp://acme.com/i.png",
        "https://user@acme.com/i.png", "https://acme.com/" + String(repeating: "i", count: 2040),
    ])
    func socialImageURLIsValidated(imageURL: String) {
        let error = Self.error(CreateLinkRequest(destination: "https://acme.com/", social: SocialMetadata(imageURL: imageURL)))
        #expect(error?.field == "social.imageURL")
    }

    @Test func socialImageURLAccepted() throws {
        let link = try Self.make(CreateLinkRequest(destination: "https://acme.com/", social: SocialMetadata(imageURL: "https://cdn.acme.com/i.png?v=2")))
        #expect(link.social.imageURL == "https://cdn.acme.com/i.png?v=2")
    }

    @Test func validateSocialUsesTheGivenFieldPrefix() {
        let error = validationError { try LinkRules.validateSocial(SocialMetadata(imageURL: "javascript:x"), field: "app.social") }
        #expect(error?.field == "app.social.imageURL")
    }
}

@Suite("LinkRules.apply", .takesTurns)
struct LinkRulesApplyTests {
    static let later = Fixtures.now.addingTimeInterval(600)

    static func apply(_ update: UpdateLinkRequest, to link: Link = Fixtures.link()) throws -> Link {
        try LinkRules.apply(update, to: link, now: later)
    }

    static func error(_ update: UpdateLinkRequest, to link: Link = Fixtures.link()) -> ValidationError? {
        validationError { try apply(update, to: link) }
    }

    static func decode(_ json: String) throws -> UpdateLinkRequest {
        try FerryJSON.makeDecoder().decode(UpdateLinkRequest.self, from: Data(json.utf8))
    }

    @Test func emptyUpdateOnlyMovesUpdatedAt() throws {
        let link = Fixtures.link()
        var expected = link
        expected.updatedAt = Self.later
        #expect(try Self.apply(UpdateLinkRequest(), to: link) == expected)
    }

    @Test func updatedAtMovesAndCreatedAtStays() throws {
        let link = Fixtures.link()
        var update = UpdateLinkRequest()
        update.campaign = .set("autumn")
        let next = try Self.apply(update, to: link)
        #expect(next.updatedAt == Self.later)
        #expect(next.createdAt == link.createdAt)
        #expect(next.id == link.id && next.slug == link.slug && next.domain == link.domain && next.appID == link.appID)
    }

    @Test func absentFieldsAreKeptNullClearsValuesReplace() throws {
        let link = Fixtures.link(androidURL: "acme://android", social: SocialMetadata(title: "T"), expiresAt: Fixtures.now.addingTimeInterval(86_400))
        let update = try Self.decode("""
        {"iosURL": null, "androidURL": "https://acme.com/a", "params": {"only": "this"}, "utm": null,
         "campaign": null, "referrer": "user_2", "social": null, "expiresAt": null}
        """)
        let next = try Self.apply(update, to: link)
        #expect(next.destination == link.destination, "absent: kept")
        #expect(next.iosURL == nil, "null: cleared")
        #expect(next.androidURL == "https://acme.com/a")
        #expect(next.params == ["only": "this"], "params are replaced as a whole, not merged")
        #expect(next.utm == UTMParameters())
        #expect(next.campaign == nil)
        #expect(next.referrer == "user_2")
        #expect(next.social == SocialMetadata())
        #expect(next.expiresAt == nil)
        #expect(next.disabled == link.disabled)
    }

    @Test func clearingParamsLeavesAnEmptyDictionary() throws {
        var update = UpdateLinkRequest()
        update.params = .clear
        #expect(try Self.apply(update).params == [:])
    }

    @Test func setReplacesUTMAndSocialWhole() throws {
        var update = UpdateLinkRequest()
        update.utm = .set(UTMParameters(term: "shoes"))
        update.social = .set(SocialMetadata(description: "New"))
        let next = try Self.apply(update, to: Fixtures.link(social: SocialMetadata(title: "Old")))
        #expect(next.utm == UTMParameters(term: "shoes"), "utm_source and utm_medium are gone")
        #expect(next.social == SocialMetadata(description: "New"))
    }

    @Test func destinationCanChangeButNotBeCleared() throws {
        var update = UpdateLinkRequest()
        update.destination = .set("https://acme.com/new")
        #expect(try Self.apply(update).destination == "https://acme.com/new")
        update.destination = .clear
        #expect(Self.error(update)?.field == "destination")
        update.destination = .set("javascript:alert(1)")
        #expect(Self.error(update)?.field == "destination")
    }

    @Test func disabledCanToggleButNotBeCleared() throws {
        var update = UpdateLinkRequest()
        update.disabled = .set(true)
        let disabled = try Self.apply(update)
        #expect(disabled.disabled)
        update.disabled = .set(false)
        #expect(try Self.apply(update, to: disabled).disabled == false)
        update.disabled = .clear
        #expect(Self.error(update)?.field == "disabled")
    }

    @Test(arguments: [FieldUpdate<String>.set("acme.link"), .set("go.acme.com"), .clear])
    func domainCannotChange(change: FieldUpdate<String>) {
        var update = UpdateLinkRequest()
        update.domain = change
        #expect(Self.error(update)?.field == "domain")
    }

    @Test(arguments: [FieldUpdate<String>.set("other"), .set("summer"), .clear])
    func slugCannotChange(change: FieldUpdate<String>) {
        var update = UpdateLinkRequest()
        update.slug = change
        #expect(Self.error(update)?.field == "slug")
    }

    @Test func resultIsValidated() throws {
        var update = UpdateLinkRequest()
        update.params = .set(LinkRulesMakeLinkTests.params(count: 51))
        #expect(Self.error(update)?.field == "params")

        update = UpdateLinkRequest()
        update.iosURL = .set("javascript:alert(1)")
        #expect(Self.error(update)?.field == "iosURL")

        update = UpdateLinkRequest()
        update.campaign = .set(String(repeating: "c", count: 257))
        #expect(Self.error(update)?.field == "campaign")

        update = UpdateLinkRequest()
        update.social = .set(SocialMetadata(imageURL: "data:image/png;base64,AAAA"))
        #expect(Self.error(update)?.field == "social.imageURL")
    }

    @Test func refusedUpdateLeavesTheLinkUntouched() {
        let link = Fixtures.link()
        var update = UpdateLinkRequest()
        update.campaign = .set("changed")
        update.destination = .clear
        #expect(Self.error(update, to: link) != nil)
        #expect(link == Fixtures.link())
    }
}
