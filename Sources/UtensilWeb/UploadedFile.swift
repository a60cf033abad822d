/// One uploaded file on its way into the inbox, written by the daemon's confined file
/// operations (``GalleryBackend/createUpload(fileName:category:uploader:)``): hidden until
/// ``place()``, owned by the daemon, never reached through a path built from the request.
public protocol UploadedFile: AnyObject {
    func write(_ bytes: [UInt8]) throws(UploadRefused)
    /// The part ended: flushes the file to disk and closes it, so that a finished file holds
    /// no descriptor; it stays hidden.
    func finish() throws(UploadRefused)
    /// Renames it into place (never overwriting); returns where it is, relative to the inbox.
    func place() throws(UploadRefused) -> String
    /// Removes it (a cut-off, refused or oversized upload).
    func discard()
}

/// Why an uploaded file was not taken: one sentence saying what to do.
public struct UploadRefused: Error, Sendable, Equatable {
    public var message: String

    public init(_ message: String) { self.message = message }
}
