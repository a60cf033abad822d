import ArgumentParser
import UtensilControlProtocol

/// `favorite ID`: marks a utensil as a favorite of the user running utensilctl.
struct Favorite: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark a utensil as one of your favorites.",
        discussion: """
            Favorites belong to a user name: yours as the daemon sees it on the socket, which \
            is also the web gallery's user of the same name. `utensilctl list --favorites` \
            lists them.

            Example:
              utensilctl favorite 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F
            """)

    @Argument(help: ArgumentHelp("The utensil's id.", valueName: "id"))
    var id: String

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let marked = try invocation.connect().send(.favorite(id))
            if invocation.json { return try JSONOutput.print(marked) }
            invocation.print(["\"\(TerminalText.escaped(marked.name))\" (\(marked.id)) is one of your favorites."])
        }
    }
}

/// `unfavorite ID`: the utensil is no longer a favorite of the user running utensilctl.
struct Unfavorite: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take a utensil off your favorites.",
        discussion: """
            Taking off a utensil that is not a favorite changes nothing and is no error.

            Example:
              utensilctl unfavorite 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F
            """)

    @Argument(help: ArgumentHelp("The utensil's id.", valueName: "id"))
    var id: String

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let unmarked = try invocation.connect().send(.unfavorite(id))
            if invocation.json { return try JSONOutput.print(unmarked) }
            invocation.print(["\"\(TerminalText.escaped(unmarked.name))\" (\(unmarked.id)) is not one of your favorites."])
        }
    }
}
