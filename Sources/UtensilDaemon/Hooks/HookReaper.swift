import CUtensilSupport
import Glibc
import Synchronization

/// Ends every process a hook starts, with the hook, and reaps it.
///
/// How a process is known to be a hook's:
/// - A hook starts as the leader of a session of its own (`POSIX_SPAWN_SETSID`), so it can
///   leave neither its session nor its process group, and nothing it starts can ever join
///   utensild's session (`setpgid` does not cross sessions; `setsid` makes a new one).
/// - utensild is a child subreaper (`PR_SET_CHILD_SUBREAPER`, set before the first hook
///   starts): a descendant whose parent exits is re-parented to utensild, not to init, so it
///   is always either below a hook (or below one of its known descendants) or a child of utensild.
/// - utensild starts no child process but hooks. So a child of utensild that is not a hook
///   being supervised and not in utensild's own session is something a hook left behind:
///   it belongs to the run whose session it is in or that saw it before, and when no run can
///   name it (it left the hook's session, and its parent exited before a look saw it), to
///   every run going on then. Code that starts other children in new sessions would have to
///   be told apart here first.
///
/// ``track()`` looks (`/proc/<pid>/task/<tid>/children`, or all of `/proc` on a kernel without
/// it) while hooks run; ``finish(_:first:grace:limit:)`` signals what a run's hook left
/// (through pidfds, so a pid used again is never hit) until none is left, and `waitpid`s each
/// one that becomes utensild's child by its pid: an exit status that other code waits for
/// is never taken, and no zombie stays.
final class HookReaper: Sendable {
    /// The daemon's one reaper (the subreaper setting is per process).
    static let shared = HookReaper()

    /// One hook run being supervised.
    struct Run: Sendable {
        fileprivate let id: UInt64
    }

    private struct Tracked {
        /// The hook's pid while its supervisor may still reap it.
        var root: Int32?
        /// The hook's session and those of its descendants that made their own.
        var sessions: Set<Int32>
        /// Its descendants, alive or zombies, but not the hook itself.
        var members: Set<ProcessKey> = []

        mutating func add(_ process: ProcessStat) {
            members.insert(process.key)
            if process.session == process.pid { sessions.insert(process.pid) }
        }
    }

    private struct State {
        var subreaper = false
        var nextID: UInt64 = 0
        var runs: [UInt64: Tracked] = [:]
    }

    private let state = Mutex(State())
    private let ownPID = getpid()
    private let ownSession = getsid(0)

    /// Runs `spawn` (which starts a hook in a session of its own) and registers the hook, as one
    /// step that no ``track()`` sees half done; the first call makes this process a subreaper.
    func start(_ spawn: () -> Result<Int32, SpawnFailure>) -> Result<(Run, Int32), SpawnFailure> {
        state.withLock { state in
            if !state.subreaper {
                // Without it (it does not fail on Linux) orphans would go to init, untracked.
                state.subreaper = utensil_become_subreaper() == 0
            }
            switch spawn() {
            case .failure(let failure): return .failure(failure)
            case .success(let pid):
                state.nextID += 1
                state.runs[state.nextID] = Tracked(root: pid, sessions: [pid])
                return .success((Run(id: state.nextID), pid))
            }
        }
    }

    /// The hook itself has been reaped (or is given up on): from now on it is one of what its
    /// run left behind, should it still be there.
    func rootEnded(_ run: Run) {
        state.withLock { $0.runs[run.id]?.root = nil }
    }

    /// Sends `signal` to every process the hook of `run` started (not to the hook itself).
    func signal(_ run: Run, _ signal: Int32) {
        track()
        for key in members(of: run) { _ = Self.send(signal, to: key) }
    }

    /// Signals what the hook of `run` left behind, `first` (SIGTERM or SIGKILL) and SIGKILL
    /// after `grace`, and reaps it, until none is left or `limit` has passed (a process in
    /// uninterruptible sleep outlives SIGKILL); then forgets the run.
    func finish(_ run: Run, first: Int32, grace: Duration, limit: Duration) {
        let started = ContinuousClock.now
        var signal = first
        var signalled: Set<ProcessKey> = []
        while true {
            track()
            var left = false
            for key in members(of: run) {
                guard let process = ProcessStat.read(key.pid), process.started == key.started else { continue }
                if process.isZombie {
                    var status: Int32 = 0
                    // Only its own pid, and only once it is utensild's child (a zombie whose
                    // parent is one of the run's is re-parented here when that one goes).
                    if process.parent == ownPID && waitpid(key.pid, &status, WNOHANG) == key.pid { continue }
                } else if signalled.insert(key).inserted {
                    _ = Self.send(signal, to: key)
                }
                left = true
            }
            let elapsed = ContinuousClock.now - started
            if !left || elapsed >= limit { break }
            if signal != SIGKILL && elapsed >= grace {
                signal = SIGKILL
                signalled = []
            }
            usleep(10_000)  // Polling /proc with a deadline: a process's end wakes nothing here.
        }
        state.withLock { _ = $0.runs.removeValue(forKey: run.id) }
    }

    /// Looks for what the hooks started: utensild's children outside its session (see the type's
    /// comment), then everything below those and below each hook.
    func track() {
        let table = ProcessTable()
        let orphans = table.children(of: ownPID).compactMap(ProcessStat.read).filter { $0.session != ownSession }
        let starts: [(UInt64, [Int32])] = state.withLock { state in
            let roots = Set(state.runs.values.compactMap(\.root))
            for orphan in orphans where !roots.contains(orphan.pid) {
                var owners = state.runs.filter { $0.value.members.contains(orphan.key) || $0.value.sessions.contains(orphan.session) }.map(\.key)
                if owners.isEmpty { owners = Array(state.runs.keys) }
                for id in owners { state.runs[id]?.add(orphan) }
            }
            return state.runs.map { id, run in (id, (run.root.map { [$0] } ?? []) + run.members.map(\.pid)) }
        }
        var found: [UInt64: [ProcessStat]] = [:]
        var gone: Set<ProcessKey> = []
        for (id, pids) in starts {
            var seen = Set(pids)
            var queue = pids
            while let pid = queue.popLast() {
                for child in table.children(of: pid) where seen.insert(child).inserted {
                    guard let process = ProcessStat.read(child) else { continue }
                    found[id, default: []].append(process)
                    queue.append(child)
                }
            }
        }
        let members = state.withLock { $0.runs.values.flatMap(\.members) }
        for key in members where ProcessStat.read(key.pid)?.started != key.started { gone.insert(key) }
        state.withLock { state in
            for (id, processes) in found { for process in processes { state.runs[id]?.add(process) } }
            for id in state.runs.keys { state.runs[id]?.members.subtract(gone) }
        }
    }

    private func members(of run: Run) -> Set<ProcessKey> {
        state.withLock { $0.runs[run.id]?.members ?? [] }
    }

    /// Sends `signal` to the process `key` names, if it is still that process; true if sent.
    static func send(_ signal: Int32, to key: ProcessKey) -> Bool {
        let handle = utensil_pidfd_open(key.pid)
        guard handle >= 0 else { return false }
        defer { close(handle) }
        // The pidfd holds the process now; its start time says it is the one that was seen.
        guard ProcessStat.read(key.pid)?.started == key.started else { return false }
        return utensil_pidfd_send_signal(handle, signal) == 0
    }
}

/// One process, told apart from a later one given the same pid.
struct ProcessKey: Hashable, Sendable {
    let pid: Int32
    /// When it started, in clock ticks after boot.
    let started: UInt64
}

/// What `/proc/<pid>/stat` says of a process.
struct ProcessStat: Sendable {
    let pid: Int32
    let parent: Int32
    let session: Int32
    let started: UInt64
    let isZombie: Bool

    var key: ProcessKey { ProcessKey(pid: pid, started: started) }

    static func read(_ pid: Int32) -> ProcessStat? {
        // The command name (in parentheses) may hold spaces and parentheses: fields follow the last ")".
        guard let bytes = ProcFile.read("/proc/\(pid)/stat"), let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        func number<T: FixedWidthInteger>(_ index: Int) -> T? { T(String(decoding: fields[index], as: UTF8.self)) }
        guard fields.count > 19, let parent: Int32 = number(1), let session: Int32 = number(3),
              let started: UInt64 = number(19) else { return nil }
        return ProcessStat(pid: pid, parent: parent, session: session, started: started, isZombie: fields[0].first == UInt8(ascii: "Z"))
    }
}

/// Who is whose child, from `/proc`: each thread's `children` file where the kernel has them
/// (`CONFIG_PROC_CHILDREN`), otherwise one pass over every process's `stat`.
struct ProcessTable {
    private static let childrenListed = access("/proc/thread-self/children", R_OK) == 0
    private let byParent: [Int32: [Int32]]?

    init() {
        guard !Self.childrenListed else {
            byParent = nil
            return
        }
        var map: [Int32: [Int32]] = [:]
        for pid in ProcFile.numbers(in: "/proc") {
            if let process = ProcessStat.read(pid) { map[process.parent, default: []].append(pid) }
        }
        byParent = map
    }

    /// The children of process `pid` (of any of its threads).
    func children(of pid: Int32) -> [Int32] {
        if let byParent { return byParent[pid] ?? [] }
        return ProcFile.numbers(in: "/proc/\(pid)/task").flatMap { thread in
            ProcFile.read("/proc/\(pid)/task/\(thread)/children").map(ProcFile.numbers(in:)) ?? []
        }
    }
}

/// Small reads of `/proc`.
enum ProcFile {
    /// The whole file, or nil if it cannot be read (the process is gone).
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                result.append(contentsOf: buffer[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return count == 0 ? result : nil
            }
        }
    }

    /// The numbers in a space-separated list (a `children` file).
    static func numbers(in bytes: [UInt8]) -> [Int32] {
        bytes.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
            .compactMap { Int32(String(decoding: $0, as: UTF8.self)) }
    }

    /// The entries of a folder that are numbers (pids, thread ids).
    static func numbers(in folder: String) -> [Int32] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var result: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let number = Int32(name) { result.append(number) }
        }
        return result
    }
}
