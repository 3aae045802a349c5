import FerryAPI

/// Bad input, named by field: becomes a 4xx with `{"error": {"code", "message", "field"}}`.
package struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code, such as ``APIErrorCode/invalidField``; its HTTP status is the answer's.
    package var code: APIErrorCode
    /// A sentence for people.
    package var message: String
    /// The field at fault (dotted path), when there is one.
    package var field: String?

    /// Creates a validation error.
    package init(code: APIErrorCode = .invalidField, field: String?, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    package var description: String { field.map { "\($0): \(message)" } ?? message }
}
