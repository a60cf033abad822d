import ArgumentParser
import UtensilControlProtocol

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one utensil: all fields and both file paths.",
        discussion: """
            With --preview, the thumbnail is drawn in the terminal (24-bit colour; not when \
            NO_COLOR is set or the output is not a terminal).

            Examples:
              utensilctl show Spoon
              utensilctl show 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F --preview
              utensilctl show Spoon --json | jq -r .original
            """)

    @Argument(help: ArgumentHelp("The utensil's id or name.", valueName: "id-or-name"))
    var target: String

    @Flag(help: "Draw the thumbnail in the terminal.")
    var preview = false

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let utensil = try invocation.connect().send(.show(target, preview: preview))
            if invocation.json { return try JSONOutput.print(utensil) }
            invocation.print(UtensilView.render(utensil, style: invocation.style))
            guard preview else { return }
            let (lines, note) = UtensilView.preview(utensil, terminal: invocation.terminal)
            if !lines.isEmpty { invocation.print([""] + lines) }
            if let note { StandardStreams.error("utensilctl: " + note) }
        }
    }
}
