#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import GRDB
import GRDBSQLite

/// The row a statement stands on, read by position straight from SQLite.
///
/// GRDB's `Row` cursor makes a dictionary of the statement's lowercased column names each time a query starts (two
/// dozen strings for a link), and `Row.fetchAll` / `Row.fetchOne` then copy every row into values that decode each
/// column through a generic lookup. On the edge's cache misses and a match's candidates, that was more work than
/// SQLite's own search. Reading by position needs neither.
struct StatementColumns {
    fileprivate let statement: SQLiteStatement

    /// The value of the column at `index` (0-based): `String?` reads NULL as nil; `String` throws on NULL.
    subscript<Value: StatementColumnConvertible>(_ index: Int) -> Value {
        get throws {
            guard let value = Value.fromStatement(statement, atUncheckedIndex: CInt(index)) else {
                throw DatabaseError(message: "column \(index) does not hold a \(Value.self)")
            }
            return value
        }
    }
}

/// Steps a statement, handing each row to `decode` while the statement stands on it.
private final class ColumnsCursor<Element>: DatabaseCursor {
    let _statement: Statement
    var _isDone = false
    private let decode: (StatementColumns) throws -> Element

    init(statement: Statement, decode: @escaping (StatementColumns) throws -> Element) {
        _statement = statement
        self.decode = decode
    }

    func _element(sqliteStatement: SQLiteStatement) throws -> Element {
        try decode(StatementColumns(statement: sqliteStatement))
    }
}

extension Statement {
    /// The rows the statement yields for `arguments`, each decoded by position (see `StatementColumns`).
    func decodedRows<T>(arguments: StatementArguments, _ decode: (StatementColumns) throws -> T) throws -> [T] {
        try setArguments(arguments)
        // Reset whatever happens, so that the connection holds no read snapshot after the query.
        defer { sqlite3_reset(sqliteStatement) }
        return try withoutActuallyEscaping(decode) { decode in
            let cursor = ColumnsCursor(statement: self, decode: decode)
            var rows: [T] = []
            while let row = try cursor.next() { rows.append(row) }
            return rows
        }
    }

    /// The first row the statement yields for `arguments`, decoded by position, or nil.
    func decodedRow<T>(arguments: StatementArguments, _ decode: (StatementColumns) throws -> T) throws -> T? {
        try setArguments(arguments)
        defer { sqlite3_reset(sqliteStatement) }
        return try withoutActuallyEscaping(decode) { decode in
            try ColumnsCursor(statement: self, decode: decode).next()
        }
    }
}
#endif
