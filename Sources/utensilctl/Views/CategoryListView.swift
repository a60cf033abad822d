import UtensilControlProtocol

/// `utensilctl categories` for people.
enum CategoryListView {
    static func render(_ categories: [CategoryInfo], style: Style) -> [String] {
        guard !categories.isEmpty else {
            return ["No categories yet. Drop photos into a folder of the inbox (for example inbox/Knives/) to make one."]
        }
        var table = Table(columns: [.init(title: "CATEGORY"), .init(title: "UTENSILS", alignsRight: true)])
        table.rows = categories.map { [$0.name, "\($0.count)"] }
        return table.render(style: style)
    }
}
