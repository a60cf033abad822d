import UtensilCore

/// Lexical rules for the path keys: absolute, normalised, and folders that do not swallow each other.
enum PathRules {
    /// `path` with duplicate and trailing slashes and `.` components removed.
    /// Relative paths, `..` (ambiguous with symbolic links), control characters and `/` itself are refused.
    static func normalizedAbsolute(_ path: String) throws(SettingProblem) -> String {
        if path.isEmpty { throw SettingProblem("is empty; give an absolute path such as \"/srv/utensils/inbox\"") }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw SettingProblem("contains a control character (a line break?); give a plain absolute path")
        }
        guard path.hasPrefix("/") else {
            throw SettingProblem("is a relative path; give an absolute path starting with \"/\"")
        }
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { throw SettingProblem("contains \"..\"; write the path without it") }
            parts.append(part)
        }
        if parts.isEmpty { throw SettingProblem("is the root folder; give a folder or file below it") }
        return "/" + parts.joined(separator: "/")
    }

    /// The folder holding `path` (a normalised absolute path); `/` for a top-level entry.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// `name` in the folder holding `path`: the default `rejected` is `sibling("rejected", of: inbox)`.
    static func sibling(_ name: String, of path: String) -> String {
        let parent = parent(of: path)
        return parent == "/" ? "/" + name : parent + "/" + name
    }

    /// Whether `path` is `folder` itself or somewhere below it (both normalised).
    static func isSameOrInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// The first pair of paths that cannot work together, as the key to blame and the problem.
    ///
    /// Nothing may live in the inbox (it would be ingested); nothing but rejections in `rejected`
    /// (`utensilctl retry --all` moves its content into the inbox); and neither the inbox nor
    /// `rejected` inside the files the daemon owns (`originals/`, `thumbnails/`, `staging/`).
    static func conflict(in c: UtensilConfiguration) -> (key: ConfigKey, problem: String)? {
        let inbox = TOMLText.quoted(c.inbox), rejected = TOMLText.quoted(c.rejected)
        if isSameOrInside(c.rejected, c.inbox) {
            return (.rejected, "is inside inbox \(inbox), where rejected files would be ingested again; choose a folder outside it")
        }
        if isSameOrInside(c.stateDir, c.inbox) {
            return (.stateDir, "is inside inbox \(inbox), where the daemon's own files would be ingested; choose a folder outside it")
        }
        if isSameOrInside(c.controlSocket, c.inbox) {
            return (.controlSocket, "is inside inbox \(inbox); choose a path outside it")
        }
        if isSameOrInside(c.inbox, c.rejected) {
            return (.rejected, "contains inbox \(inbox); choose a folder beside it, not above it")
        }
        if isSameOrInside(c.stateDir, c.rejected) {
            return (.stateDir, "is inside rejected \(rejected), whose content `utensilctl retry --all` moves into the inbox; choose a folder outside it")
        }
        if isSameOrInside(c.controlSocket, c.rejected) {
            return (.controlSocket, "is inside rejected \(rejected); choose a path outside it")
        }
        for owned in StateLayout.ownedFolderNames {
            let folder = c.stateDir + "/" + owned
            if isSameOrInside(c.inbox, folder) {
                return (.inbox, "is inside \(TOMLText.quoted(folder)), which only the daemon may write; choose another folder")
            }
            if isSameOrInside(c.rejected, folder) {
                return (.rejected, "is inside \(TOMLText.quoted(folder)), which only the daemon may write; choose another folder")
            }
        }
        return nil
    }
}
