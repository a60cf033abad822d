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
            while either utensil is in the trash. --not-a-copy marks two utensils as different \
            photos: the pair is not listed again.

            Examples:
              utensilctl duplicates
              utensilctl duplicates --not-a-copy 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F 2C3D4E5F-6A7B-4C8D-9E0F-1A2B3C4D5E6F
              utensilctl duplicates --json | jq -r '.[] | .copy.id'
            """)

    @Option(
        name: .customLong("not-a-copy"), parsing: .upToNextOption,
        help: ArgumentHelp("Mark these two utensils (by id) as not a copy of each other.", valueName: "id"))
    var notACopy: [String] = []

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func validate() throws {
        guard notACopy.isEmpty || notACopy.count == 2 else {
            throw ValidationError("--not-a-copy takes two utensil ids, got \(notACopy.count).")
        }
    }

    func run() throws {
        let call: ControlCall<[DuplicatePairInfo]> = notACopy.count == 2 ? .notACopy(notACopy[0], notACopy[1]) : .duplicates
        try Invocation.answer(call, globals, outer: root.globals) { pairs, invocation in
            DuplicatesView.render(pairs, style: invocation.style)
        }
    }
}
