import Glibc

/// Listening sockets systemd passed in (socket activation): `sd_listen_fds_with_names(3)`'s
/// protocol, read from the environment. Each socket unit names its descriptor with
/// `FileDescriptorName=` (`control`, `web`).
public enum SocketActivation {
    /// The passed descriptor named `name`, marked close-on-exec; nil if none was passed for
    /// this process. Without `LISTEN_FDNAMES` (an older or hand-made activation) the first
    /// descriptor is taken when `firstIfUnnamed` (the control socket's long-standing rule).
    public static func descriptor(named name: String, environment: [String: String], firstIfUnnamed: Bool = false) -> Int32? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
              let count = environment["LISTEN_FDS"].flatMap(Int32.init), count >= 1
        else { return nil }
        let index: Int32
        if let names = environment["LISTEN_FDNAMES"] {
            guard let position = names.split(separator: ":", omittingEmptySubsequences: false).firstIndex(of: Substring(name)),
                  position < Int(count)
            else { return nil }
            index = Int32(position)
        } else {
            guard firstIfUnnamed else { return nil }
            index = 0
        }
        let fd = 3 + index
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }
}
