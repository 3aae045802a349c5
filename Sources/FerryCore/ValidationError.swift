/// Bad input, named by field: becomes a 4xx with `{"error": {"code", "message", "field"}}`.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code, such as `invalid_field`.
    public var code: String
    /// A sentence for people.
    public var message: String
    /// The field at fault (dotted path), when there is one.
    public var field: String?

    /// Creates a validation error.
    public init(code: String = "invalid_field", field: String?, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }
}
