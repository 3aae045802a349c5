#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The request context of every Ferry route: the socket peer's address, for the client-address rules.
package struct FerryRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The address of the socket peer (a proxy, or the client itself).
    package let peerAddress: String?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Bodies are read with Ferry's own limit (see `FerryConfiguration.maxBodyBytes`); this is only the framework's ceiling.
    package var maxUploadSize: Int { 1024 * 1024 }
}

/// An error answered as `{"error": {"code", "message", "field"}}`, with the status its code comes with.
package struct APIError: HTTPResponseError, Sendable {
    package var status: HTTPResponse.Status
    /// The body.
    package var body: ErrorResponse
    /// Extra headers, such as `Allow` on a 405.
    package var headers: HTTPFields

    /// Creates an error answer; its status is the code's (see ``APIErrorCode/httpStatus``).
    package init(_ code: APIErrorCode, message: String, field: String? = nil, headers: HTTPFields = [:]) {
        self.init(status: HTTPResponse.Status(code: code.httpStatus ?? 500), code: code, message: message, field: field, headers: headers)
    }

    /// An answer whose status is not its code's: only for what the framework refuses with a status of its own.
    init(status: HTTPResponse.Status, code: APIErrorCode, message: String, field: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.body = ErrorResponse(code: code, message: message, field: field)
        self.headers = headers
    }

    /// The answer to a refusal of the rules or of a service: the code's status (404 `not_found` for something the
    /// request names that the key's app does not have, 409 when the app lacks what the request needs, 400 for a field).
    package init(_ error: ValidationError) {
        self.init(error.code, message: error.message, field: error.field)
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = (try? FerryJSON.makeEncoder().encode(body)) ?? Data()
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func notFound(_ what: String) -> APIError {
        APIError(.notFound, message: "\(what) not found")
    }
}

/// A JSON value of any shape, kept whole: read field by field where a body's fields are not all known (the
/// Firebase REST body, whose unknown fields become warnings) or to say which type a value has instead of the one
/// expected.
enum JSONValue: Decodable, Sendable {
    case string(String), number(Double), bool(Bool), null, array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let text = try? c.decode(String.self) { self = .string(text) }
        else if let flag = try? c.decode(Bool.self) { self = .bool(flag) } else if let number = try? c.decode(Double.self) { self = .number(number) }
        else if let items = try? c.decode([JSONValue].self) { self = .array(items) } else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Its type, for people: "a string", "a number"…
    var kind: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Reading and writing JSON bodies with Ferry's limits and error messages.
enum JSONBody {
    /// Decodes a bounded JSON body, turning every failure into a 4xx that names the field.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw APIError(.bodyTooLarge, message: "request body must be at most \(limit) bytes")
        }
        if let contentType = request.headers[.contentType], !isJSON(contentType) {
            throw APIError(.unsupportedMediaType, message: "send the body as application/json")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch {
            throw APIError(.bodyTooLarge, message: "request body must be at most \(limit) bytes")
        }
        let data = Data(buffer.readableBytesView)
        if data.isEmpty { throw APIError(.invalidJSON, message: "request body is empty; send a JSON object") }
        do {
            return try FerryJSON.makeDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw APIError(error)
        } catch let error as ValidationError {
            throw APIError(error)  // a body type that checks its own values while decoding
        } catch {
            throw APIError(.invalidJSON, message: "request body is not valid JSON")
        }
    }

    /// `application/json`, or any `application/…+json` such as `application/merge-patch+json`, with any parameters.
    static func isJSON(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    /// A JSON response.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) throws -> Response {
        let data = try FerryJSON.makeEncoder().encode(value)
        var headers = extra
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension APIError {
    /// A 400 explaining a decoding failure with the path of the field at fault.
    init(_ error: DecodingError) {
        func path(_ context: DecodingError.Context, _ extra: (any CodingKey)? = nil) -> String? {
            let keys = context.codingPath + (extra.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
            return text.isEmpty ? nil : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            let field = path(context)
            self.init(.invalidField, message: "\(field ?? "body") must be \(Self.describe(type))", field: field)
        case .valueNotFound(let type, let context):
            let field = path(context)
            self.init(.invalidField, message: "\(field ?? "body") must be \(Self.describe(type)), not null", field: field)
        case .keyNotFound(let key, let context):
            let field = path(context, key)
            self.init(.missingField, message: "\(field ?? key.stringValue) is required", field: field)
        case .dataCorrupted(let context):
            if let field = path(context) {
                self.init(.invalidField, message: "\(field): \(context.debugDescription)", field: field)
            } else {
                self.init(.invalidJSON, message: "request body is not valid JSON")
            }
        @unknown default:
            self.init(.invalidJSON, message: "request body could not be read")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        case is [String: String].Type: "an object of strings"
        case is Date.Type: "an ISO 8601 date"
        default:
            String(describing: type).contains("Dictionary") ? "an object" : String(describing: type).contains("Array") ? "an array" : "an object"
        }
    }
}
#endif
