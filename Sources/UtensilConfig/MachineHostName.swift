import Glibc

/// The machine's host name, as `gethostname(2)` gives it (the kernel's, which systemd's
/// `ProtectHostname=` leaves readable); `localhost` if it cannot be read.
public enum MachineHostName {
    public static func current() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
