import UtensilIngest
import UtensilWeb

/// The ingest's confined upload file (``UploadFile``, written beneath the held inbox) as the
/// gallery's ``UploadedFile``: the same operations, the refusal's sentence passed on.
final class ConfinedUpload: UploadedFile {
    let file: UploadFile

    init(_ file: UploadFile) { self.file = file }

    func write(_ bytes: [UInt8]) throws(UploadRefused) { try Self.refusing { () throws(UploadRefusal) in try file.write(bytes) } }

    func finish() throws(UploadRefused) { try Self.refusing { () throws(UploadRefusal) in try file.finish() } }

    func place() throws(UploadRefused) -> String { try Self.refusing { () throws(UploadRefusal) in try file.place() } }

    func discard() { file.discard() }

    static func refusing<T>(_ body: () throws(UploadRefusal) -> T) throws(UploadRefused) -> T {
        do {
            return try body()
        } catch {
            throw UploadRefused(error.message)
        }
    }
}
