/// `host_name`: this host's name among the hosts sharing a catalog, and the `host` label of
/// its metrics. 1 to 63 characters of `A-Z a-z 0-9 . -`; `""` stands for the machine's name.
public enum HostName {
    static let maximumLength = 63

    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "." || scalar == "-"
    }

    static func check(_ name: String) throws(SettingProblem) -> String {
        if name.isEmpty { return name }
        guard name.unicodeScalars.count <= maximumLength else {
            throw SettingProblem("is \(name.unicodeScalars.count) characters long; give at most \(maximumLength) of A-Z a-z 0-9 . -")
        }
        guard name.unicodeScalars.allSatisfy(isAllowed) else {
            throw SettingProblem("holds a character other than A-Z a-z 0-9 . -; give a name such as \"photos-1\"")
        }
        // It names this host's folder in state_dir/staging/.
        guard !name.unicodeScalars.allSatisfy({ $0 == "." }) else {
            throw SettingProblem("is made only of dots, which names no folder; give a name such as \"photos-1\"")
        }
        return name
    }

    /// `name` (the machine's) made to follow the rules: other characters become `-`, at most
    /// 63 are kept, and an empty result or one of dots alone is `localhost`.
    public static func fitting(_ name: String) -> String {
        let scalars = name.unicodeScalars.prefix(maximumLength).map { isAllowed($0) ? Character($0) : "-" }
        return scalars.allSatisfy({ $0 == "." }) ? "localhost" : String(scalars)
    }
}
