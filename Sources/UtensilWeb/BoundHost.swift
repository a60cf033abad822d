import Glibc

/// The host of a listening socket's own address, as a Host header names it (`192.0.2.7`,
/// `[2001:db8::1]`): for a socket systemd passed in, whose address `web_listen` does not
/// say. Nil for a wildcard (`0.0.0.0`, `::`), a Unix socket, or a descriptor that is none.
enum BoundHost {
    static func of(descriptor: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }.sin_addr
            guard address.s_addr != 0 else { return nil }
            return presentation(AF_INET, &address)
        case AF_INET6:
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }.sin6_addr
            guard !withUnsafeBytes(of: address, { $0.allSatisfy { $0 == 0 } }) else { return nil }
            return presentation(AF_INET6, &address).map { "[\($0)]" }
        default:
            return nil
        }
    }

    /// `inet_ntop`'s text for the address at `address`.
    private static func presentation(_ family: Int32, _ address: UnsafeRawPointer) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, address, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
