import Foundation
import Glibc
import Synchronization
import Testing
import UtensilCore
@testable import UtensilWatch

func bytes(_ path: String) -> [UInt8] { Array(path.utf8) }

/// The skip rule the daemon uses, near enough: dot-folders and a few well-known names.
let skipRule: @Sendable ([UInt8]) -> Bool = { name in
    name.first == UInt8(ascii: ".") || name == bytes("@eaDir") || name == bytes("__MACOSX")
}

/// A fresh folder tree for one test, removed afterwards: `root/inbox` and `root/outside`.
final class Sandbox: Sendable {
    let root: String
    var inbox: String { root + "/inbox" }
    var outside: String { root + "/outside" }

    init(base: String = NSTemporaryDirectory()) throws {
        let template = bytes(base + "/utensilwatch-XXXXXX") + [0]
        var buffer = template.map { CChar(bitPattern: $0) }
        guard let created = mkdtemp(&buffer) else { throw POSIXError(.EIO) }
        root = String(cString: created)
        try FileManager.default.createDirectory(atPath: root + "/inbox", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
        if FileManager.default.fileExists(atPath: root) {  // deeper than PATH_MAX: rm works by descriptor
            let rm = Process()
            rm.executableURL = URL(fileURLWithPath: "/bin/rm")
            rm.arguments = ["-rf", "--", root]
            try? rm.run()
            rm.waitUntilExit()
        }
    }

    func mkdir(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}

/// Writes a file the way `cp` does: open (create), write, close.
func writeFile(_ path: String, _ contents: String = "photo bytes") {
    writeFile(bytes(path), contents)
}

func writeFile(_ path: [UInt8], _ contents: String = "photo bytes") {
    let descriptor = RawPath(bytes: path).withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    precondition(descriptor >= 0, "cannot create \(path.lossyString): errno \(errno)")
    let data = Array(contents.utf8)
    _ = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}

func rename(_ from: String, _ to: String) {
    precondition(Glibc.rename(from, to) == 0, "rename \(from) → \(to): errno \(errno)")
}

/// Every file below `folder` (what the daemon's scan of a `.folderAppeared` path would find).
func scanFiles(_ folder: [UInt8]) -> Set<[UInt8]> {
    let path = String(decoding: folder, as: UTF8.self)
    guard let names = FileManager.default.subpaths(atPath: path) else { return [] }
    var result = Set<[UInt8]>()
    for name in names {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isFolder), !isFolder.boolValue {
            result.insert(bytes(path + "/" + name))
        }
    }
    return result
}

/// What a caller learns from `events`: candidates plus the files a scan of each appeared folder finds.
func filesFound(in events: [WatchEvent]) -> Set<[UInt8]> {
    var found = Set<[UInt8]>()
    for event in events {
        switch event {
        case .candidate(let path): found.insert(path)
        case .folderAppeared(let path): found.formUnion(scanFiles(path))
        default: break
        }
    }
    return found
}

/// Consumes a stream in the background and lets a test await conditions on what arrived,
/// each with a deadline (never a sleep).
final class EventRecorder: Sendable {
    private struct State {
        var events: [WatchEvent] = []
        var finished = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())
    private let consumer = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: AsyncStream<WatchEvent>) {
        // Consumed on a thread of its own: tests of other modules that block the shared
        // cooperative pool must not make events look late.
        let task = Task(executorPreference: recorderExecutor) {
            for await event in stream {
                self.update { $0.events.append(event) }
            }
            self.update { $0.finished = true }
        }
        consumer.withLock { $0 = task }
    }

    var events: [WatchEvent] { state.withLock { $0.events } }
    var finished: Bool { state.withLock { $0.finished } }

    /// Cancels the consuming task (the consumer "goes away").
    func cancel() { consumer.withLock { $0?.cancel() } }

    /// Waits until `condition` holds for the events so far; `false` on timeout or end of stream.
    func wait(upTo timeout: Duration = .seconds(30), until condition: @escaping @Sendable ([WatchEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (events, finished) = state.withLock { ($0.events, $0.finished) }
            if condition(events) { return true }
            if finished || ContinuousClock.now >= deadline { return false }
            await changeOrDeadline(after: events.count, deadline: deadline)
        }
    }

    func wait(for event: WatchEvent, upTo timeout: Duration = .seconds(30)) async -> Bool {
        await wait(upTo: timeout) { $0.contains(event) }
    }

    /// Waits until the stream has finished.
    func waitForEnd(upTo timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !finished {
            if ContinuousClock.now >= deadline { return false }
            await changeOrDeadline(after: events.count, deadline: deadline)
        }
        return true
    }

    private func changeOrDeadline(after count: Int, deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.change(after: count) }
            group.addTask { try? await Task.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns once more than `count` events arrived, the stream ended, or the task is cancelled.
    private func change(after count: Int) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.events.count > count || state.finished || Task.isCancelled { return true }
                    state.waiters[id] = waiter
                    return false
                }
                if now { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    private func update(_ change: (inout State) -> Void) {
        let waiters = state.withLock { state in
            change(&state)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Runs every job on one dedicated thread.
final class DedicatedExecutor: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])
    private let ready = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in
            while true {
                ready.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }
}

let recorderExecutor = DedicatedExecutor(name: "event-recorder")

/// Runs `operation` with a deadline; `nil` if it did not finish in time.
func within<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// What `/proc/self/fd/N` points at, or `nil` if N is not open.
func descriptorTarget(_ descriptor: Int32) -> String? {
    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
}

let isRoot = geteuid() == 0

/// A chain of nested folders made by descriptor (`mkdir -p` cannot make one whose path is
/// longer than `PATH_MAX`): `levels` folders named `component` below `root`.
struct DeepChain {
    let root: String
    let levels: Int
    let component: String

    /// Makes the folders (those already there are kept: a chain can be lengthened); returns the chain.
    @discardableResult
    static func make(in root: String, levels: Int, component: String) throws -> DeepChain {
        let chain = DeepChain(root: root, levels: levels, component: component)
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        for _ in 0..<levels {
            guard fd >= 0, mkdirat(fd, component, 0o755) == 0 || errno == EEXIST else { throw POSIXError(.EIO) }
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            fd = next
        }
        guard fd >= 0 else { throw POSIXError(.EIO) }
        close(fd)
        return chain
    }

    /// The full path of the deepest folder (longer than `PATH_MAX`, perhaps).
    var bottom: [UInt8] { bytes(([root] + Array(repeating: component, count: levels)).joined(separator: "/")) }

    /// Writes a file into the deepest folder, reached one component at a time.
    func writeFile(_ name: String, _ contents: String = "photo bytes") {
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        for _ in 0..<levels {
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            fd = next
        }
        precondition(fd >= 0, "cannot reach the bottom of \(root): errno \(errno)")
        defer { close(fd) }
        let file = openat(fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(file >= 0, "cannot create \(name): errno \(errno)")
        let data = Array(contents.utf8)
        _ = data.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
    }
}
