import Glibc

/// What the process's standard output is: a terminal or not, colour allowed or not, how wide.
struct Terminal: Sendable {
    /// Whether standard output is a terminal.
    var isTTY: Bool
    /// Colour and pictures only when standard output is a terminal and `NO_COLOR` is unset
    /// (https://no-color.org: any non-empty value disables colour).
    var allowsColor: Bool
    /// The terminal's width in columns, when known.
    var columns: Int?

    static func current(environment: [String: String]) -> Terminal {
        let isTTY = isatty(STDOUT_FILENO) == 1
        var size = winsize()
        let columns = isTTY && ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
            ? Int(size.ws_col) : nil
        return Terminal(isTTY: isTTY, allowsColor: allowsColor(isTTY: isTTY, environment: environment), columns: columns)
    }

    /// Colour only on a terminal, and never when `NO_COLOR` is set to anything but "".
    static func allowsColor(isTTY: Bool, environment: [String: String]) -> Bool {
        isTTY && (environment["NO_COLOR"] ?? "").isEmpty
    }

    var style: Style { Style(enabled: allowsColor) }
}
