/// "Did you mean …?" for a misspelt key or environment variable.
enum KeySuggestion {
    /// The key a misspelt file key probably meant (`state-dir`, `State_Dir`, `thumbnail_sise` …).
    static func forFileKey(_ name: String) -> String? {
        closest(to: name)?.rawValue
    }

    /// The variable a misspelt `UTENSILD_…` variable probably meant.
    static func forEnvironmentName(_ name: String) -> String? {
        closest(to: String(name.dropFirst(ConfigKey.environmentPrefix.count)))?.environmentName
    }

    private static func closest(to name: String) -> ConfigKey? {
        let wanted = Array(String(name.lowercased().map { $0 == "-" ? "_" : $0 }))
        var best: (key: ConfigKey, distance: Int)?
        for key in ConfigKey.allCases {
            let distance = editDistance(wanted, Array(key.rawValue))
            if distance <= max(1, key.rawValue.count / 4), distance < (best?.distance ?? .max) {
                best = (key, distance)
            }
        }
        return best?.key
    }

    /// Levenshtein distance.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
