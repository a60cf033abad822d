/// A table for people: a header and rows, columns aligned by display width, two spaces
/// between columns, no trailing spaces. Cells are escaped for the terminal here.
struct Table {
    struct Column {
        var title: String
        var alignsRight = false
        /// Longer cells are cut with "…".
        var maximumWidth: Int?
    }

    var columns: [Column]
    var rows: [[String]] = []

    func render(style: Style = .plain) -> [String] {
        let cells = rows.map { row in
            columns.indices.map { index in
                let text = TerminalText.escaped(index < row.count ? row[index] : "")
                return columns[index].maximumWidth.map { DisplayWidth.truncated(text, to: $0) } ?? text
            }
        }
        let widths = columns.indices.map { index in
            cells.reduce(DisplayWidth.of(columns[index].title)) { max($0, DisplayWidth.of($1[index])) }
        }
        let header = line(columns.map(\.title), widths: widths)
        return [style.bold(header)] + cells.map { line($0, widths: widths) }
    }

    private func line(_ texts: [String], widths: [Int]) -> String {
        var parts: [String] = []
        for (index, text) in texts.enumerated() {
            let isLast = index == texts.count - 1
            if columns[index].alignsRight {
                parts.append(DisplayWidth.padded(text, to: widths[index], leading: true))
            } else {
                parts.append(isLast ? text : DisplayWidth.padded(text, to: widths[index]))
            }
        }
        let joined = parts.joined(separator: "  ")
        return String(joined.reversed().drop { $0 == " " }.reversed())
    }
}

/// Labels and values, one pair per line, the values aligned: `label  value`.
struct KeyValueList {
    var pairs: [(label: String, value: String)] = []

    mutating func add(_ label: String, _ value: String) {
        pairs.append((label, value))
    }

    func render(style: Style = .plain, indent: String = "") -> [String] {
        let width = pairs.map { DisplayWidth.of($0.label) }.max() ?? 0
        return pairs.map { pair in
            indent + style.dim(DisplayWidth.padded(pair.label, to: width)) + "  " + TerminalText.escaped(pair.value)
        }
    }
}
