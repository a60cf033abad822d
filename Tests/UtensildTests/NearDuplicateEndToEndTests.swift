import Foundation
import Testing
import UtensilTestSupport

/// `near_duplicates` in the real utensild, on each catalog, tried as a kitchen team would:
/// twelve different photographs (Debian's mate-backgrounds) become twelve utensils that
/// resemble none, then a chat-app re-save of one of them (1600 px, JPEG quality 70) is
/// recorded as its look-alike (`warn`: in `show`, `duplicates`, the web API and the gallery
/// page), rejected (`reject`: `near-duplicate`, its sidecar naming the photo), or let through
/// (`off`).
@Suite("near-duplicates, end to end", .tags(.spawnsProcesses))
struct NearDuplicateEndToEndTests {
    enum CatalogKind: String, CaseIterable, CustomStringConvertible {
        case sqlite, postgres
        var description: String { rawValue }
    }

    static let photoFolder = "/usr/share/backgrounds/mate/nature"
    static let copyName = "Garden from the chat"

    /// A running daemon with the twelve photos ingested, its sockets, and the ids by name.
    struct Kitchen {
        let world: TestWorld
        let server: PostgresServer?
        let daemon: RunningDaemon
        let socket: String
        let web: WebClient
        let ids: [String: String]

        init(_ catalog: CatalogKind, mode: String) throws {
            world = try TestWorld()
            server = catalog == .postgres ? try PostgresServer() : nil
            let webSocket = world.root.appendingPathComponent("web.sock").path
            var extra = ["--near-duplicates", mode, "--web-listen", "unix:" + webSocket]
            if let server { extra += ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile] }
            daemon = try RunningDaemon(world: world, extra: extra)
            socket = world.root.appendingPathComponent("control.sock").path
            web = WebClient(socketPath: webSocket)
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.photoFolderPath).filter { $0.hasSuffix(".jpg") }.sorted()
            #expect(files.count == 12, "mate-backgrounds should hold twelve nature photos")
            for file in files {
                try world.drop(file, try Data(contentsOf: URL(fileURLWithPath: "\(Self.photoFolderPath)/\(file)")))
            }
            try Self.waitForStatus(daemon, socket, "\(files.count) utensils") { $0["utensils"] as? Int == files.count }
            let list = try Utensilctl.run(["list", "--json", "--limit", "100"], socket: socket)
            let utensils = try #require(list.json?["utensils"] as? [[String: Any]], "\(list.output)\(list.errors)")
            for utensil in utensils {
                #expect(utensil["nearDuplicateOf"] is NSNull, "\(utensil["name"] ?? "") was taken for a copy: \(utensil["nearDuplicateOf"] ?? "")")
            }
            ids = Dictionary(uniqueKeysWithValues: utensils.compactMap { utensil in
                (utensil["name"] as? String).flatMap { name in (utensil["id"] as? String).map { (name, $0) } }
            })
        }

        static var photoFolderPath: String { NearDuplicateEndToEndTests.photoFolder }

        /// Polls `utensilctl status --json` until `predicate` holds.
        static func waitForStatus(
            _ daemon: RunningDaemon, _ socket: String, _ what: String, _ predicate: @escaping ([String: Any]) -> Bool
        ) throws {
            try daemon.waitUntil(seconds: 300, what) {
                (try? Utensilctl.run(["status", "--json"], socket: socket).json).map(predicate) ?? false
            }
        }

        /// Drops the chat-app copy of `Garden.jpg` and waits until it is ingested or rejected.
        func dropCopy() throws {
            let path = world.root.appendingPathComponent("chat-copy.jpg").path
            try PhonePhotos.runPython("""
                import sys
                from PIL import Image
                image = Image.open('\(Self.photoFolderPath)/Garden.jpg').convert('RGB')
                image.thumbnail((1600, 1600), Image.LANCZOS)
                image.save(sys.argv[1], 'JPEG', quality=70)
                """, arguments: [path])
            try world.drop("\(NearDuplicateEndToEndTests.copyName).jpg", try Data(contentsOf: URL(fileURLWithPath: path)))
            try Self.waitForStatus(daemon, socket, "the copy ingested or rejected") { ($0["ingested"] as? Int ?? 0) + ($0["rejected"] as? Int ?? 0) == 13 }
        }

        func remove() {
            _ = try? daemon.terminate()
            server?.remove()
            world.remove()
        }
    }

    @Test("warn: the copy is a utensil that says which photo it looks like, everywhere", arguments: CatalogKind.allCases)
    func warn(_ catalog: CatalogKind) throws {
        let kitchen = try Kitchen(catalog, mode: "warn")
        defer { kitchen.remove() }
        try kitchen.dropCopy()
        let garden = try #require(kitchen.ids["Garden"])

        let shown = try Utensilctl.run(["show", Self.copyName, "--json"], socket: kitchen.socket)
        let near = try #require(shown.json?["nearDuplicateOf"] as? [String: Any], "\(shown.output)\(shown.errors)\n\(kitchen.daemon.log)")
        #expect(near["id"] as? String == garden && near["name"] as? String == "Garden")
        let distance = try #require(near["distance"] as? Int)
        #expect(distance <= 12)
        let copy = try #require(shown.json?["id"] as? String)
        let text = try Utensilctl.run(["show", Self.copyName], socket: kitchen.socket)
        #expect(text.output.contains("a copy of Garden (\(garden), \(distance) bits apart)"), "\(text.output)")
        #expect(kitchen.daemon.log.contains("(it looks like a copy of Garden, \(distance) bits apart)"), "\(kitchen.daemon.log)")

        let pairs = try Utensilctl.run(["duplicates", "--json"], socket: kitchen.socket)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(pairs.output.utf8)) as? [[String: Any]], "\(pairs.output)")
        #expect(listed.count == 1)
        #expect((listed.first?["copy"] as? [String: Any])?["id"] as? String == copy)
        #expect((listed.first?["original"] as? [String: Any])?["id"] as? String == garden)
        #expect(listed.first?["distance"] as? Int == distance)
        let table = try Utensilctl.run(["duplicates"], socket: kitchen.socket)
        #expect(table.output.contains(Self.copyName) && table.output.contains(garden), "\(table.output)")

        let api = try kitchen.web.get("/api/v1/utensils/" + copy)
        let apiNear = (try JSONSerialization.jsonObject(with: api.body) as? [String: Any])?["nearDuplicateOf"] as? [String: Any]
        #expect(apiNear?["id"] as? String == garden, "\(api.text)")
        let page = try kitchen.web.get("/utensils/" + copy)
        #expect(page.text.contains("a copy of <a href=\"/utensils/\(garden)\">Garden</a>"), "\(page.text)")

        // Marked not a copy, by the names `duplicates` shows: no longer listed, nor shown as a copy.
        let marked = try Utensilctl.run(["duplicates", "--not-a-copy", "Garden", Self.copyName], socket: kitchen.socket)
        #expect(marked.status == 0 && marked.output.contains("No two utensils look alike."), "\(marked.output)\(marked.errors)")
        #expect(try Utensilctl.run(["duplicates", "--json"], socket: kitchen.socket).output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let again = try Utensilctl.run(["duplicates", "--not-a-copy", copy, garden], socket: kitchen.socket)
        #expect(again.status == 0, "\(again.output)\(again.errors)")
        let unmarked = try Utensilctl.run(["show", copy, "--json"], socket: kitchen.socket)
        #expect(unmarked.json?["nearDuplicateOf"] is NSNull, "\(unmarked.output)\(unmarked.errors)")
        #expect(!(try kitchen.web.get("/utensils/" + copy)).text.contains("a copy of"))
    }

    /// Six re-saves of one photo dropped together, each near the others: each waits on its
    /// worker for the one before to be committed, so none is handed back for a retry (whose
    /// back-off, doubling, once held such a burst for minutes), and each is found a copy.
    @Test("warn: a burst of re-saves of one photo goes through without a retry, each a copy", arguments: CatalogKind.allCases)
    func burstOfCopies(_ catalog: CatalogKind) throws {
        let kitchen = try Kitchen(catalog, mode: "warn")
        defer { kitchen.remove() }
        let folder = kitchen.world.root.appendingPathComponent("re-saves").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try PhonePhotos.runPython("""
            import sys
            from PIL import Image
            image = Image.open('\(Self.photoFolder)/Garden.jpg').convert('RGB')
            for index, (side, quality) in enumerate([(1600, 90), (1600, 70), (1280, 80), (1280, 60), (1024, 75), (800, 85)]):
                copy = image.copy()
                copy.thumbnail((side, side), Image.LANCZOS)
                copy.save('%s/Garden %d.jpg' % (sys.argv[1], index + 1), 'JPEG', quality=quality)
            """, arguments: [folder])
        for index in 1...6 {
            try kitchen.world.drop("Garden \(index).jpg", try Data(contentsOf: URL(fileURLWithPath: "\(folder)/Garden \(index).jpg")))
        }
        try Kitchen.waitForStatus(kitchen.daemon, kitchen.socket, "the six re-saves ingested") { $0["ingested"] as? Int == 18 }
        let list = try Utensilctl.run(["list", "--json", "--limit", "100"], socket: kitchen.socket)
        let utensils = try #require(list.json?["utensils"] as? [[String: Any]], "\(list.output)\(list.errors)")
        let copies = utensils.filter { ($0["name"] as? String)?.hasPrefix("Garden ") == true }
        #expect(copies.count == 6)
        for copy in copies {
            #expect(copy["nearDuplicateOf"] is [String: Any], "\(copy["name"] ?? "") was not found a copy")
        }
        #expect(!kitchen.daemon.log.contains("a photo that looks like"), "none left for a retry behind another: \(kitchen.daemon.log)")
    }

    @Test("reject: the copy is rejected as near-duplicate, its sidecar naming the photo", arguments: CatalogKind.allCases)
    func reject(_ catalog: CatalogKind) throws {
        let kitchen = try Kitchen(catalog, mode: "reject")
        defer { kitchen.remove() }
        try kitchen.dropCopy()
        let garden = try #require(kitchen.ids["Garden"])
        let sidecar = try #require(kitchen.world.files(in: kitchen.world.rejected).first { $0.hasSuffix(".error.json") },
            "no sidecar in rejected/\n\(kitchen.daemon.log)")
        let object = try JSONSerialization.jsonObject(
            with: Data(contentsOf: kitchen.world.rejected.appendingPathComponent(sidecar))) as? [String: Any]
        #expect(object?["reason"] as? String == "near-duplicate")
        let message = object?["message"] as? String ?? ""
        #expect(message.contains("looks like a copy of the utensil Garden (\(garden))") && message.contains("delete this file"), "\(message)")
        let status = try Utensilctl.run(["status", "--json"], socket: kitchen.socket).json
        #expect(status?["utensils"] as? Int == 12)
    }

    @Test("off: the copy is a utensil like any other", arguments: CatalogKind.allCases)
    func off(_ catalog: CatalogKind) throws {
        let kitchen = try Kitchen(catalog, mode: "off")
        defer { kitchen.remove() }
        try kitchen.dropCopy()
        let shown = try Utensilctl.run(["show", Self.copyName, "--json"], socket: kitchen.socket)
        #expect(shown.status == 0, "\(shown.errors)\n\(kitchen.daemon.log)")
        #expect(shown.json?["nearDuplicateOf"] is NSNull, "\(shown.output)")
        #expect(try Utensilctl.run(["duplicates", "--json"], socket: kitchen.socket).output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }
}
