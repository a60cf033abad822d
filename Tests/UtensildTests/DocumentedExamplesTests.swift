import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Every `utensilctl …` example in the README's and the guides' code blocks, run for real
/// against a real daemon, in the order they are written, with what a reader fills in: `ID` is
/// a utensil's id, `/var/lib/utensild` the test's state folder, `$(date +%F)` a date. Each
/// exits 0. The examples that cannot run as written are listed in ``notRunAsWritten`` with
/// why and what the test does instead; a new example that is neither runnable nor listed fails.
@Suite("the documented utensilctl examples, run", .serialized, .tags(.spawnsProcesses))
struct DocumentedExamplesTests {
    /// The examples that cannot run as written (by their command words, as
    /// `RepositoryDocuments.shellWords` gives them, without `utensilctl`), and why; each has its
    /// own way of running in ``runAdjusted(_:_:in:)``.
    static let notRunAsWritten: [String: String] = [
        "events --json":
            "follows until interrupted: run with a deadline, it must print a line for a drop, then it is ended by pid",
        "web-user add alice":
            "writes /etc/utensild/web-users and asks for a password: run with UTENSILD_WEB_USERS_FILE in the test's folder and the password on stdin",
        "backup --json /var/lib/utensild/backups/nightly":
            "pipes into `jq .files`: run without the pipe, its JSON must hold the `files` jq picks",
        "show Crème brûlée torch --preview":
            "draws only on a terminal: run on a pseudo-terminal, without NO_COLOR, it must draw in 24-bit colour",
        "duplicates --not-a-copy ID1 ID2":
            "names two utensils: run with the ids of the torch and the chef knife, it must exit 0 and list no pair",
    ]

    static let password = "correct horse battery"

    /// What the examples refer to: a daemon with `Crème brûlée torch`, the categories `Knifes`
    /// and `Misc`, and the rejected `Broken.jpg` and `Caf\xE9.jpg` (not UTF-8).
    struct Scene {
        let world: TestWorld
        let daemon: RunningDaemon
        let socket: String
        /// The id of `Crème brûlée torch`, what `ID` stands for.
        let id: String

        var environment: [String: String] {
            ["UTENSIL_SOCKET": socket, "UTENSILD_WEB_USERS_FILE": world.root.appendingPathComponent("web-users").path]
        }

        init() throws {
            world = try TestWorld()
            let folder = world.root.path
            let photos = try TestImages.make([
                TestImages.jpeg(folder + "/torch", width: 800, height: 600, seed: 11),
                TestImages.jpeg(folder + "/knife", seed: 12),
                TestImages.png(folder + "/ladle", seed: 13),
            ])
            try world.drop("Crème brûlée torch.jpg", photos[0])
            try world.drop("Knifes/Chef knife.jpg", photos[1])
            try world.drop("Misc/Ladle.png", photos[2])
            try world.drop("Broken.jpg", Data("junk".utf8))
            try Self.dropJunk(named: Array("Caf".utf8) + [0xE9] + Array(".jpg".utf8), into: world)
            // `install -d … /var/lib/utensild/backups   # once`, as docs/OPERATIONS.md has it.
            try FileManager.default.createDirectory(at: world.state.appendingPathComponent("backups"), withIntermediateDirectories: true)
            daemon = try RunningDaemon(world: world)
            socket = world.root.appendingPathComponent("control.sock").path
            try daemon.waitForUtensils(3)
            let socket = socket
            try daemon.waitUntil("the two rejections") {
                (try? Utensilctl.run(["status", "--json"], socket: socket).json?["rejected"] as? Int) == 2
            }
            let shown = try Utensilctl.run(["show", "Crème brûlée torch", "--json"], socket: socket)
            guard let id = shown.json?["id"] as? String else { throw TestFailure("show gave \(shown.status): \(shown.errors)") }
            self.id = id
        }

        /// Writes junk into the inbox under a name of raw bytes (which need not be UTF-8).
        static func dropJunk(named name: [UInt8], into world: TestWorld) throws {
            let path = Array(world.inbox.path.utf8) + [UInt8(ascii: "/")] + name + [0]
            let descriptor = path.withUnsafeBufferPointer {
                open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT | O_EXCL, 0o644)
            }
            guard descriptor >= 0 else { throw TestFailure("cannot create \(String(decoding: name, as: UTF8.self)) in the inbox: errno \(errno)") }
            defer { close(descriptor) }
            guard write(descriptor, "junk", 4) == 4 else { throw TestFailure("cannot write junk: errno \(errno)") }
        }
    }

    /// One example as the test runs it.
    struct Example {
        var document: String
        /// The line as the document has it, from `utensilctl` on.
        var line: String
        /// Its command words, without `utensilctl`, before anything is filled in: the key of
        /// ``notRunAsWritten``.
        var key: String
        /// Its command words with what a reader fills in, without `utensilctl`.
        var arguments: [String]
    }

    /// Every example of the README and the guides, in their order, filled in; records an issue
    /// for each that the test can neither fill in nor finds listed.
    static func examples(scene: Scene) -> [Example] {
        var examples: [Example] = []
        var dates = 0
        for document in RepositoryDocuments.guides {
            for line in RepositoryDocuments.exampleLines(document) {
                let key = RepositoryDocuments.shellWords(line).dropFirst().joined(separator: " ")
                // Each backup needs a new folder: the second `$(date +%F)` is the next day's.
                let date = Date().addingTimeInterval(Double(dates) * 86_400)
                if line.contains("$(date +%F)") { dates += 1 }
                let filled = line
                    .replacingOccurrences(of: "$(date +%F)", with: date.formatted(.iso8601.year().month().day()))
                    .replacingOccurrences(of: "/var/lib/utensild", with: scene.world.state.path)
                let arguments = RepositoryDocuments.shellWords(filled).dropFirst().map { $0 == "ID" ? scene.id : $0 }
                let example = Example(document: document, line: line, key: key, arguments: arguments)
                if notRunAsWritten[key] == nil {
                    let unknown = arguments.filter { $0 == "SUBSTITUTED" || $0.wholeMatch(of: /[A-Z][A-Z0-9_]+/) != nil }
                        + arguments.filter { $0.hasPrefix("/etc/") || $0.hasPrefix("/var/") || $0.hasPrefix("/run/") }
                    let continuation = RepositoryDocuments.shellContinuation(filled)
                    guard unknown.isEmpty, continuation == nil else {
                        Issue.record("""
                            \(document): `\(line)` cannot run as written (\(unknown.isEmpty ? "a `\(continuation!)` follows it" : "it has \(unknown.joined(separator: ", "))")): \
                            teach DocumentedExamplesTests.examples(scene:) to fill it in, or add it to DocumentedExamplesTests.notRunAsWritten with why and run it in runAdjusted
                            """)
                        continue
                    }
                }
                examples.append(example)
            }
        }
        return examples
    }

    @Test func everyExampleRunsAgainstTheDaemon() throws {
        let scene = try Scene()
        defer { scene.world.remove() }
        let examples = Self.examples(scene: scene)
        for example in examples {
            if Self.notRunAsWritten[example.key] != nil {
                try Self.runAdjusted(example, scene)
                continue
            }
            let run = try Utensilctl.run(example.arguments, environment: scene.environment)
            #expect(
                run.status == 0,
                """
                \(example.document): `\(example.line)` exited \(run.status) (\(run.errors.trimmingCharacters(in: .whitespacesAndNewlines))): \
                correct the example, or if it cannot run in a test, add it to DocumentedExamplesTests.notRunAsWritten with why
                """)
            if let claim = Self.claims[example.key] {
                #expect(claim.holds(run.output), "\(example.document): `\(example.line)` printed no \(claim.what):\n\(run.output)")
            }
        }
        #expect(examples.count > 20, "the README and the guides hold only \(examples.count) utensilctl examples")
        #expect(try scene.daemon.terminate() == 0)
    }

    /// What an example's comment promises that its output shows, by its key.
    static let claims: [String: (what: String, holds: @Sendable (String) -> Bool)] = [
        "list --search creme": ("\"Crème brûlée torch\"", { $0.contains("Crème brûlée torch") }),
        "categories": ("Knifes and Misc", { $0.contains("Knifes") && $0.contains("Misc") }),
        "rejected": ("Broken.jpg and Caf\\xE9.jpg", { $0.contains("Broken.jpg") && $0.contains(#"Caf\xE9.jpg"#) }),
        "trash": ("\"Pastry torch\"", { $0.contains("Pastry torch") }),
    ]

    /// Runs an example of ``notRunAsWritten`` the way its entry says.
    static func runAdjusted(_ example: Example, _ scene: Scene) throws {
        switch example.key {
        case "events --json":
            let line = try firstLine(following: example.arguments, scene)
            let event = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            #expect(event?["kind"] is String, "\(example.document): `\(example.line)` printed \(line), not an event")
        case "web-user add alice":
            let run = try Utensilctl.run(example.arguments, environment: scene.environment, input: Data((password + "\n").utf8))
            #expect(run.status == 0, "\(example.document): `\(example.line)` exited \(run.status): \(run.errors)")
            let users = (try? String(contentsOfFile: scene.environment["UTENSILD_WEB_USERS_FILE"]!, encoding: .utf8)) ?? ""
            #expect(users.hasPrefix("alice:"), "\(example.document): `\(example.line)` wrote no user alice")
        case "backup --json /var/lib/utensild/backups/nightly":
            let run = try Utensilctl.run(example.arguments, environment: scene.environment)
            #expect(run.status == 0, "\(example.document): `\(example.line)` exited \(run.status): \(run.errors)")
            #expect(run.json?["files"] is Int, "\(example.document): `\(example.line)` gave no `files` for jq:\n\(run.output)")
        case "show Crème brûlée torch --preview":
            let (status, output) = try onTerminal(example.arguments, scene)
            #expect(status == 0, "\(example.document): `\(example.line)` exited \(status):\n\(output)")
            #expect(
                output.contains("\u{1B}[38;2;") && output.contains("Crème brûlée torch"),
                "\(example.document): `\(example.line)` drew no 24-bit colour on a terminal:\n\(output)")
        case "duplicates --not-a-copy ID1 ID2":
            let knife = try Utensilctl.run(["show", "Chef knife", "--json"], environment: scene.environment).json?["id"] as? String
            let run = try Utensilctl.run(
                ["duplicates", "--not-a-copy", scene.id, try #require(knife), "--json"], environment: scene.environment)
            #expect(run.status == 0, "\(example.document): `\(example.line)` exited \(run.status): \(run.errors)")
            #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(example.document): `\(example.line)` listed \(run.output)")
        default:
            Issue.record("DocumentedExamplesTests.notRunAsWritten lists `\(example.key)`, which runAdjusted does not run: add its case")
        }
    }

    /// Starts `utensilctl ARGUMENTS…`, drops junk into the inbox (again every second, in case
    /// the first came before it listened) until it prints a line, ends it by pid and returns
    /// that line.
    static func firstLine(following arguments: [String], _ scene: Scene) throws -> String {
        let process = Process()
        process.executableURL = try UtensildProcess.built("utensilctl")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(scene.environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let printed = Printed()
        output.fileHandleForReading.readabilityHandler = { handle in printed.append(handle.availableData) }
        try process.run()
        defer {
            // SIGTERM, as a person's `kill` would: the test's threads block it and its children
            // inherit that mask, which utensilctl unblocks. SIGKILL only after a deadline.
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                let ended = Date().addingTimeInterval(30)
                while process.isRunning && Date() < ended { usleep(20_000) }  // Polling with a deadline.
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    Issue.record("utensilctl \(arguments.joined(separator: " ")) did not end on SIGTERM within 30 s")
                }
            }
            process.waitUntilExit()
            output.fileHandleForReading.readabilityHandler = nil
        }
        var drops = 0
        var lastDrop = Date.distantPast
        let deadline = Date().addingTimeInterval(60)
        while true {
            if let line = printed.firstLine { return line }
            guard process.isRunning else { throw TestFailure("utensilctl \(arguments.joined(separator: " ")) ended (\(process.terminationStatus)) before printing a line") }
            guard Date() < deadline else { throw TestFailure("utensilctl \(arguments.joined(separator: " ")) printed no line in 60 s after \(drops) drops") }
            if Date().timeIntervalSince(lastDrop) >= 1 {
                drops += 1
                try Scene.dropJunk(named: Array("Followed \(drops).jpg".utf8), into: scene.world)
                lastDrop = Date()
            }
            usleep(20_000)  // Polling the follower's output with a deadline.
        }
    }

    /// Opens a pseudo-terminal of 40 rows and 120 columns, runs the program of `sys.argv[1:]`
    /// with its output on it, copies what it printed to standard output and exits as it did.
    static let terminalScript = #"""
    import fcntl, os, struct, subprocess, sys, termios
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        sys.stdout.buffer.write(chunk)
    sys.exit(child.wait())
    """#

    /// Runs `utensilctl ARGUMENTS…` with its output on a pseudo-terminal (through python3) and
    /// colour allowed; returns its exit status and what it printed.
    static func onTerminal(_ arguments: [String], _ scene: Scene) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", terminalScript, try UtensildProcess.built("utensilctl").path] + arguments
        var environment = ProcessInfo.processInfo.environment.merging(scene.environment) { $1 }
        environment["NO_COLOR"] = nil
        environment["TERM"] = "xterm-256color"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        let printed = Printed()
        output.fileHandleForReading.readabilityHandler = { handle in printed.append(handle.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning {
            guard Date() < deadline else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw TestFailure("utensilctl \(arguments.joined(separator: " ")) on a terminal did not end within 60 s")
            }
            usleep(20_000)  // Polling the child with a deadline.
        }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        printed.append(output.fileHandleForReading.readDataToEndOfFile())
        return (process.terminationStatus, printed.text)
    }

    /// What a child printed so far, appended from a pipe's handler.
    final class Printed: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()

        func append(_ more: Data) { lock.withLock { data.append(more) } }

        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

        /// The first whole line, once there is one.
        var firstLine: String? {
            lock.withLock {
                guard let end = data.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                return String(decoding: data[..<end], as: UTF8.self)
            }
        }
    }

    /// An entry of ``notRunAsWritten`` that no document has any more is stale.
    @Test func everyListedExampleIsInTheDocuments() {
        let keys = Set(RepositoryDocuments.guides.flatMap(RepositoryDocuments.exampleLines).map {
            RepositoryDocuments.shellWords($0).dropFirst().joined(separator: " ")
        })
        for key in Self.notRunAsWritten.keys.sorted() {
            #expect(keys.contains(key), "DocumentedExamplesTests.notRunAsWritten lists `utensilctl \(key)`, which no document shows any more: remove it")
        }
    }
}
