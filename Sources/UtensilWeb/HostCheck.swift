import Hummingbird
import UtensilConfig

/// Answers 421 to a request whose Host header names neither the listen address, `localhost`,
/// `127.0.0.1`, `[::1]`, the address of a socket systemd passed in, nor one of `web_hosts`: a web page that points a DNS name of its own
/// at this machine (DNS rebinding) reads nothing through it. The port is not compared; a
/// request without a Host is refused too (every browser sends one).
struct HostCheck<Context: RequestContext>: RouterMiddleware {
    /// Lower-case host names, IPv6 addresses in brackets.
    let allowed: Set<String>

    /// `boundHost`: the host of a socket systemd passed in (``BoundHost``).
    init(listen: WebListen, boundHost: String? = nil, extraHosts: [String]) {
        var allowed: Set<String> = ["localhost", "127.0.0.1", "[::1]"]
        // A wildcard is no name a browser sends; those come from web_hosts.
        if case .tcp(let host, _) = listen, host != "0.0.0.0", host != "::" {
            allowed.insert(host.contains(":") ? "[\(host.lowercased())]" : host.lowercased())
        }
        if let boundHost { allowed.insert(boundHost.lowercased()) }
        allowed.formUnion(extraHosts.map { $0.lowercased() })
        self.allowed = allowed
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, allowed.contains(Self.host(of: authority)) else {
            throw WebProblem(.misdirectedRequest, .permissionDenied,
                "This gallery does not answer to that host name; use its own address, or add the name to web_hosts.")
        }
        return try await next(request, context)
    }

    /// The host of a Host header, without its port and a final dot, in lower case:
    /// `Photos.Example.org.:8180` → `photos.example.org`, `[::1]:8180` → `[::1]`.
    static func host(of authority: String) -> String {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            if let close = host.firstIndex(of: "]") { host = host[...close] }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        return String(host)
    }
}
