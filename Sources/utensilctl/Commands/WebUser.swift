import ArgumentParser
import Foundation
import Glibc
import UtensilWebUsers

/// `utensilctl web-user add|remove|list`: manages the web gallery's users file directly
/// (not through the daemon, which reads the file at each sign-in): root edits a file under
/// /etc, and the daemon needs no way to change its own access list.
struct WebUser: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-user",
        abstract: "Manage who may change utensils through the web gallery.",
        discussion: """
            Edits the users file (one name:bcrypt-hash a line) that utensild reads at each \
            sign-in, so changes apply at once without a restart; removing a user signs them out. \
            The file is --users-file, else $UTENSILD_WEB_USERS_FILE, else /etc/utensild/web-users \
            (utensild's web_users_file); editing it needs write access to it (usually root).

            Examples:
              sudo utensilctl web-user add alice          (asks for the password twice, without echo)
              echo "$PASSWORD" | sudo utensilctl web-user add alice
              sudo utensilctl web-user remove alice
              utensilctl web-user list
            """,
        subcommands: [Add.self, Remove.self, ListUsers.self])

    struct FileOption: ParsableArguments {
        @Option(name: .customLong("users-file"), help: ArgumentHelp("The users file.", valueName: "path"))
        var usersFile: String?

        var path: String {
            usersFile ?? ProcessInfo.processInfo.environment["UTENSILD_WEB_USERS_FILE"] ?? "/etc/utensild/web-users"
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user, or set a new password for one (read without echo from a terminal, else one line of stdin).")

        @Argument(help: ArgumentHelp("The user's name.", valueName: "name")) var name: String
        @OptionGroup var file: FileOption

        func run() throws {
            if let problem = WebUsersFile.problem(withName: name) { fail(problem, status: ExitStatus.usage) }
            let password = readPassword()
            guard password.count >= 8 else { fail("A web password needs at least 8 characters; choose a longer one.") }
            var users = load(file.path)
            let existed = users.entry(named: name) != nil
            users.set(name, password: password)
            save(users, file.path)
            StandardStreams.out(existed ? "Changed the password of \(name)." : "Added \(name); they can sign in at /login.")
        }

        private func readPassword() -> String {
            guard isatty(STDIN_FILENO) == 1 else {
                return (readLine(strippingNewline: true) ?? "")
            }
            let first = prompt("Password for \(name): ")
            let second = prompt("Again: ")
            guard first == second else { fail("The two passwords differ; run the command again.") }
            return first
        }

        private func prompt(_ text: String) -> String {
            var saved = termios()
            tcgetattr(STDIN_FILENO, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
            defer {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
            FileHandle.standardError.write(Data(text.utf8))
            return readLine(strippingNewline: true) ?? ""
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user; their sessions end at their next request.")

        @Argument(help: ArgumentHelp("The user's name.", valueName: "name")) var name: String
        @OptionGroup var file: FileOption

        func run() throws {
            var users = load(file.path)
            guard users.remove(name) else { fail("There is no web user \(name); `utensilctl web-user list` shows them.") }
            save(users, file.path)
            StandardStreams.out("Removed \(name).")
        }
    }

    struct ListUsers: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the users' names.")

        @OptionGroup var file: FileOption

        func run() throws {
            for user in load(file.path).users { StandardStreams.out(user.name) }
        }
    }
}

private func load(_ path: String) -> WebUsersFile {
    do {
        return try WebUsersFile.read(path)
    } catch {
        fail("cannot read \(path) (\(error.localizedDescription)); run as root, or pass --users-file PATH.",
             status: errno == EACCES ? ExitStatus.permissionDenied : ExitStatus.failure)
    }
}

private func save(_ users: WebUsersFile, _ path: String) {
    do {
        try users.write(to: path)
    } catch {
        fail(error.description, status: error.isPermissionDenied ? ExitStatus.permissionDenied : ExitStatus.failure)
    }
}

private func fail(_ message: String, status: Int32 = ExitStatus.failure) -> Never {
    StandardStreams.error("utensilctl: " + message)
    exit(status)
}
