import Glibc

/// Who a uid is, as `addedBy` records it.
public enum UserName {
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
