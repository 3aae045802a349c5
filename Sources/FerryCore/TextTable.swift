/// A plain-text table: a header, a rule and rows, in columns as wide as their widest cell.
package struct TextTable: Sendable {
    package var header: [String]
    package var rows: [[String]] = []
    /// The columns aligned left (text); the others are right-aligned (figures).
    package var leftAligned: Set<Int> = [0]

    /// An empty table with these columns.
    package init(header: [String], rows: [[String]] = [], leftAligned: Set<Int> = [0]) {
        self.header = header
        self.rows = rows
        self.leftAligned = leftAligned
    }

    /// The table's lines, each starting with `indent`, without trailing spaces.
    package func render(indent: String = "  ") -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            var text = indent + cells.prefix(widths.count).enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return leftAligned.contains(i) ? cell + pad : pad + cell
            }.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        let rule = indent + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}
