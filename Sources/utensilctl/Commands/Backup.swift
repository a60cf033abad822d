import ArgumentParser
import Foundation
import Glibc
import UtensilControlProtocol

struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a consistent copy of the catalog and every photo into a new folder, while utensild runs.",
        discussion: """
            The daemon writes the backup, as its own user, into DEST, a folder that must not \
            exist yet: utensils.sqlite (the catalog as of one instant), originals/ and \
            thumbnails/ (exactly that catalog's files: hard links where DEST is on the state \
            folder's file system, else copies) and backup.json (counts and a SHA-256 of every \
            file), written last. Drops go on being ingested meanwhile. DEST is private to the \
            daemon's user (mode 0700); needs root or that user. On a terminal the progress is \
            shown; restore with `utensild restore DEST` (see utensild(8)).

            Examples:
              sudo utensilctl backup /var/lib/utensild/backups/$(date +%F)
              sudo utensilctl backup --json /var/lib/utensild/backups/nightly | jq .files
            """)

    @Argument(help: ArgumentHelp("The new backup folder (it must not exist yet).", valueName: "dest"))
    var destination: String

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func validate() throws {
        guard !destination.isEmpty else { throw ValidationError("Give the new backup folder.") }
    }

    func run() throws {
        let path = Self.absolute(destination)
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            var status = stat()
            if lstat(path, &status) == 0 {
                throw .failed(ControlError(
                    .badRequest, "\(path) exists already; a backup goes into a new folder, so name one that does not exist yet."))
            }
            var parent = stat()
            let seen = stat(Self.parent(of: path), &parent) == 0
            let request = BackupDestination(
                path: path, parentDevice: seen ? UInt64(parent.st_dev) : nil, parentInode: seen ? UInt64(parent.st_ino) : nil)
            let client = try invocation.connect(replyTimeoutSeconds: ControlClient.slowReplyTimeoutSeconds)
            let showProgress = invocation.terminal.isTTY && !invocation.json
            let summary = try client.backup(request) { line in
                guard showProgress else { return }
                Self.show(BackupView.progress(line))
            }
            if showProgress { Self.write("\n") }
            if invocation.json { return try JSONOutput.print(summary) }
            invocation.print(BackupView.render(summary))
        }
    }

    /// DEST against the working folder, without trailing slashes (links are the daemon's to resolve).
    static func absolute(_ path: String) -> String {
        var result = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        while result.count > 1 && result.hasSuffix("/") { result.removeLast() }
        return result
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// One progress line over the previous one (`\r`, cleared to the end).
    private static func show(_ text: String) {
        write("\r" + text + "\u{1B}[K")
    }

    private static func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress!, $0.count) }
    }
}
