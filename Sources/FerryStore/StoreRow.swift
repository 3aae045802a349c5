#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import GRDB
import PostgresNIO

/// A value both stores read from a row: `String`, `Double`, `Bool`, `Int`, `Int64` and their optionals. An optional
/// reads NULL as nil; any other type fails on NULL.
typealias StoreValue = DatabaseValueConvertible & PostgresDecodable & StatementColumnConvertible

/// A row of a query, as a store reads it: PostgreSQL's rows and GRDB's `Row` by column name, ``StatementColumns`` by
/// position (for a query that selects a column type's list, such as ``LinkColumn/list``). The models are decoded from
/// it once for both stores (StoreSchema.swift), so that a row means the same in either.
protocol StoreRow {
    /// The value of `column`, found by its name (after `prefix`) or by its position, as the row is read.
    func value<Value: StoreValue, Column: StoreColumn>(of column: Column, prefix: String) throws -> Value
}

/// A column of one of Ferry's tables (or of a join both stores select): its name in the schema; its raw value is its
/// position in the type's select list.
protocol StoreColumn: RawRepresentable<Int>, CaseIterable {
    /// The name in the schema.
    var columnName: String { get }
}

extension StoreColumn {
    /// The name of the column in a row that has `prefix` before each name.
    func columnName(prefix: String) -> String {
        prefix.isEmpty ? columnName : prefix + columnName
    }

    /// Every column, in order, comma-separated: the select list of a query read by position.
    static func selectList() -> String {
        allCases.map(\.columnName).joined(separator: ", ")
    }
}

/// A row read as the columns of one table: `row[.id]`.
struct TableRow<Column: StoreColumn, Row: StoreRow> {
    let row: Row
    /// Put before every name (a table joined under aliases, `w_id`…); for rows read by name.
    var prefix = ""

    /// The column's value (see ``StoreValue``).
    subscript<Value: StoreValue>(_ column: Column) -> Value {
        get throws { try row.value(of: column, prefix: prefix) }
    }
}

extension StoreRow {
    /// The row, read as the columns of `table`.
    func columns<Column: StoreColumn>(_ table: Column.Type, prefix: String = "") -> TableRow<Column, Self> {
        TableRow(row: self, prefix: prefix)
    }
}

extension PostgresRandomAccessRow: StoreRow {
    func value<Value: StoreValue, Column: StoreColumn>(of column: Column, prefix: String) throws -> Value {
        try self[column.columnName(prefix: prefix)].decode(Value.self)
    }
}

extension GRDB.Row: StoreRow {
    func value<Value: StoreValue, Column: StoreColumn>(of column: Column, prefix: String) throws -> Value {
        try decode(Value.self, forColumn: column.columnName(prefix: prefix))
    }
}

/// Read by position only: the query selects the column type's list, in order, and no prefix applies.
extension StatementColumns: StoreRow {
    func value<Value: StoreValue, Column: StoreColumn>(of column: Column, prefix: String) throws -> Value {
        try self[column.rawValue]
    }
}

/// A row the store cannot read back (a value outside what the schema allows).
struct StoreCorruption: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
#endif
