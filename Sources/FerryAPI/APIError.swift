/// The body of every error answer from the Ferry API.
///
/// ```json
/// {"error": {"code": "invalid_field", "message": "destination must be an http or https URL", "field": "destination"}}
/// ```
public struct ErrorResponse: Codable, Sendable, Hashable {
    /// The error itself.
    public var error: Detail

    /// One error: a stable machine-readable code, a sentence for people, and the offending field when there is one.
    public struct Detail: Codable, Sendable, Hashable {
        /// A stable code such as ``APIErrorCode/invalidField`` or ``APIErrorCode/notFound``.
        public var code: APIErrorCode
        /// A human-readable explanation.
        public var message: String
        /// The request field the error is about (a dotted path such as `utm.source`), when there is one.
        public var field: String?

        /// Creates an error detail.
        public init(code: APIErrorCode, message: String, field: String? = nil) {
            self.code = code
            self.message = message
            self.field = field
        }
    }

    /// Creates an error body.
    public init(code: APIErrorCode, message: String, field: String? = nil) {
        self.error = Detail(code: code, message: message, field: field)
    }

    /// Encodes with `field` present (as `null`) even when absent, so clients can rely on the three keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(error, forKey: .error)
    }
}

extension ErrorResponse.Detail {
    private enum CodingKeys: String, CodingKey { case code, message, field }

    /// Encodes all three keys, `field` as `null` when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        if let field { try container.encode(field, forKey: .field) } else { try container.encodeNil(forKey: .field) }
    }
}
