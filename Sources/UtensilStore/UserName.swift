import CUtensilSupport
import Glibc

/// Who a uid is, as `addedBy` records it.
public enum UserName {
    /// The extended attribute in which the web gallery names the signed-in user who uploaded
    /// a file (it writes uploads into the inbox as utensild's own user).
    public static let uploaderAttribute = "user.utensild.added-by"

    /// Who added the open drop `fd`: the web user named in ``uploaderAttribute`` when the file
    /// belongs to utensild's own user (only a file utensild wrote can speak for a web user),
    /// otherwise the owner's user name.
    package static func addedBy(fd: Int32, owner: UInt32) -> String {
        if owner == geteuid() {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = utensil_get_xattr(fd, uploaderAttribute, &buffer, UInt(buffer.count))
            if count > 0, let name = String(validating: buffer[..<count], as: UTF8.self), !name.isEmpty {
                return name
            }
        }
        return of(uid: owner)
    }

    /// The user name of `uid` from the passwd database (`getpwuid_r`), or the uid in
    /// decimal when it has no entry.
    public static func of(uid: UInt32) -> String {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 1024)
        while true {
            let status = getpwuid_r(uid_t(uid), &entry, &buffer, buffer.count, &found)
            if status == ERANGE && buffer.count < 1 << 20 {
                buffer = [CChar](repeating: 0, count: buffer.count * 4)
                continue
            }
            guard status == 0, found != nil, let name = entry.pw_name else { return String(uid) }
            return String(cString: name)
        }
    }
}
