import ArgumentParser
import UtensilControlProtocol

/// The root command: `utensilctl [--socket PATH] [--json] COMMAND …`.
@main
struct Utensilctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "utensilctl",
        abstract: "Look after the utensil catalog of a running utensild.",
        discussion: """
            utensilctl talks to utensild over its control socket only. Photos are added by \
            dropping them into the daemon's inbox folder (see `utensilctl status`).

            Exit codes: 0 success, 1 the command failed, 64 usage error, 69 the daemon is not \
            reachable, 77 permission denied.

            Examples:
              utensilctl status
              utensilctl list --search spoon
              utensilctl --json list | jq -r '.utensils[].name'
            """,
        version: UtensildVersion.current,
        subcommands: [
            Status.self, Hosts.self, List.self, Show.self, Duplicates.self, Delete.self, Rename.self, Rejected.self, Retry.self,
            Check.self, Events.self, Categories.self, SetCategory.self,
            Trash.self, Restore.self, Rethumb.self, Backup.self, WebUser.self, Favorite.self, Unfavorite.self, CategoryCommand.self,
        ])

    @OptionGroup var globals: GlobalOptions

    /// Unblocks the signals that end it before parsing the command line.
    static func main() {
        TerminationSignals.unblock()
        main(nil)
    }

    /// No subcommand is a usage error: the help goes to stderr, and the exit code is 64.
    func run() throws {
        StandardStreams.error(Self.helpMessage())
        throw ExitCode(ExitStatus.usage)
    }
}
