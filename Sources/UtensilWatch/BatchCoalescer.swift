import UtensilCore

/// Shrinks the events of one read batch before they are delivered: everything in a batch is
/// delivered after all of it happened, so within a stretch between `.inboxGone`/`.inboxBack`
/// - an `.overflow` (full rescan) covers every other event but `.unwatched` (a message),
/// - a `.folderAppeared(F)` (scan of F) covers candidates and folders below F,
/// - a repeated candidate adds nothing.
enum BatchCoalescer {
    static func coalesce(_ events: [WatchEvent]) -> [WatchEvent] {
        guard events.count > 1 else { return events }
        var result: [WatchEvent] = []
        var stretch: [WatchEvent] = []
        for event in events {
            switch event {
            case .inboxGone, .inboxBack:
                result += coalesceStretch(stretch)
                result.append(event)
                stretch.removeAll()
            case .candidate, .folderAppeared, .overflow, .unwatched:
                stretch.append(event)
            }
        }
        return result + coalesceStretch(stretch)
    }

    private static func coalesceStretch(_ events: [WatchEvent]) -> [WatchEvent] {
        if events.contains(.overflow) {
            var problems: [WatchEvent] = []
            for case .unwatched(let error) in events where !problems.contains(.unwatched(error)) {
                problems.append(.unwatched(error))
            }
            return problems + [.overflow]
        }
        var folders = Set<[UInt8]>()
        for case .folderAppeared(let path) in events { folders.insert(path) }
        func coveredByFolder(_ path: [UInt8]) -> Bool {
            RawPath(bytes: path).ancestors.map(\.bytes).contains { folders.contains($0) }
        }
        var seen = Set<WatchEvent>()
        var result: [WatchEvent] = []
        for event in events where !seen.contains(event) {
            seen.insert(event)
            if let path = event.path, coveredByFolder(path) { continue }
            result.append(event)
        }
        return result
    }
}

