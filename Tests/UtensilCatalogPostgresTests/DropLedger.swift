import Foundation
import UtensilTestSupport

/// What a burst over several hosts dropped, and the rule every outcome is held to: each drop
/// is exactly one utensil (its name, the host it was dropped on, its bytes) or exactly one
/// rejection on its host; of drops that clash (the same name, or the same photo, on several
/// hosts) exactly one is a utensil and the others are rejected for that clash; every other
/// drop is a utensil; and there is no utensil or rejection that no drop accounts for.
struct DropLedger {
    /// One drop: a photo dropped on one host under one name.
    struct Drop {
        let host: Int
        let name: String
        let photo: Data
        let sha256: String
        /// The drops of a clash share one key; nil for a drop that clashes with nothing.
        let clash: String?
        /// What a drop of a clash that lost is rejected as (`duplicate-name`, `duplicate-content`).
        let reason: String?

        var fileName: String { name + ".jpg" }
    }

    /// A utensil as `list --json` shows it, with the SHA-256 of its original file.
    struct Listed {
        let id: String
        let name: String
        let host: String
        let sha256: String
    }

    private(set) var drops: [Drop] = []
    /// Whether the hosts share one inbox, so that any of them may ingest a drop: a drop's
    /// `host` is then only the inbox (and `rejected/`) it was dropped into.
    var anyHostIngests = false

    /// A drop that clashes with nothing: it must become a utensil.
    mutating func plain(_ host: Int, _ name: String, _ photo: Data) {
        drops.append(Drop(host: host, name: name, photo: photo, sha256: sha256Hex(photo), clash: nil, reason: nil))
    }

    /// The same name on several hosts, a different photo on each: one utensil, the rest `duplicate-name`.
    mutating func sameName(_ name: String, on hosts: [Int], _ photos: [Data]) {
        for (host, photo) in zip(hosts, photos) {
            drops.append(Drop(host: host, name: name, photo: photo, sha256: sha256Hex(photo), clash: "name " + name, reason: "duplicate-name"))
        }
    }

    /// The same photo under a different name on each host: one utensil, the rest `duplicate-content`.
    mutating func samePhoto(_ photo: Data, as names: [(host: Int, name: String)]) {
        let sha = sha256Hex(photo)
        for (host, name) in names {
            drops.append(Drop(host: host, name: name, photo: photo, sha256: sha, clash: "photo " + sha, reason: "duplicate-content"))
        }
    }

    /// Adds the drops of `other`.
    mutating func append(_ other: DropLedger) {
        drops += other.drops
    }

    /// How many utensils the drops must give: one per plain drop, one per clash.
    var expectedUtensils: Int {
        drops.filter { $0.clash == nil }.count + Set(drops.compactMap(\.clash)).count
    }

    var expectedRejections: Int { drops.count - expectedUtensils }

    /// Everything that breaks the rule, given the utensils listed, each host's name, and what
    /// each host's `rejected/` holds (file name → the sidecar's `reason`); empty when nothing does.
    func problems(utensils: [Listed], hostNames: [String], rejected: [[String: String]]) -> [String] {
        var problems: [String] = []
        var utensilOf = [Int: [Listed]]()
        for utensil in utensils {
            let matching = drops.indices.filter {
                drops[$0].name == utensil.name && drops[$0].sha256 == utensil.sha256
                    && (anyHostIngests ? hostNames.contains(utensil.host) : hostNames[drops[$0].host] == utensil.host)
            }
            guard matching.count == 1 else {
                problems.append("utensil \(utensil.name) (\(utensil.id)) on \(utensil.host) matches \(matching.count) drops")
                continue
            }
            utensilOf[matching[0], default: []].append(utensil)
        }
        for (index, drop) in drops.enumerated() {
            let asUtensil = utensilOf[index]?.count ?? 0
            let reason = rejected[drop.host][drop.fileName]
            let outcomes = asUtensil + (reason == nil ? 0 : 1)
            let where_ = "\(drop.fileName) on \(hostNames[drop.host])"
            if outcomes == 0 { problems.append("\(where_) is lost: neither a utensil nor a rejection") }
            if outcomes > 1 { problems.append("\(where_) is doubled: \(asUtensil) utensils, rejected \(reason ?? "no")") }
            if let reason, reason != drop.reason {
                problems.append("\(where_) was rejected as \(reason), expected \(drop.reason.map { "only as \($0)" } ?? "a utensil")")
            }
        }
        for clash in Set(drops.compactMap(\.clash)) {
            let winners = drops.indices.filter { drops[$0].clash == clash && utensilOf[$0] != nil }
            if winners.count != 1 { problems.append("\(clash): \(winners.count) utensils, expected exactly one") }
        }
        for (host, files) in rejected.enumerated() {
            for file in files.keys where !drops.contains(where: { $0.host == host && $0.fileName == file }) {
                problems.append("\(hostNames[host]) rejected \(file), which no drop there accounts for")
            }
        }
        return problems
    }

    /// What `rejected/` holds in `world`: each rejected file's name and its sidecar's reason
    /// (`"no sidecar"` for a file without one, and any other file there — a temporary, a
    /// sidecar without its file — under its own name as `"stray file"`).
    static func rejections(in world: TestWorld) -> [String: String] {
        let names = world.files(in: world.rejected)
        var found: [String: String] = [:]
        for name in names where !name.hasSuffix(".error.json") {
            found[name] = (try? world.sidecar(for: name))?["reason"] as? String ?? "no sidecar"
        }
        for name in names where name.hasSuffix(".error.json") && found[String(name.dropLast(".error.json".count))] == nil {
            found[name] = "stray file"
        }
        return found
    }
}
