import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// Every rule of ``CatalogBackend`` that the store relies on, checked against every backend
/// in ``CatalogBackends/all`` through the protocol alone (and a snapshot's SQLite file read back
/// by the SQLite catalog, as `utensild restore` reads it).
@Suite("Catalog backend contract", .tags(.spawnsProcesses))
struct CatalogBackendContractTests {
    typealias R = ContractRecords

    // MARK: Claims

    @Test("a claimed name is refused to another utensil, compared by the caller's key", arguments: CatalogBackends.all)
    func nameClaim(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            try await catalog.insertOne(R.record("Spoon"))
            await #expect(throws: CatalogError.duplicateName(existing: "Spoon")) {
                try await catalog.insertOne(R.record("SPOON"))
            }
            try await catalog.insertOne(R.record("spoon", claimName: false))
            #expect(try await catalog.count() == 2)
            #expect(try await catalog.utensils(nameKey: UtensilName.uniquenessKey(for: "Spoon")).count == 2)
        }
    }

    @Test("a claimed photo is refused to another utensil", arguments: CatalogBackends.all)
    func contentClaim(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            try await catalog.insertOne(R.record("Spoon", sha: "abc"))
            await #expect(throws: CatalogError.duplicateContent(existing: "Spoon")) {
                try await catalog.insertOne(R.record("Fork", sha: "abc"))
            }
            try await catalog.insertOne(R.record("Knife", sha: "abc", claimContent: false))
            #expect(try await catalog.utensil(sha256: "abc") != nil)
            #expect(try await catalog.count() == 2)
        }
    }

    @Test("a refusal says which claim it hit", arguments: CatalogBackends.all)
    func refusalSaysWhich(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            try await catalog.insertOne(R.record("Spoon", sha: "abc", source: "1:2:3:4@a"))
            let refusals = try await catalog.insert(batch: [
                R.record("spoon", sha: "other"), R.record("Fork", sha: "abc"), R.record("Ladle", source: "1:2:3:4@a"),
                R.record("SPOON", sha: "abc"),
            ])
            #expect(refusals[0] == .duplicateName(existing: "Spoon"))
            #expect(refusals[1] == .duplicateContent(existing: "Spoon"))
            #expect(refusals[2] == .alreadyIngested)
            // Both claims taken: either one names it.
            #expect([CatalogError.duplicateName(existing: "Spoon"), .duplicateContent(existing: "Spoon")].contains(refusals[3]))
            #expect(try await catalog.countAll() == 1)
        }
    }

    @Test("a source key is committed once and found again, also by its file identity", arguments: CatalogBackends.all)
    func sourceKeySeen(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            try await catalog.insertOne(R.record("Spoon", source: "8:9:10:11@path"))
            await #expect(throws: CatalogError.alreadyIngested) {
                try await catalog.insertOne(R.record("Fork", source: "8:9:10:11@path"))
            }
            #expect(try await catalog.utensil(sourceKey: "8:9:10:11@path")?.name == "Spoon")
            #expect(try await catalog.utensil(sameFileAs: "8:9:10:11")?.name == "Spoon")
            #expect(try await catalog.utensil(sameFileAs: "8:9:10:1") == nil)
            #expect(try await catalog.utensil(sourceKey: "8:9:10:11@other") == nil)
        }
    }

    @Test("a batch refuses each record on its own and forgets the committed ones' decoder crashes", arguments: CatalogBackends.all)
    func batch(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            #expect(try await catalog.recordDecoderCrash(sourceKey: "5:5:5:5") == 1)
            #expect(try await catalog.recordDecoderCrash(sourceKey: "5:5:5:5") == 2)
            #expect(try await catalog.recordDecoderCrash(sourceKey: "6:6:6:6") == 1)
            let refusals = try await catalog.insert(batch: [
                R.record("Whisk", source: "5:5:5:5@inbox"), R.record("whisk"), R.record("Ladle"),
            ])
            #expect(refusals == [nil, .duplicateName(existing: "Whisk"), nil])
            #expect(try await catalog.decoderCrashes(sourceKey: "5:5:5:5") == 0)
            #expect(try await catalog.decoderCrashes(sourceKey: "6:6:6:6") == 1)
            #expect(try await catalog.count() == 2)
        }
    }

    // MARK: Finding and counting

    @Test("reads find utensils by id, name key and photo; counts and ids cover the trash as documented", arguments: CatalogBackends.all)
    func findingAndCounting(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let spoon = R.record("Spoon", sha: "s"), fork = R.record("Fork"), knife = R.record("Knife")
            #expect(try await catalog.insert(batch: [spoon, fork, knife]) == [nil, nil, nil])
            _ = try await catalog.trash(id: knife.id, at: Date())
            let read = try #require(try await catalog.utensil(id: spoon.id))
            #expect(abs(read.createdAt.timeIntervalSince(spoon.createdAt)) < 0.001)
            #expect(read.name == "Spoon" && read.nameKey == spoon.nameKey && read.sha256 == "s" && read.bytes == 1234)
            #expect(try await catalog.utensil(id: UUID()) == nil)
            #expect(try await catalog.utensil(nameKey: UtensilName.uniquenessKey(for: "spoon"))?.id == spoon.id)
            #expect(try await catalog.utensil(nameKey: knife.nameKey) == nil)
            #expect(try await catalog.utensil(sha256: knife.sha256)?.id == knife.id)
            #expect(try await catalog.count() == 2)
            #expect(try await catalog.countAll() == 3)
            #expect(try await catalog.allIDs() == [spoon.id, fork.id, knife.id])
            var walked: [UUID] = []
            var page = try await catalog.ids(after: nil, limit: 2)
            while !page.isEmpty {
                walked += page
                page = try await catalog.ids(after: page.last, limit: 2)
            }
            #expect(walked == [spoon.id, fork.id, knife.id].sorted { $0.uuidString < $1.uuidString })
        }
    }

    // MARK: The trash

    @Test("the trash gives up the name claim and keeps the photo claim", arguments: CatalogBackends.all)
    func trashClaims(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let spoon = R.record("Spoon", sha: "abc")
            try await catalog.insertOne(spoon)
            let trashedAt = Date()
            let trashed = try await catalog.trash(id: spoon.id, at: trashedAt)
            #expect(trashed.trashedAt != nil && trashed.nameClaim == nil)
            await #expect(throws: CatalogError.notFound) { try await catalog.trash(id: spoon.id, at: Date()) }
            try await catalog.insertOne(R.record("Spoon"))
            await #expect(throws: CatalogError.duplicateContent(existing: "Spoon")) {
                try await catalog.insertOne(R.record("Fork", sha: "abc"))
            }
            #expect(try await catalog.trashed(before: nil).map(\.id) == [spoon.id])
            #expect(try await catalog.trashed(before: trashedAt.addingTimeInterval(-60)).isEmpty)
            #expect(try await catalog.trashed(before: trashedAt.addingTimeInterval(60)).map(\.id) == [spoon.id])
            #expect(try await catalog.count() == 1)
            #expect(try await catalog.names() == ["Spoon"])
        }
    }

    @Test("restoring claims the name again: refused while it is taken, allowed under another", arguments: CatalogBackends.all)
    func restoreReclaims(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let old = R.record("Spoon")
            try await catalog.insertOne(old)
            _ = try await catalog.trash(id: old.id, at: Date())
            try await catalog.insertOne(R.record("spoon"))
            await #expect(throws: CatalogError.duplicateName(existing: "spoon")) {
                try await catalog.restore(id: old.id, as: nil, claimName: true)
            }
            let restored = try await catalog.restore(id: old.id, as: try R.name("Old spoon"), claimName: true)
            #expect(restored.name == "Old spoon" && restored.trashedAt == nil && restored.updatedAt != nil)
            #expect(restored.nameClaim == UtensilName.uniquenessKey(for: "Old spoon"))
            await #expect(throws: CatalogError.duplicateName(existing: "Old spoon")) {
                try await catalog.insertOne(R.record("OLD SPOON"))
            }
            await #expect(throws: CatalogError.notFound) { try await catalog.restore(id: old.id, as: nil, claimName: true) }
            #expect(try await catalog.count() == 2)
        }
    }

    @Test("delete removes a row for good", arguments: CatalogBackends.all)
    func delete(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let spoon = R.record("Spoon", sha: "abc")
            try await catalog.insertOne(spoon)
            #expect(try await catalog.delete(id: spoon.id).id == spoon.id)
            #expect(try await catalog.utensil(id: spoon.id) == nil)
            await #expect(throws: CatalogError.notFound) { try await catalog.delete(id: spoon.id) }
            try await catalog.insertOne(R.record("Spoon", sha: "abc"))
            #expect(try await catalog.countAll() == 1)
        }
    }

    // MARK: Changes

    @Test("rename claims the new name; refused when taken, not found in the trash", arguments: CatalogBackends.all)
    func rename(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let spoon = R.record("Spoon"), fork = R.record("Fork")
            #expect(try await catalog.insert(batch: [spoon, fork]) == [nil, nil])
            let ladle = try R.name("Ladle")
            let renamed = try await catalog.rename(
                id: spoon.id, name: ladle.value, nameKey: ladle.uniquenessKey, searchKey: ladle.searchKey, claim: true)
            #expect(renamed.name == "Ladle" && renamed.updatedAt != nil)
            try await catalog.insertOne(R.record("Spoon"))
            let taken = try R.name("FORK")
            await #expect(throws: CatalogError.duplicateName(existing: "Fork")) {
                try await catalog.rename(id: spoon.id, name: taken.value, nameKey: taken.uniquenessKey, searchKey: taken.searchKey, claim: true)
            }
            #expect(try await catalog.utensil(id: spoon.id)?.name == "Ladle")
            _ = try await catalog.trash(id: fork.id, at: Date())
            await #expect(throws: CatalogError.notFound) {
                try await catalog.rename(id: fork.id, name: "Knife", nameKey: "knife", searchKey: "knife", claim: true)
            }
        }
    }

    @Test("a new photo keeps the utensil's name and age; a photo claimed elsewhere is refused", arguments: CatalogBackends.all)
    func replacePhoto(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let spoon = R.record("Spoon", sha: "one"), fork = R.record("Fork", sha: "two")
            #expect(try await catalog.insert(batch: [spoon, fork]) == [nil, nil])
            #expect(try await catalog.recordDecoderCrash(sourceKey: "7:7:7:7") == 1)
            var photo = R.record("ignored", sha: "three", source: "7:7:7:7@new")
            photo.id = spoon.id
            let replaced = try await catalog.replacePhoto(with: photo)
            #expect(replaced.name == "Spoon" && replaced.sha256 == "three" && replaced.updatedAt != nil)
            #expect(abs(replaced.createdAt.timeIntervalSince(spoon.createdAt)) < 0.001)
            #expect(try await catalog.decoderCrashes(sourceKey: "7:7:7:7") == 0)
            var stolen = R.record("ignored", sha: "two")
            stolen.id = spoon.id
            await #expect(throws: CatalogError.duplicateContent(existing: "Fork")) { try await catalog.replacePhoto(with: stolen) }
            _ = try await catalog.trash(id: spoon.id, at: Date())
            await #expect(throws: CatalogError.notFound) { try await catalog.replacePhoto(with: photo) }
        }
    }

    // MARK: Categories

    @Test("categories count the utensils outside the trash, spellings that differ in case as one", arguments: CatalogBackends.all)
    func categories(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let whisk = R.record("Whisk", category: "Baking"), sieve = R.record("Sieve", category: "baking")
            let knife = R.record("Knife", category: "Cutting"), spoon = R.record("Spoon")
            #expect(try await catalog.insert(batch: [whisk, sieve, knife, spoon]) == [nil, nil, nil, nil])
            #expect(try await catalog.categories() == [.init(name: "Baking", count: 2), .init(name: "Cutting", count: 1)])
            _ = try await catalog.trash(id: knife.id, at: Date())
            _ = try await catalog.setCategory(id: spoon.id, to: try R.name("Serving"))
            #expect(try await catalog.categories() == [.init(name: "Baking", count: 2), .init(name: "Serving", count: 1)])
            let cleared = try await catalog.setCategory(id: spoon.id, to: nil)
            #expect(cleared.category == nil && cleared.updatedAt != nil)
            #expect(try await catalog.categories() == [.init(name: "Baking", count: 2)])
            let page = try await catalog.list(
                search: nil, category: "BAKING", addedBy: nil, favoriteOf: nil, sort: .name, limit: 10, after: nil)
            #expect(page.utensils.map(\.name) == ["Sieve", "Whisk"])
        }
    }

    @Test("renaming a category moves all its utensils, merging into an existing one; deleting uncategorises them", arguments: CatalogBackends.all)
    func renameAndDeleteCategory(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let whisk = R.record("Whisk", category: "Baking"), sieve = R.record("Sieve", category: "Baking")
            let knife = R.record("Knife", category: "Cutting")
            #expect(try await catalog.insert(batch: [whisk, sieve, knife]) == [nil, nil, nil])
            _ = try await catalog.trash(id: sieve.id, at: Date())
            let renamed = try await catalog.renameCategory("baking", to: try R.name("Pastry"), at: Date())
            #expect(renamed == CatalogCategoryChange(from: "Baking", to: "Pastry", moved: 1, merged: false, count: 1))
            let merged = try await catalog.renameCategory("Pastry", to: try R.name("CUTTING"), at: Date())
            #expect(merged == CatalogCategoryChange(from: "Pastry", to: "Cutting", moved: 1, merged: true, count: 2))
            #expect(try await catalog.categories() == [.init(name: "Cutting", count: 2)])
            // The trash went along: restored, the sieve is in the category as it is now.
            #expect(try await catalog.restore(id: sieve.id, as: nil, claimName: true).category == "Cutting")
            let deleted = try await catalog.deleteCategory("cutting", at: Date())
            #expect(deleted == CatalogCategoryChange(from: "Cutting", to: nil, moved: 3, merged: false, count: 0))
            #expect(try await catalog.categories().isEmpty)
            await #expect(throws: CatalogError.notFound) { try await catalog.deleteCategory("Cutting", at: Date()) }
            await #expect(throws: CatalogError.notFound) { try await catalog.renameCategory("Nothing", to: try R.name("Else"), at: Date()) }
        }
    }

    // MARK: Favorites

    @Test("favorites are per user, idempotent, filter listings, and not for the trash", arguments: CatalogBackends.all)
    func favorites(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let spoon = R.record("Spoon"), fork = R.record("Fork")
            #expect(try await catalog.insert(batch: [spoon, fork]) == [nil, nil])
            _ = try await catalog.setFavorite(id: spoon.id, of: "alice", true)
            _ = try await catalog.setFavorite(id: spoon.id, of: "alice", true)
            _ = try await catalog.setFavorite(id: fork.id, of: "bob", true)
            #expect(try await catalog.favorites(of: "alice", among: [spoon.id, fork.id]) == [spoon.id])
            #expect(try await catalog.favorites(of: "alice", among: []) == [])
            let alices = try await catalog.list(
                search: nil, category: nil, addedBy: nil, favoriteOf: "alice", sort: .name, limit: 10, after: nil)
            #expect(alices.utensils.map(\.name) == ["Spoon"])
            _ = try await catalog.setFavorite(id: spoon.id, of: "alice", false)
            #expect(try await catalog.favorites(of: "alice", among: [spoon.id, fork.id]).isEmpty)
            _ = try await catalog.trash(id: fork.id, at: Date())
            await #expect(throws: CatalogError.notFound) { try await catalog.setFavorite(id: fork.id, of: "bob", true) }
            await #expect(throws: CatalogError.notFound) { try await catalog.setFavorite(id: UUID(), of: "bob", true) }
        }
    }

    // MARK: Listing

    @Test("search matches the caller's folded key anywhere in the name, short terms too", arguments: CatalogBackends.all)
    func search(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let names = ["Éclair whisk", "Balloon whisk", "Spatula", "Crème brûlée torch", "100% sieve"]
            #expect(try await catalog.insert(batch: names.map { R.record($0) }) == Array(repeating: nil, count: names.count))
            func found(_ typed: String) async throws -> [String] {
                try await catalog.names(search: UtensilName.searchKey(for: typed))
            }
            #expect(try await found("WHISK") == ["Balloon whisk", "Éclair whisk"])
            #expect(try await found("eclair") == ["Éclair whisk"])
            #expect(try await found("creme BRULEE") == ["Crème brûlée torch"])
            #expect(try await found("TUL") == ["Spatula"])
            #expect(try await found("sp") == ["Spatula"])
            #expect(try await found("%") == ["100% sieve"])
            #expect(try await found("_") == [])
            #expect(try await found("nothing like it") == [])
        }
    }

    @Test("sort orders: by name (case and accents not deciding), oldest first, newest first", arguments: CatalogBackends.all)
    func sortOrders(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let names = ["spatula", "Éclair pan", "apron", "Whisk", "eclair brush"]
            let records = names.enumerated().map { R.record($1, createdAt: start.addingTimeInterval(Double($0))) }
            #expect(try await catalog.insert(batch: records) == Array(repeating: nil, count: names.count))
            #expect(try await catalog.names(sort: .name) == ["apron", "eclair brush", "Éclair pan", "spatula", "Whisk"])
            #expect(try await catalog.names(sort: .created) == names)
            #expect(try await catalog.names(sort: .newestFirst) == names.reversed())
        }
    }

    @Test("cursor paging visits every utensil once, in order, while rows change; a foreign cursor is refused", arguments: CatalogBackends.all)
    func paging(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let records = (0..<7).map { R.record(String(format: "Pot %02d", $0), createdAt: start.addingTimeInterval(Double($0))) }
            #expect(try await catalog.insert(batch: records).allSatisfy { $0 == nil })
            for sort in ListSort.allCases {
                let first = try await catalog.list(
                    search: nil, category: nil, addedBy: nil, favoriteOf: nil, sort: sort, limit: 3, after: nil)
                #expect(first.utensils.count == 3)
                let cursor = try #require(first.next)
                // A row added meanwhile neither repeats nor hides one of the next page.
                let early = R.record("Pot -1", createdAt: start.addingTimeInterval(-100))
                try await catalog.insertOne(early)
                let rest = try await catalog.list(
                    search: nil, category: nil, addedBy: nil, favoriteOf: nil, sort: sort, limit: 10, after: cursor)
                #expect(rest.next == nil)
                let seen = (first.utensils + rest.utensils).map(\.name).filter { $0 != "Pot -1" }
                let expected = records.map(\.name)
                #expect(seen == (sort == .newestFirst ? expected.reversed() : expected))
                _ = try await catalog.delete(id: early.id)
            }
            for foreign in ["nonsense!", "", "AAAA"] {
                await #expect(throws: CatalogError.invalidCursor) {
                    try await catalog.list(search: nil, category: nil, addedBy: nil, favoriteOf: nil, sort: .name, limit: 3, after: foreign)
                }
            }
            // A cursor crafted in the catalogs' own form, with a value no utensil could have:
            // a page or an invalid cursor, never an error that reads as an outage.
            for value in ["9223372036854775807", "-9223372036854775808", "99999999999999999999", "x", "1e308"] {
                let crafted = Data((value + "\u{0}" + UUID().uuidString).utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
                for sort in ListSort.allCases {
                    do {
                        _ = try await catalog.list(
                            search: nil, category: nil, addedBy: nil, favoriteOf: nil, sort: sort, limit: 3, after: crafted)
                    } catch {
                        #expect(error as? CatalogError == .invalidCursor, "a cursor holding \(value), sorted \(sort): \(error)")
                    }
                }
            }
            let added = try await catalog.list(
                search: nil, category: nil, addedBy: "carol", favoriteOf: nil, sort: .name, limit: 10, after: nil)
            #expect(added.utensils.isEmpty && added.next == nil)
        }
    }

    // MARK: Concurrency

    @Test("concurrent inserts of one name, through one handle or two: exactly one wins", arguments: CatalogBackends.all)
    func concurrentClaims(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let handles: [any CatalogBackend] = [opened.backend, try await opened.another()]
            let outcomes = await withTaskGroup(of: CatalogError?.self) { group in
                for attempt in 0..<8 {
                    let catalog = handles[attempt % 2]
                    group.addTask {
                        do throws(CatalogError) {
                            return try await catalog.insert(batch: [R.record(attempt % 2 == 0 ? "Spoon" : "SPOON")])[0]
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 1)
            #expect(outcomes.compactMap { $0 }.allSatisfy { if case .duplicateName = $0 { true } else { false } })
            #expect(try await opened.backend.count() == 1)
        }
    }

    // MARK: Backup and health

    @Test("a snapshot holds the catalog as it was and writes it out as a SQLite file", arguments: CatalogBackends.all)
    func snapshot(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let spoon = R.record("Spoon", category: "Serving", addedBy: "alice"), fork = R.record("Fork")
            #expect(try await catalog.insert(batch: [spoon, fork]) == [nil, nil])
            _ = try await catalog.setFavorite(id: spoon.id, of: "alice", true)
            _ = try await catalog.trash(id: fork.id, at: Date())
            let snapshot = try await catalog.snapshot()
            try await catalog.insertOne(R.record("Later"))
            let utensils = try await snapshot.utensils()
            #expect(utensils.map(\.id) == [spoon.id, fork.id].sorted { $0.uuidString < $1.uuidString })
            #expect(utensils.first { $0.id == fork.id }?.trashed == true)
            #expect(try await snapshot.categoryCount() == 1)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString).sqlite")
            defer { try? FileManager.default.removeItem(at: file) }
            try await snapshot.writeSQLite(to: file.path)
            // The file is a SQLite catalog holding the snapshot: what `utensild restore` reads.
            let copy = try SQLiteCatalog(path: file.path)
            #expect(try copy.countAll() == 2 && copy.count() == 1)
            let copied = try #require(try copy.utensil(id: spoon.id))
            #expect(copied.name == "Spoon" && copied.category == "Serving" && copied.addedBy == "alice")
            #expect(copied.nameClaim == spoon.nameClaim && copied.contentClaim == spoon.contentClaim)
            #expect(abs(copied.createdAt.timeIntervalSince(spoon.createdAt)) < 0.001)
            #expect(try copy.utensil(id: fork.id)?.trashedAt != nil)
            #expect(try copy.categories() == [.init(name: "Serving", count: 1)])
            #expect(try copy.favorites(of: "alice", among: [spoon.id, fork.id]) == [spoon.id])
            #expect(try await catalog.integrityCheck() == ["ok"])
        }
    }
}
