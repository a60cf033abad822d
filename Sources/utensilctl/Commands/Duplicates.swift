import ArgumentParser
import UtensilControlProtocol

/// `duplicates`: the pairs of utensils whose photos look alike; `--not-a-copy ID ID` marks a
/// pair so that it is not listed again.
struct Duplicates: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the utensils whose photos look like copies of others.",
        discussion: """
            A photo dropped while near_duplicates is "warn" that looks like a copy of an \
            existing utensil's (re-saved, resized, converted, rotated or slightly cropped) is \
            ingested and listed here beside the utensil it resembles, newest first, with how \
            many of the 64 bits of their fingerprints differ (at most 12). A pair is left out \
            while either utensil is in the trash. --not-a-copy marks two utensils (by id or \
            name) as different photos: the pair is not listed again, and neither is shown as a \
            copy of the other.

            Examples:
              utensilctl duplicates
              utensilctl duplicates --not-a-copy "Whisk 07" "Whisk 12"
              utensilctl duplicates --json | jq -r '.[] | .copy.id'
            """)

    @Option(
        name: .customLong("not-a-copy"), parsing: .upToNextOption,
        help: ArgumentHelp("Mark these two utensils (by id or name) as not a copy of each other.", valueName: "id-or-name"))
    var notACopy: [String] = []

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func validate() throws {
        guard notACopy.isEmpty || notACopy.count == 2 else {
            throw ValidationError("--not-a-copy takes two utensils (ids or names), got \(notACopy.count).")
        }
    }

    func run() throws {
        let call: ControlCall<[DuplicatePairInfo]> = notACopy.count == 2 ? .notACopy(notACopy[0], notACopy[1]) : .duplicates
        try Invocation.answer(call, globals, outer: root.globals) { pairs, invocation in
            DuplicatesView.render(pairs, style: invocation.style)
        }
    }
}
