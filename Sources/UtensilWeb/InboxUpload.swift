import Foundation

/// One upload request's files on their way into the inbox, in the order they came: each is
/// written by the daemon's confined operations (``UploadedFile``) under a hidden name, and
/// renamed into place only once the whole body has arrived intact (``commit()``), so the
/// watcher and the whole pipeline take it like any other drop. A cut-off or malformed upload
/// leaves nothing behind (``abandon()``); over `maxFileBytes` a file is abandoned at once.
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

    let backend: any GalleryBackend
    /// The signed-in user, recorded on each file for the catalog's `addedBy`.
    let user: String

    private var current: (name: String, file: any UploadedFile, bytes: Int)?
    /// Written, flushed and closed, waiting for the end of the body.
    private var written: [(index: Int, name: String, file: any UploadedFile)] = []
    private var outcomes: [(index: Int, outcome: Outcome)] = []
    private var files = 0

    init(backend: any GalleryBackend, user: String) {
        self.backend = backend
        self.user = user
    }

    /// A part with a file name begins; `category` puts it into that folder of the inbox.
    mutating func begin(fileName rawName: String, category: String?) {
        files += 1
        do throws(UploadRefused) {
            let name = Self.baseName(rawName)
            current = (name, try backend.createUpload(fileName: name, category: category, uploader: user), 0)
        } catch {
            refuse(rawName, error.message)
        }
    }

    mutating func write(_ bytes: [UInt8]) {
        guard var upload = current else { return }
        upload.bytes += bytes.count
        current = upload
        if upload.bytes > backend.maxFileBytes {
            dropCurrent()
            refuse(upload.name, "\(upload.name) is larger than the \(backend.maxFileBytes) bytes this gallery takes (max_file_bytes); make it smaller.")
            return
        }
        do throws(UploadRefused) {
            try upload.file.write(bytes)
        } catch {
            dropCurrent()
            refuse(upload.name, error.message)
        }
    }

    /// The part ended: flush it to disk; it stays hidden until ``commit()``.
    mutating func end() {
        guard let upload = current else { return }
        current = nil
        do throws(UploadRefused) {
            try upload.file.finish()
            written.append((files, upload.name, upload.file))
        } catch {
            upload.file.discard()
            refuse(upload.name, error.message)
        }
    }

    /// The body arrived whole: puts every file into place (`Name (2).jpg` if the name is
    /// taken, never overwriting) and returns what became of each, in upload order.
    mutating func commit() -> [Outcome] {
        for upload in written {
            do throws(UploadRefused) {
                let placed = try upload.file.place()
                outcomes.append((upload.index, Outcome(file: upload.name, status: "accepted", inboxFile: placed)))
            } catch {
                outcomes.append((upload.index, Outcome(file: upload.name, status: "refused", message: error.message)))
            }
        }
        written = []
        return outcomes.sorted { $0.index < $1.index }.map(\.outcome)
    }

    /// Removes every file of a broken or cut-off upload.
    mutating func abandon() {
        dropCurrent()
        for upload in written { upload.file.discard() }
        written = []
    }

    /// Removes the file being written (too large, or the disk refused it).
    private mutating func dropCurrent() {
        current?.file.discard()
        current = nil
    }

    private mutating func refuse(_ name: String, _ message: String) {
        outcomes.append((files, Outcome(file: name, status: "refused", message: message)))
    }

    /// The last component of a name a browser (or a Windows client) sent.
    static func baseName(_ name: String) -> String {
        String(name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? "")
    }
}
