import CUtensilSupport
import Foundation
import Glibc

/// Writes uploaded files into the inbox the way a careful copy tool does: under a hidden
/// temporary name (a leading dot: invisible to the watcher) in the target folder, flushed to
/// disk, then renamed into place without overwriting — so the watcher and the whole
/// pipeline take it like any other drop. Over `maxFileBytes` the file is abandoned at once.
/// Files are renamed into place only once the whole body has arrived intact (``commit()``):
/// a cut-off or malformed upload leaves nothing behind (``abandon()``).
struct InboxUpload {
    /// What became of one uploaded file.
    struct Outcome: Codable, Sendable, Equatable {
        /// The name as uploaded.
        var file: String
        /// `accepted` (it is in the inbox now: watch the event stream for `inboxFile`) or `refused`.
        var status: String
        /// `accepted`: where it is, relative to the inbox (the name the events carry).
        var inboxFile: String?
        /// `refused`: one sentence saying what to do.
        var message: String?
    }

    let inbox: String
    let maxFileBytes: Int
    /// The signed-in user, recorded on each file for the catalog's `addedBy`.
    let user: String

    private var current: (name: String, folder: String, temporary: String, fd: Int32, bytes: Int)?
    /// Written and flushed, waiting for the end of the body: (order, name, folder, temporary).
    private var written: [(index: Int, name: String, folder: String, temporary: String)] = []
    private var outcomes: [(index: Int, outcome: Outcome)] = []
    private var files = 0

    init(inbox: String, maxFileBytes: Int, user: String) {
        self.inbox = inbox
        self.maxFileBytes = maxFileBytes
        self.user = user
    }

    /// A part with a file name begins; `category` puts it into that folder of the inbox.
    mutating func begin(fileName rawName: String, category: String?) {
        files += 1
        let name = Self.baseName(rawName)
        if let problem = Self.problem(withName: name) {
            refuse(rawName, problem)
            return
        }
        var folder = inbox
        if let category, !category.isEmpty {
            if let problem = Self.problem(withFolder: category) {
                refuse(rawName, problem)
                return
            }
            folder = inbox + "/" + category
            if mkdir(folder, 0o2770) != 0 && errno != EEXIST {
                refuse(rawName, "The category folder could not be made (\(String(cString: strerror(errno)))); ask the administrator.")
                return
            }
        }
        let temporary = folder + "/.upload-" + UUID().uuidString + ".part"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o660)
        guard fd >= 0 else {
            refuse(rawName, "The inbox cannot be written (\(String(cString: strerror(errno)))); ask the administrator.")
            return
        }
        // The uploader, for `addedBy` (utensild trusts it only on files of its own user); a file
        // system without user attributes records utensild's user instead.
        _ = utensil_set_xattr(fd, "user.utensild.added-by", user)
        current = (name, folder, temporary, fd, 0)
    }

    mutating func write(_ bytes: [UInt8]) {
        guard var file = current else { return }
        file.bytes += bytes.count
        current = file
        if file.bytes > maxFileBytes {
            dropCurrent()
            refuse(file.name, "\(file.name) is larger than the \(maxFileBytes) bytes this gallery takes (max_file_bytes); make it smaller.")
            return
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(file.fd, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else {
                let reason = String(cString: strerror(errno))
                dropCurrent()
                refuse(file.name, "\(file.name) could not be written into the inbox (\(reason)); try again later.")
                return
            }
            offset += written
        }
    }

    /// The part ended: flush it to disk; it stays hidden until ``commit()``.
    mutating func end() {
        guard let file = current else { return }
        current = nil
        guard fsync(file.fd) == 0, close(file.fd) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(file.temporary)
            refuse(file.name, "\(file.name) could not be written into the inbox (\(reason)); try again later.")
            return
        }
        written.append((files, file.name, file.folder, file.temporary))
    }

    /// The body arrived whole: renames every file into place (`Name (2).jpg` if the name is
    /// taken, never overwriting) and returns what became of each, in upload order.
    mutating func commit() -> [Outcome] {
        for file in written {
            let dot = file.name.lastIndex(of: ".") ?? file.name.endIndex
            let stem = file.name[..<dot]
            let suffix = file.name[dot...]
            var placed = false
            for attempt in 1...100 {
                let name = attempt == 1 ? file.name : "\(stem) (\(attempt))\(suffix)"
                if utensil_rename_noreplace(file.temporary, file.folder + "/" + name) == 0 {
                    let relative = file.folder == inbox ? name : String(file.folder.dropFirst(inbox.count + 1)) + "/" + name
                    outcomes.append((file.index, Outcome(file: file.name, status: "accepted", inboxFile: relative)))
                    placed = true
                    break
                }
                guard errno == EEXIST else { break }
            }
            if !placed {
                unlink(file.temporary)
                outcomes.append((file.index, Outcome(
                    file: file.name, status: "refused", message: "\(file.name) could not be placed into the inbox; try again later.")))
            }
        }
        written = []
        return outcomes.sorted { $0.index < $1.index }.map(\.outcome)
    }

    /// Removes every file of a broken or cut-off upload.
    mutating func abandon() {
        dropCurrent()
        for file in written { unlink(file.temporary) }
        written = []
    }

    /// Removes the file being written (too large, or the disk refused it).
    private mutating func dropCurrent() {
        guard let file = current else { return }
        close(file.fd)
        unlink(file.temporary)
        current = nil
    }

    private mutating func refuse(_ name: String, _ message: String) {
        outcomes.append((files, Outcome(file: name, status: "refused", message: message)))
    }

    /// The last component of a name a browser (or a Windows client) sent.
    static func baseName(_ name: String) -> String {
        String(name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? "")
    }

    static func problem(withName name: String) -> String? {
        if name.isEmpty || name == "." || name == ".." { return "A file without a name cannot be taken; give it a name." }
        if name.hasPrefix(".") { return "\(name) starts with a dot, which hides it from the inbox; rename it without the dot." }
        if name.utf8.count > 255 { return "The file name is longer than 255 bytes; shorten it." }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "The file name holds a control character; rename it."
        }
        return nil
    }

    static func problem(withFolder name: String) -> String? {
        if name.contains("/") || name.contains("\\") { return "A category is one folder name, without slashes." }
        return problem(withName: name).map { $0.replacingOccurrences(of: "file name", with: "category") }
    }
}
