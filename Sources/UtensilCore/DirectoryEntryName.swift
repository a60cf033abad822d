import Glibc

/// The name of an entry `readdir` returned, read in place.
///
/// A `dirent` record is only as long as its name needs (`d_reclen`): the last one of
/// glibc's buffer may end a few bytes after its name's NUL. So neither the record nor its
/// 256-byte `d_name` may be copied whole (`entry.pointee.d_name`): that reads past the
/// buffer, and when the buffer ends at an unmapped page the process dies (it did, once in a
/// while, in `check`). Only the name's own bytes are read, up to its NUL.
public enum DirectoryEntryName {
    public static func bytes(of entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let name = UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self)
        return Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
    }
}
