import Foundation
import Testing
@testable import FerryAPI

@Suite("ErrorResponse")
struct APIErrorTests {
    private func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try FerryJSON.makeEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func encodesFieldAsNullWhenAbsent() throws {
        let body = try object(ErrorResponse(code: "not_found", message: "no such link"))
        #expect(Set(body.keys) == ["error"])
        let detail = try #require(body["error"] as? [String: Any])
        #expect(Set(detail.keys) == ["code", "message", "field"])
        #expect(detail["code"] as? String == "not_found")
        #expect(detail["message"] as? String == "no such link")
        #expect(detail["field"] is NSNull)
    }

    @Test func encodesTheExactText() throws {
        let data = try FerryJSON.makeEncoder().encode(ErrorResponse(code: "unauthorized", message: "missing key"))
        #expect(String(decoding: data, as: UTF8.self) == #"{"error":{"code":"unauthorized","field":null,"message":"missing key"}}"#)
    }

    @Test func encodesFieldWhenPresent() throws {
        let body = try object(ErrorResponse(code: "invalid_field", message: "bad", field: "utm.source"))
        let detail = try #require(body["error"] as? [String: Any])
        #expect(detail["field"] as? String == "utm.source")
    }

    @Test func detailAloneAlsoEncodesNull() throws {
        let detail = try object(ErrorResponse.Detail(code: "conflict", message: "taken"))
        #expect(Set(detail.keys) == ["code", "message", "field"])
        #expect(detail["field"] is NSNull)
    }

    @Test(arguments: [nil, "destination", "params.key"] as [String?])
    func roundTrips(field: String?) throws {
        let value = ErrorResponse(code: "invalid_field", message: "“quoted” <text> & more", field: field)
        let data = try FerryJSON.makeEncoder().encode(value)
        #expect(try FerryJSON.makeDecoder().decode(ErrorResponse.self, from: data) == value)
    }

    @Test func decodesBodiesWithoutField() throws {
        let json = #"{"error":{"code":"invalid_json","message":"expected an object"}}"#
        let value = try FerryJSON.makeDecoder().decode(ErrorResponse.self, from: Data(json.utf8))
        #expect(value == ErrorResponse(code: "invalid_json", message: "expected an object"))
        #expect(value.error.field == nil)
    }
}
