import ArgumentParser
import UtensilControlProtocol

struct Rethumb: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make thumbnails again from the originals, in the background.",
        discussion: """
            After thumbnail_size or thumbnail_quality changed (and the daemon restarted or \
            reloaded), or when `utensilctl check` finds thumbnails missing. The daemon makes \
            them on its ingest workers while no dropped photo waits; each replaces the old one \
            in one step. The command returns at once; `utensilctl status` and \
            `utensilctl events` show how far it is, and the journal has a summary at the end.

            Examples:
              utensilctl rethumb --all
              utensilctl rethumb --missing
              utensilctl rethumb 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F
            """)

    @Flag(help: "Every utensil (the trash too).")
    var all = false

    @Flag(help: "Only utensils missing a thumbnail, a preview or a fingerprint.")
    var missing = false

    @Argument(help: ArgumentHelp("Utensil ids (see `utensilctl list`).", valueName: "id"))
    var ids: [String] = []

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func validate() throws {
        let chosen = (all ? 1 : 0) + (missing ? 1 : 0) + (ids.isEmpty ? 0 : 1)
        guard chosen == 1 else {
            throw ValidationError("Give exactly one of --all, --missing or utensil ids.")
        }
    }

    func run() throws {
        let selection: RethumbSelection = all ? .all : missing ? .missing : .utensils(ids)
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let report = try invocation.connect().send(.rethumb(selection))
            if invocation.json { return try JSONOutput.print(report) }
            invocation.print([
                "Making \(report.queued) thumbnails again in the background; `utensilctl status` shows how far it is."
            ])
        }
    }
}
