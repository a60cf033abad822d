import Foundation
import Hummingbird
import Testing
@testable import UtensilWeb

/// docs/WEB.md's route table lists every route the gallery's real router has (its automatic
/// HEAD routes aside), and no other.
@Suite struct DocumentedRouteTests {
    static let webDocument = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/WEB.md")

    /// `GET /utensils/{}`: a capture, however spelled, as `{}`, and a path segment with one
    /// (`{id}.jpeg`: the router captures the segment, the handler reads the extension) too.
    static func normalized(_ route: String) -> String {
        route.replacing(/\{[^}]*\}|:[A-Za-z_]+/, with: "{}").replacing(/\/[^\/]*\{\}[^\/]*/, with: "/{}")
    }

    /// The routes of the table's first column: `` `GET /login`, `POST /login` ``, and a path
    /// alone (`` `/static/gallery.css` ``) takes the method before it.
    static func documentedRoutes() throws -> Set<String> {
        let text = try String(contentsOf: webDocument, encoding: .utf8)
        var routes = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            var method = ""
            for entry in cell.split(separator: "`") {
                let words = entry.split(separator: " ")
                if words.count == 2, words[1].hasPrefix("/") {
                    method = String(words[0])
                    routes.insert(normalized("\(method) \(words[1])"))
                } else if words.count == 1, words[0].hasPrefix("/"), !method.isEmpty {
                    routes.insert(normalized("\(method) \(words[0])"))
                }
            }
        }
        return routes
    }

    @Test func theTableListsEveryRouteAndNoOther() throws {
        let gallery = try Gallery()
        defer { gallery.backend.remove() }
        let served = Set(gallery.server.makeRouter().routes.filter { $0.method != .head }.map { Self.normalized("\($0.method) \($0.path)") })
        let documented = try Self.documentedRoutes()
        #expect(served.count > 20, "\(served.sorted())")
        for route in served.subtracting(documented).sorted() {
            Issue.record("the gallery serves \(route), which docs/WEB.md's route table does not list: add a row for it")
        }
        for route in documented.subtracting(served).sorted() {
            Issue.record("docs/WEB.md lists \(route), which the gallery's router has no route for: correct or remove the row")
        }
    }
}
