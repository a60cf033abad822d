import ArgumentParser
import UtensilControlProtocol
import UtensilCore

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List utensils, newest first.",
        discussion: """
            --search matches names case- and accent-insensitively ("loffel" finds "Löffel"). \
            --category, --added-by and --favorites narrow the list further; all filters combine with every \
            --sort. --sort name orders as a person expects: case and accents do not decide \
            ("éclair" sits with "Eclair"), ties fall back to the exact name. When there are more \
            utensils than --limit, the last line tells how to get the next page.

            Examples:
              utensilctl list
              utensilctl list --search spoon --sort name
              utensilctl list --category Knives --added-by alice
              utensilctl list --favorites
              utensilctl list --limit 50 --json | jq -r '.next'
            """)

    @Option(parsing: .unconditional, help: ArgumentHelp("Only utensils whose name contains this.", valueName: "text"))
    var search: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only utensils of this category (any letter case).", valueName: "name"))
    var category: String?

    @Option(name: .customLong("added-by"), parsing: .unconditional, help: ArgumentHelp("Only utensils this user added (a user name or numeric uid).", valueName: "user"))
    var addedBy: String?

    @Flag(help: "Only your favorites (see `utensilctl favorite`).")
    var favorites = false

    @Option(parsing: .unconditional, help: ArgumentHelp("The order: name, created (oldest first) or -created (newest first).", valueName: "order"))
    var sort: ListSort?

    @Option(help: ArgumentHelp("At most this many utensils.", valueName: "n"))
    var limit: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Continue after this cursor (from the previous page).", valueName: "cursor"))
    var after: String?

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
    }

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let client = try invocation.connect()
            let page = try client.send(
                .list(
                    search: search, sort: sort, limit: limit, after: after, category: category, addedBy: addedBy,
                    favorites: favorites))
            if invocation.json { return try JSONOutput.print(page) }
            if page.utensils.isEmpty {
                invocation.print(try emptyMessage(client))
                return
            }
            invocation.print(UtensilListView.table(page.utensils).render(style: invocation.style))
            if let next = page.next {
                invocation.print([
                    "", UtensilListView.nextPageHint(
                        cursor: next, search: search, category: category, addedBy: addedBy, favorites: favorites,
                        sort: sort?.rawValue, limit: limit),
                ])
            }
        }
    }

    /// An empty catalog tells how to add the first utensil; an empty search or page says so.
    private func emptyMessage(_ client: ControlClient) throws(ClientError) -> [String] {
        if search != nil || category != nil || addedBy != nil { return ["No utensil matches."] }
        if favorites { return ["You have no favorites yet; mark one with `utensilctl favorite ID`."] }
        if after != nil { return ["No more utensils."] }
        let inbox = try? client.send(.status).inbox
        return UtensilListView.emptyCatalog(inbox: inbox)
    }
}

extension ListSort: ExpressibleByArgument {}
