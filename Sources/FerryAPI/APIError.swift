/// The body of every error answer from the Ferry API.
///
/// ```json
/// {"error": {"code": "invalid_field", "message": "destination must be an http or https URL", "field": "destination"}}
/// ```
package struct ErrorResponse: Codable, Sendable, Hashable {
    /// The error itself.
    package var error: Detail

    /// One error: a stable machine-readable code, a sentence for people, and the offending field when there is one.
    package struct Detail: Codable, Sendable, Hashable {
        /// A stable code such as ``APIErrorCode/invalidField`` or ``APIErrorCode/notFound``.
        package var code: APIErrorCode
        /// A human-readable explanation.
        package var message: String
        /// The request field the error is about (a dotted path such as `utm.source`), when there is one.
        package var field: String?

        /// Creates an error detail.
        package init(code: APIErrorCode, message: String, field: String? = nil) {
            self.code = code
            self.message = message
            self.field = field
        }
    }

    /// Creates an error body.
    package init(code: APIErrorCode, message: String, field: String? = nil) {
        self.error = Detail(code: code, message: message, field: field)
    }

    /// Encodes with `field` present (as `null`) even when absent, so clients can rely on the three keys.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(error, forKey: .error)
    }
}

extension ErrorResponse.Detail {
    private enum CodingKeys: String, CodingKey { case code, message, field }

    /// Encodes all three keys, `field` as `null` when there is none.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        if let field { try container.encode(field, forKey: .field) } else { try container.encodeNil(forKey: .field) }
    }
}
