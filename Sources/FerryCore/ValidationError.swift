import FerryAPI

/// Bad input, named by field: becomes a 4xx with `{"error": {"code", "message", "field"}}`.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code, such as ``APIErrorCode/invalidField``; its HTTP status is the answer's.
    public var code: APIErrorCode
    /// A sentence for people.
    public var message: String
    /// The field at fault (dotted path), when there is one.
    public var field: String?

    /// Creates a validation error.
    public init(code: APIErrorCode = .invalidField, field: String?, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }
}
