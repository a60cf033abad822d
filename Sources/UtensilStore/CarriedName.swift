import UtensilCore

/// The one rule for a name a person types — `rename`, `restore --as`, `set-category`, an
/// upload's category, from the control socket or the web alike: it must be a name a dropped
/// file could carry. On top of ``UtensilName``'s rules that means no `/`, nothing the inbox
/// ignores (``DropVisibility``: hidden, temporary and system names), and short enough for
/// the file system.
public enum CarriedName {
    /// The most bytes of one file or folder name (`NAME_MAX`).
    package static let fileNameBytes = 255

    /// A utensil's name: the stem of a visible photo file, `<name>.jpeg` at most.
    public static func utensilName(_ raw: String) throws(NameRefusal) -> UtensilName {
        let name = try validated(raw, as: .name)
        let fileName = Array((name.value + ".jpeg").utf8)
        if fileName.count > fileNameBytes { throw NameRefusal(.name, name.value, .longerThanAFileName(bytes: fileName.count)) }
        if DropVisibility.isInvisible(name: fileName, isDirectory: false) { throw NameRefusal(.name, name.value, .ignoredByInbox) }
        return name
    }

    /// A category: the name of a folder directly in the inbox, which the inbox would not
    /// ignore as a folder nor, were it a link or a file, as a file.
    public static func category(_ raw: String) throws(NameRefusal) -> UtensilName {
        let name = try validated(raw, as: .category)
        let bytes = Array(name.value.utf8)
        if bytes.count > fileNameBytes { throw NameRefusal(.category, name.value, .longerThanAFileName(bytes: bytes.count)) }
        if DropVisibility.isIgnored(name: bytes) { throw NameRefusal(.category, name.value, .ignoredByInbox) }
        return name
    }

    private static func validated(_ raw: String, as subject: NameRefusal.Subject) throws(NameRefusal) -> UtensilName {
        let name: UtensilName
        do {
            name = try UtensilName(validating: raw)
        } catch {
            throw NameRefusal(subject, raw, .invalid(error))
        }
        if name.value.contains("/") { throw NameRefusal(subject, name.value, .slash) }
        return name
    }
}

/// Why a typed name cannot be a utensil's name or a category.
public struct NameRefusal: Error, Sendable, Equatable {
    public enum Subject: Sendable, Equatable {
        case name, category
    }

    public enum Problem: Sendable, Equatable {
        /// Fails the rules every name follows (empty, too long, control characters …).
        case invalid(NameError)
        case slash
        /// Hidden, temporary or system names (`.x`, `~$x`, `x~`, `x.part`, `@eaDir` …).
        case ignoredByInbox
        case longerThanAFileName(bytes: Int)
    }

    public let subject: Subject
    /// The name as typed (after normalisation, when it got that far).
    public let name: String
    public let problem: Problem

    init(_ subject: Subject, _ name: String, _ problem: Problem) {
        self.subject = subject
        self.name = name
        self.problem = problem
    }

    /// One sentence saying what to do.
    public var message: String {
        switch (subject, problem) {
        case (.name, .invalid(let error)): error.message
        case (.category, .invalid(let error)): "The category \(error.problem); choose another."
        case (.name, .slash): "A name cannot hold a slash (/), which no file name in the inbox can; choose one without it."
        case (.category, .slash): "A category is one folder name, without slashes; choose one without /."
        case (.name, .ignoredByInbox):
            "The inbox ignores a file named \(name).jpg (a hidden or temporary name), so no photo can carry this name; choose another."
        case (.category, .ignoredByInbox):
            "The inbox ignores a folder or file named \(name) (a hidden, temporary or system name such as .x, x~ or @eaDir), so it cannot be a category; choose another."
        case (.name, .longerThanAFileName(let bytes)):
            "The name takes \(bytes) bytes with its extension, more than the \(CarriedName.fileNameBytes) a file name can hold; choose a shorter one."
        case (.category, .longerThanAFileName(let bytes)):
            "The category takes \(bytes) bytes, more than the \(CarriedName.fileNameBytes) a folder name can hold; choose a shorter one."
        }
    }
}
