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
        try FavoriteMark.send(.favorite(id), globals, outer: root.globals, saying: "is one of your favorites")
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
        try FavoriteMark.send(.unfavorite(id), globals, outer: root.globals, saying: "is not one of your favorites")
    }
}

/// What `favorite` and `unfavorite` share: send the change, print the utensil (`--json`) or
/// one sentence about it.
enum FavoriteMark {
    static func send(
        _ call: ControlCall<UtensilInfo>, _ globals: GlobalOptions, outer: GlobalOptions, saying state: String
    ) throws {
        try Invocation.answer(call, globals, outer: outer) { utensil, _ in
            ["\"\(TerminalText.escaped(utensil.name))\" (\(utensil.id)) \(state)."]
        }
    }
}
