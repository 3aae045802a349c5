import FerryTestSupport
import Foundation
import Testing
@testable import FerryAPI

@Suite("ErrorResponse", .takesTurns)
struct APIErrorTests {
    private func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try FerryJSON.makeEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func encodesFieldAsNullWhenAbsent() throws {
        let body = try object(ErrorResponse(code: .notFound, message: "no such link"))
        #expect(Set(body.keys) == ["error"])
        let detail = try #require(body["error"] as? [String: Any])
        #expect(Set(detail.keys) == ["code", "message", "field"])
        #expect(detail["code"] as? String == "not_found")
        #expect(detail["message"] as? String == "no such link")
        #expect(detail["field"] is NSNull)
    }

    @Test func encodesTheExactText() throws {
        let data = try FerryJSON.makeEncoder().encode(ErrorResponse(code: .unauthorized, message: "missing key"))
        #expect(String(decoding: data, as: UTF8.self) == #"{"error":{"code":"unauthorized","field":null,"message":"missing key"}}"#)
    }

    @Test func encodesFieldWhenPresent() throws {
        let body = try object(ErrorResponse(code: .invalidField, message: "bad", field: "utm.source"))
        let detail = try #require(body["error"] as? [String: Any])
        #expect(detail["field"] as? String == "utm.source")
    }

    @Test func detailAloneAlsoEncodesNull() throws {
        let detail = try object(ErrorResponse.Detail(code: .conflict, message: "taken"))
        #expect(Set(detail.keys) == ["code", "message", "field"])
        #expect(detail["field"] is NSNull)
    }

    @Test(arguments: [nil, "destination", "params.key"] as [String?])
    func roundTrips(field: String?) throws {
        let value = ErrorResponse(code: .invalidField, message: "“quoted” <text> & more", field: field)
        let data = try FerryJSON.makeEncoder().encode(value)
        #expect(try FerryJSON.makeDecoder().decode(ErrorResponse.self, from: data) == value)
    }

    @Test func decodesBodiesWithoutField() throws {
        let json = #"{"error":{"code":"invalid_json","message":"expected an object"}}"#
        let value = try FerryJSON.makeDecoder().decode(ErrorResponse.self, from: Data(json.utf8))
        #expect(value == ErrorResponse(code: .invalidJSON, message: "expected an object"))
        #expect(value.error.field == nil)
    }
}

@Suite("API error codes", .takesTurns)
struct APIErrorCodeTests {
    /// A code this build knows decodes to its member, status included; one it does not know is kept as sent, without
    /// a status, so that a client can still fall back on the HTTP status.
    @Test func decodesKnownAndUnknownCodes() throws {
        let known = try FerryJSON.makeDecoder().decode(ErrorResponse.self, from: Data(#"{"error":{"code":"rate_limited","message":"slow down","field":null}}"#.utf8))
        #expect(known.error.code == .rateLimited)
        #expect(known.error.code.httpStatus == 429)
        let unknown = try FerryJSON.makeDecoder().decode(ErrorResponse.self, from: Data(#"{"error":{"code":"brand_new","message":"x","field":null}}"#.utf8))
        #expect(unknown.error.code.rawValue == "brand_new")
        #expect(unknown.error.code.httpStatus == nil)
        #expect(!APIErrorCode.all.contains(unknown.error.code))
    }

    /// Each code is listed once, as snake_case text, and encodes as that text.
    @Test func everyCodeIsDistinctAndEncodesAsItsText() throws {
        #expect(Set(APIErrorCode.all.map(\.rawValue)).count == APIErrorCode.all.count)
        for code in APIErrorCode.all {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" }, "\(code)")
            #expect(code.httpStatus.map { (400..<600).contains($0) } == true, "\(code)")
            #expect(String(decoding: try FerryJSON.makeEncoder().encode(code), as: UTF8.self) == "\"\(code.rawValue)\"")
        }
    }
}
