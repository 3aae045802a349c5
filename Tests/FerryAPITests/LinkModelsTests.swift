import FerryTestSupport
import Foundation
import Testing
@testable import FerryAPI

private let noon = Date(timeIntervalSince1970: 1_769_860_800)

/// One field of `UpdateLinkRequest`, with a JSON sample value and the matching `FieldUpdate` values.
enum UpdateField: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case destination, iosURL, androidURL, params, utm, campaign, referrer, social, expiresAt, disabled, domain, slug

    var testDescription: String { rawValue }

    /// A JSON value for the field.
    var sampleJSON: String {
        switch self {
        case .destination: #""https://example.com/new""#
        case .iosURL: #""myapp://new""#
        case .androidURL: #""myapp://android""#
        case .params: #"{"screen":"sale","id":"42"}"#
        case .utm: #"{"source":"newsletter","term":"shoes"}"#
        case .campaign: #""spring""#
        case .referrer: #""user_7""#
        case .social: #"{"title":"Hi","imageURL":"https://example.com/i.png"}"#
        case .expiresAt: #""2026-01-31T12:00:00Z""#
        case .disabled: "true"
        case .domain: #""go.example.com""#
        case .slug: #""other""#
        }
    }

    /// The decoded form of `sampleJSON`.
    var setValue: AnyHashable {
        switch self {
        case .destination: FieldUpdate.set("https://example.com/new")
        case .iosURL: FieldUpdate.set("myapp://new")
        case .androidURL: FieldUpdate.set("myapp://android")
        case .params: FieldUpdate.set(["screen": "sale", "id": "42"])
        case .utm: FieldUpdate.set(UTMParameters(source: "newsletter", term: "shoes"))
        case .campaign: FieldUpdate.set("spring")
        case .referrer: FieldUpdate.set("user_7")
        case .social: FieldUpdate.set(SocialMetadata(title: "Hi", imageURL: "https://example.com/i.png"))
        case .expiresAt: FieldUpdate.set(noon)
        case .disabled: FieldUpdate.set(true)
        case .domain: FieldUpdate.set("go.example.com")
        case .slug: FieldUpdate.set("other")
        }
    }

    /// The field's current value, type-erased.
    func value(in request: UpdateLinkRequest) -> AnyHashable {
        switch self {
        case .destination: request.destination
        case .iosURL: request.iosURL
        case .androidURL: request.androidURL
        case .params: request.params
        case .utm: request.utm
        case .campaign: request.campaign
        case .referrer: request.referrer
        case .social: request.social
        case .expiresAt: request.expiresAt
        case .disabled: request.disabled
        case .domain: request.domain
        case .slug: request.slug
        }
    }

    /// Whether the field is `.unchanged` / `.clear` in the request.
    func state(in request: UpdateLinkRequest) -> String {
        func name<T>(_ update: FieldUpdate<T>) -> String {
            switch update {
            case .unchanged: "unchanged"
            case .clear: "clear"
            case .set: "set"
            }
        }
        return switch self {
        case .destination: name(request.destination)
        case .iosURL: name(request.iosURL)
        case .androidURL: name(request.androidURL)
        case .params: name(request.params)
        case .utm: name(request.utm)
        case .campaign: name(request.campaign)
        case .referrer: name(request.referrer)
        case .social: name(request.social)
        case .expiresAt: name(request.expiresAt)
        case .disabled: name(request.disabled)
        case .domain: name(request.domain)
        case .slug: name(request.slug)
        }
    }

    /// Sets the field to its sample value (`set == true`) or clears it.
    func apply(to request: inout UpdateLinkRequest, set: Bool) {
        switch self {
        case .destination: request.destination = set ? .set("https://example.com/new") : .clear
        case .iosURL: request.iosURL = set ? .set("myapp://new") : .clear
        case .androidURL: request.androidURL = set ? .set("myapp://android") : .clear
        case .params: request.params = set ? .set(["screen": "sale", "id": "42"]) : .clear
        case .utm: request.utm = set ? .set(UTMParameters(source: "newsletter", term: "shoes")) : .clear
        case .campaign: request.campaign = set ? .set("spring") : .clear
        case .referrer: request.referrer = set ? .set("user_7") : .clear
        case .social: request.social = set ? .set(SocialMetadata(title: "Hi", imageURL: "https://example.com/i.png")) : .clear
        case .expiresAt: request.expiresAt = set ? .set(noon) : .clear
        case .disabled: request.disabled = set ? .set(true) : .clear
        case .domain: request.domain = set ? .set("go.example.com") : .clear
        case .slug: request.slug = set ? .set("other") : .clear
        }
    }
}

@Suite("UpdateLinkRequest", .takesTurns)
struct UpdateLinkRequestTests {
    private func decode(_ json: String) throws -> UpdateLinkRequest {
        try FerryJSON.makeDecoder().decode(UpdateLinkRequest.self, from: Data(json.utf8))
    }

    private func jsonObject(_ request: UpdateLinkRequest) throws -> [String: Any] {
        let data = try FerryJSON.makeEncoder().encode(request)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func emptyObjectLeavesEverythingUnchanged() throws {
        let request = try decode("{}")
        #expect(request == UpdateLinkRequest())
        for field in UpdateField.allCases {
            #expect(field.state(in: request) == "unchanged", "\(field.rawValue)")
        }
    }

    @Test func unknownKeysAreIgnored() throws {
        #expect(try decode(#"{"whatever": 1}"#) == UpdateLinkRequest())
    }

    @Test(arguments: UpdateField.allCases)
    func nullClearsOnlyThatField(field: UpdateField) throws {
        let request = try decode(#"{"\#(field.rawValue)": null}"#)
        for other in UpdateField.allCases {
            #expect(other.state(in: request) == (other == field ? "clear" : "unchanged"), "\(other.rawValue)")
        }
    }

    @Test(arguments: UpdateField.allCases)
    func valueSetsOnlyThatField(field: UpdateField) throws {
        let request = try decode(#"{"\#(field.rawValue)": \#(field.sampleJSON)}"#)
        #expect(field.value(in: request) == field.setValue)
        for other in UpdateField.allCases where other != field {
            #expect(other.state(in: request) == "unchanged", "\(other.rawValue)")
        }
    }

    @Test(arguments: UpdateField.allCases, [true, false])
    func roundTripsThroughEncode(field: UpdateField, set: Bool) throws {
        var request = UpdateLinkRequest()
        field.apply(to: &request, set: set)
        let object = try jsonObject(request)
        #expect(Array(object.keys) == [field.rawValue], "unchanged fields are left out")
        if set {
            #expect(!(object[field.rawValue] is NSNull))
        } else {
            #expect(object[field.rawValue] is NSNull)
        }
        let data = try FerryJSON.makeEncoder().encode(request)
        #expect(try FerryJSON.makeDecoder().decode(UpdateLinkRequest.self, from: data) == request)
    }

    @Test func everyFieldAtOnceRoundTrips() throws {
        for set in [true, false] {
            var request = UpdateLinkRequest()
            for field in UpdateField.allCases { field.apply(to: &request, set: set) }
            let object = try jsonObject(request)
            #expect(Set(object.keys) == Set(UpdateField.allCases.map(\.rawValue)))
            let data = try FerryJSON.makeEncoder().encode(request)
            let decoded = try FerryJSON.makeDecoder().decode(UpdateLinkRequest.self, from: data)
            #expect(decoded == request)
            for field in UpdateField.allCases {
                #expect(field.state(in: decoded) == (set ? "set" : "clear"))
            }
        }
    }

    @Test func emptyUpdateEncodesAsEmptyObject() throws {
        let data = try FerryJSON.makeEncoder().encode(UpdateLinkRequest())
        #expect(String(decoding: data, as: UTF8.self) == "{}")
    }

    @Test func mixedPatch() throws {
        let request = try decode(#"{"destination":"https://example.com/x","iosURL":null,"params":{},"disabled":false}"#)
        #expect(request.destination == .set("https://example.com/x"))
        #expect(request.iosURL == .clear)
        #expect(request.params == .set([:]))
        #expect(request.disabled == .set(false))
        #expect(request.androidURL == .unchanged)
        #expect(request.expiresAt == .unchanged)
    }

    @Test(arguments: [
        #"{"disabled": "yes"}"#,
        #"{"destination": 42}"#,
        #"{"params": {"a": 1}}"#,
        #"{"params": ["a"]}"#,
        #"{"utm": "newsletter"}"#,
        #"{"expiresAt": "tomorrow"}"#,
        #"{"social": {"title": 7}}"#,
        "[]",
        "null",
    ])
    func rejectsWrongTypes(json: String) {
        #expect(throws: DecodingError.self) { try decode(json) }
    }

    @Test func fieldUpdateApplies() {
        #expect(FieldUpdate<String>.unchanged.applied(to: "old") == "old")
        #expect(FieldUpdate<String>.unchanged.applied(to: nil) == nil)
        #expect(FieldUpdate<String>.set("new").applied(to: "old") == "new")
        #expect(FieldUpdate<String>.set("new").applied(to: nil) == "new")
        #expect(FieldUpdate<String>.clear.applied(to: "old") == nil)
        #expect(FieldUpdate<String>.clear.applied(to: nil) == nil)
    }
}

@Suite("CreateLinkRequest", .takesTurns)
struct CreateLinkRequestTests {
    @Test func decodesAMinimalBody() throws {
        let json = #"{"destination": "https://example.com/"}"#
        let request = try FerryJSON.makeDecoder().decode(CreateLinkRequest.self, from: Data(json.utf8))
        #expect(request == CreateLinkRequest(destination: "https://example.com/"))
        #expect(request.slug == nil && request.domain == nil && request.params == nil && request.expiresAt == nil)
    }

    @Test func requiresADestination() {
        #expect(throws: DecodingError.self) {
            try FerryJSON.makeDecoder().decode(CreateLinkRequest.self, from: Data(#"{"slug": "x"}"#.utf8))
        }
    }

    @Test func roundTrips() throws {
        let request = CreateLinkRequest(
            domain: "go.example.com", slug: "Summer", destination: "https://example.com/sale", iosURL: "myapp://sale",
            androidURL: "myapp://sale", params: ["a": "1"], utm: UTMParameters(source: "newsletter"), campaign: "summer",
            referrer: "u1", social: SocialMetadata(title: "Sale"), expiresAt: noon, disabled: true
        )
        let data = try FerryJSON.makeEncoder().encode(request)
        #expect(try FerryJSON.makeDecoder().decode(CreateLinkRequest.self, from: data) == request)
    }
}

@Suite("LinkResponse", .takesTurns)
struct LinkResponseTests {
    static let allKeys: Set<String> = [
        "id", "url", "domain", "slug", "environment", "destination", "iosURL", "androidURL", "params", "utm", "campaign",
        "referrer", "social", "expiresAt", "disabled", "routing", "isLongLink", "createdInApp", "createdAt", "updatedAt",
    ]

    static func minimal() -> LinkResponse {
        LinkResponse(
            id: "lnk_1", url: "https://go.example.com/summer", domain: "go.example.com", slug: "summer", environment: .live,
            destination: "https://example.com/", iosURL: nil, androidURL: nil, params: [:], utm: UTMParameters(),
            campaign: nil, referrer: nil, social: SocialMetadata(), expiresAt: nil, disabled: false,
            createdAt: noon, updatedAt: noon.addingTimeInterval(60)
        )
    }

    @Test func encodesEveryKeyWithNulls() throws {
        let data = try FerryJSON.makeEncoder().encode(Self.minimal())
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == Self.allKeys)
        for key in ["iosURL", "androidURL", "campaign", "referrer", "expiresAt"] {
            #expect(object[key] is NSNull, "\(key)")
        }
        #expect(object["environment"] as? String == "live")
        #expect(object["disabled"] as? Bool == false)
        #expect((object["params"] as? [String: Any])?.isEmpty == true)
        #expect((object["utm"] as? [String: Any])?.isEmpty == true)
        #expect((object["social"] as? [String: Any])?.isEmpty == true)
        #expect(object["createdAt"] as? String == "2026-01-31T12:00:00.000Z")
        #expect(object["updatedAt"] as? String == "2026-01-31T12:01:00.000Z")
    }

    @Test func encodesSetValues() throws {
        var response = Self.minimal()
        response.iosURL = "myapp://x"
        response.androidURL = "myapp://y"
        response.campaign = "c"
        response.referrer = "r"
        response.expiresAt = noon
        response.environment = .test
        let data = try FerryJSON.makeEncoder().encode(response)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == Self.allKeys)
        #expect(object["iosURL"] as? String == "myapp://x")
        #expect(object["androidURL"] as? String == "myapp://y")
        #expect(object["campaign"] as? String == "c")
        #expect(object["referrer"] as? String == "r")
        #expect(object["expiresAt"] as? String == "2026-01-31T12:00:00.000Z")
        #expect(object["environment"] as? String == "test")
    }

    @Test func roundTrips() throws {
        var full = Self.minimal()
        full.iosURL = "myapp://x"
        full.params = ["k": "v"]
        full.utm = UTMParameters(source: "s", medium: "m", campaign: "c", content: "co", term: "t")
        full.social = SocialMetadata(title: "T", description: "D", imageURL: "https://example.com/i.png")
        full.expiresAt = noon.addingTimeInterval(3600)
        full.disabled = true
        for value in [Self.minimal(), full] {
            let data = try FerryJSON.makeEncoder().encode(value)
            #expect(try FerryJSON.makeDecoder().decode(LinkResponse.self, from: data) == value)
        }
    }

    @Test func listPageRoundTrips() throws {
        let page = LinkListResponse(data: [Self.minimal()], nextCursor: nil)
        let data = try FerryJSON.makeEncoder().encode(page)
        #expect(try FerryJSON.makeDecoder().decode(LinkListResponse.self, from: data) == page)
    }
}

@Suite("UTMParameters and SocialMetadata", .takesTurns)
struct UTMParametersTests {
    @Test func queryItemsFollowTheConventionalOrder() {
        let utm = UTMParameters(source: "s", medium: "m", campaign: "c", content: "co", term: "t")
        #expect(utm.queryItems.map(\.name) == ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"])
        #expect(utm.queryItems.map(\.value) == ["s", "m", "c", "co", "t"])
    }

    @Test func queryItemsSkipUnsetParameters() {
        let utm = UTMParameters(campaign: "spring", term: "shoes")
        #expect(utm.queryItems.map(\.name) == ["utm_campaign", "utm_term"])
        #expect(utm.queryItems.map(\.value) == ["spring", "shoes"])
        #expect(!utm.isEmpty)
    }

    @Test func emptyParametersHaveNoItems() {
        #expect(UTMParameters().queryItems.isEmpty)
        #expect(UTMParameters().isEmpty)
        #expect(UTMParameters(source: "").queryItems.map(\.name) == ["utm_source"], "an empty string is still set")
    }

    @Test(arguments: [
        UTMParameters(source: "x"), UTMParameters(medium: "x"), UTMParameters(campaign: "x"),
        UTMParameters(content: "x"), UTMParameters(term: "x"),
    ])
    func anySingleParameterMakesItNonEmpty(utm: UTMParameters) {
        #expect(!utm.isEmpty)
        #expect(utm.queryItems.count == 1)
    }

    @Test func utmEncodesWithoutUnsetKeys() throws {
        let data = try FerryJSON.makeEncoder().encode(UTMParameters(source: "a", term: "b"))
        #expect(String(decoding: data, as: UTF8.self) == #"{"source":"a","term":"b"}"#)
    }

    @Test func socialIsEmpty() {
        #expect(SocialMetadata().isEmpty)
        #expect(!SocialMetadata(title: "t").isEmpty)
        #expect(!SocialMetadata(description: "d").isEmpty)
        #expect(!SocialMetadata(imageURL: "https://example.com/i.png").isEmpty)
    }
}
