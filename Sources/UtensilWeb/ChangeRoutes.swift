import Foundation
import Hummingbird
import UtensilControlProtocol
import UtensilWebUsers

/// Signing in and out, and every change: rename, change category, delete, restore, upload,
/// rename or delete a category, and the signed-in user's own favorites.
/// Each change needs a signed-in user and a same-site request (``Access``).
struct ChangeRoutes: Sendable {
    let backend: any GalleryBackend
    let access: Access
    let throttle: LoginThrottle
    let passwordChecks: PasswordChecks
    /// Uploads in progress, per user and in all, and their ``UploadLimits``.
    let uploads: UploadSlots
    /// No upload opens a file while the daemon is short of descriptors.
    let reserve: DescriptorReserve

    /// A restore whose name was taken while the utensil was in the trash.
    static let nameTakenOnRestore =
        "A utensil with this name was added meanwhile; on the trash page, type another name in the field beside Restore and restore it under that name."

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/login") { request, _ in
            HTML.response(LoginPage(message: nil, signedIn: access.user(request)).render())
        }
        router.post("/login") { request, context in
            try access.refuseCrossSite(request)
            let form = try await Self.form(request, context: context)
            let name = form["name"] ?? ""
            let password = form["password"] ?? ""
            let address = context.remoteAddress
            // Counted as a failure before the check, so parallel guesses cannot all be checked.
            if case .wait(let seconds) = throttle.reserve(account: name, address: address) {
                return Self.tooMany("Too many failed attempts; wait \(seconds) seconds and try again.", retryAfter: seconds)
            }
            let usersFile = access.usersFile
            let generation: String?
            do {
                generation = try await passwordChecks.run { () -> Result<String?, UntrustedUsersFile> in
                    usersFile.read().map { users in users.verify(name, password: password) ? users.entry(named: name)?.hash : nil }
                }.get()
            } catch is UntrustedUsersFile {
                throttle.succeeded(account: name, address: address)
                return HTML.response(LoginPage(
                    message: "Signing in is off until an administrator fixes the web users file (utensild's journal says how).",
                    signedIn: nil).render(), status: .serviceUnavailable)
            } catch {
                return Self.tooMany("Too many people are signing in at once; try again in a few seconds.", retryAfter: 5)
            }
            guard let generation else {
                throttle.failed(account: name, address: address)
                return HTML.response(LoginPage(
                    message: "That name and password do not match; try again (an administrator adds users with utensilctl web-user add).",
                    signedIn: nil).render(), status: .unauthorized)
            }
            throttle.succeeded(account: name, address: address)
            let token = access.sessions.open(for: name, generation: generation)
            var response = Response.redirect(to: "/", type: .normal)
            response.headers[.setCookie] = Access.cookie(token: token, request: request)
            return response
        }
        router.post("/logout") { request, _ in
            try access.refuseCrossSite(request)
            if let token = request.cookies[Sessions.cookieName]?.value { access.sessions.close(token) }
            var response = Response.redirect(to: "/", type: .normal)
            response.headers[.setCookie] = Access.cookie(token: "", request: request, maxAge: 0)
            return response
        }
        router.post("/utensils/:id/rename") { request, context in
            let user = try access.requireUser(request)
            let id = try Self.id(context)
            let form = try await Self.form(request, context: context)
            let renamed = try await backend.answer(.rename(id.text, to: form["name"] ?? ""), webUser: user).payload()
            return try JSONReply.change(request, renamed, otherwise: "/utensils/\(id.text)")
        }
        router.post("/utensils/:id/category") { request, context in
            let user = try access.requireUser(request)
            let id = try Self.id(context)
            let form = try await Self.form(request, context: context)
            // An empty field takes the utensil out of any category (`set-category ID --none`).
            let category = form["category"].flatMap { $0.isEmpty ? nil : $0 }
            let moved = try await backend.answer(.setCategory(id.text, to: category), webUser: user).payload()
            return try JSONReply.change(request, moved, otherwise: "/utensils/\(id.text)")
        }
        router.post("/utensils/:id/restore") { request, context in
            let user = try access.requireUser(request)
            let id = try Self.id(context)
            let form = try await Self.form(request, context: context)
            let newName = form["as"].flatMap { $0.isEmpty ? nil : $0 }
            let restored = await backend.answer(.restore(id.text, as: newName), webUser: user)
            if case .failure(let error) = restored, error.code == .duplicateName {
                // The store's sentence names `utensilctl restore --as`; here the field is the way.
                throw WebProblem(.conflict, .duplicateName, Self.nameTakenOnRestore)
            }
            return try JSONReply.change(request, try restored.payload(), otherwise: "/utensils/\(id.text)")
        }
        router.post("/utensils/:id/delete") { request, context in
            let user = try access.requireUser(request)
            let id = try Self.id(context)
            let trashed = try await backend.answer(.delete(id.text), webUser: user).payload()
            // To the gallery, which offers to undo it (``GalleryPage/undo``).
            return try JSONReply.change(request, trashed, otherwise: "/?deleted=\(id.text)")
        }
        for (action, favorite) in [("favorite", true), ("unfavorite", false)] {
            // The star on a utensil: the signed-in user's own mark; back to the page it was on.
            router.post("/utensils/:id/\(action)") { request, context in
                let user = try access.requireUser(request)
                let id = try Self.id(context)
                let form = try await Self.form(request, context: context)
                let call: ControlCall<UtensilInfo> = favorite ? .favorite(id.text) : .unfavorite(id.text)
                let marked = try await backend.answer(call, webUser: user).payload()
                return try JSONReply.change(request, marked, otherwise: Self.back(form["back"], otherwise: "/utensils/\(id.text)"))
            }
        }
        // A category as a whole, from the form on the category's view of the gallery.
        router.post("/categories/rename") { request, context in
            let user = try access.requireUser(request)
            let form = try await Self.form(request, context: context)
            let change = try await backend.answer(
                .categoryRename(form["category"] ?? "", to: form["name"] ?? ""), webUser: user).payload()
            return Response.redirect(to: "/" + HTML.query([("category", change.to)]), type: .normal)
        }
        router.post("/categories/delete") { request, context in
            let user = try access.requireUser(request)
            let form = try await Self.form(request, context: context)
            _ = try await backend.answer(.categoryDelete(form["category"] ?? ""), webUser: user).payload()
            return Response.redirect(to: "/", type: .normal)
        }
        // A phone's share sheet (the web manifest's `share_target`): the shared photos go into
        // the inbox as an upload does, then to the gallery, which says how many went.
        router.post("/share") { request, _ in
            let user = try access.requireUser(request)
            let outcomes = try await uploads.withSlot(for: user) { try await upload(request, user: user) }
            let sent = outcomes.filter { $0.status == "accepted" }.count
            return Response.redirect(to: "/" + HTML.query([("shared", String(sent)), ("refused", String(outcomes.count - sent))]), type: .normal)
        }
        router.post("/api/v1/uploads") { request, _ in
            let user = try access.requireUser(request)
            return try await uploads.withSlot(for: user) {
                try JSONReply.response(["files": try await upload(request, user: user)])
            }
        }
    }

    /// Streams a multipart body into the inbox, file by file; each file is closed once written.
    func upload(_ request: Request, user: String) async throws -> [InboxUpload.Outcome] {
        let filesPerRequest = uploads.limits.filesPerRequest
        guard let boundary = request.headers[.contentType].flatMap(MultipartParser.boundary(fromContentType:)),
              var parser = MultipartParser(boundary: boundary)
        else {
            throw WebProblem(.unsupportedMediaType, .badRequest, "Send the photos as multipart/form-data, as a browser's file upload does.")
        }
        let limit = backend.maxFileBytes * filesPerRequest + 1_000_000
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw WebProblem(.contentTooLarge, .requestTooLarge,
                "The upload is larger than \(filesPerRequest) files of max_file_bytes; send fewer or smaller photos.")
        }
        guard reserve.allows("an upload") else { throw Self.shortOfDescriptors }
        var upload = InboxUpload(backend: backend, user: user)
        var category: String?
        var fieldName: String?
        var fieldValue: [UInt8] = []
        var received = 0
        var files = 0
        do {
            for try await chunk in request.body {
                received += chunk.readableBytes
                guard received <= limit else {
                    throw WebProblem(.contentTooLarge, .requestTooLarge,
                        "The upload is larger than \(filesPerRequest) files of max_file_bytes; send fewer or smaller photos.")
                }
                for event in try parser.feed(chunk.readableBytesView) {
                    switch event {
                    case .part(let headers):
                        let disposition = headers["content-disposition"] ?? ""
                        if let fileName = MultipartParser.parameter("filename", in: disposition) {
                            files += 1
                            guard files <= filesPerRequest else {
                                throw WebProblem(.contentTooLarge, .requestTooLarge,
                                    "One upload takes at most \(filesPerRequest) files; send the rest in another.")
                            }
                            guard reserve.allows("an upload's file") else { throw Self.shortOfDescriptors }
                            upload.begin(fileName: fileName, category: category)
                        } else {
                            fieldName = MultipartParser.parameter("name", in: disposition)
                            fieldValue = []
                        }
                    case .data(let bytes):
                        if fieldName != nil {
                            fieldValue += bytes
                            guard fieldValue.count <= 1024 else { throw WebProblem.badRequest("A form field is longer than 1 KiB.") }
                        } else {
                            upload.write(bytes)
                        }
                    case .partEnd:
                        if fieldName == "category" {
                            guard files == 0 else {
                                throw WebProblem.badRequest("Send the category field before the files it applies to.")
                            }
                            let text = String(decoding: fieldValue, as: UTF8.self)
                            guard text.count <= 100 else { throw WebProblem.badRequest("A category name has at most 100 characters.") }
                            category = text
                        }
                        if fieldName == nil { upload.end() }
                        fieldName = nil
                    }
                }
            }
            guard parser.isFinished else { throw MultipartParser.Failure.malformed("the body ends before its closing boundary") }
            guard files > 0 else {
                throw WebProblem.badRequest("The upload holds no file (a part with a filename); choose at least one photo.")
            }
        } catch let failure as MultipartParser.Failure {
            upload.abandon()
            guard case .malformed(let what) = failure else { throw failure }
            throw WebProblem.badRequest("The upload is not valid multipart/form-data (\(what)); send it as a browser's file upload does.")
        } catch {
            upload.abandon()
            throw error
        }
        return upload.commit()
    }

    /// The `503` of an upload while the daemon is short of descriptors (``DescriptorReserve``).
    static var shortOfDescriptors: WebProblem {
        var problem = WebProblem(.serviceUnavailable, .busy,
            "The daemon is short of file descriptors, so the gallery takes no upload now; try again in a minute.")
        problem.headers[.retryAfter] = "60"
        return problem
    }

    /// A 429 sign-in page saying `message`, with `Retry-After`.
    static func tooMany(_ message: String, retryAfter seconds: Int) -> Response {
        var response = HTML.response(LoginPage(message: message, signedIn: nil).render(), status: .tooManyRequests)
        response.headers[.retryAfter] = String(seconds)
        return response
    }

    /// Where a form sends the browser back to: a path of this site (`/…`, never `//host` or a
    /// backslash, which browsers read as another site), else `otherwise`.
    static func back(_ path: String?, otherwise: String) -> String {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("\\"),
              !path.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return otherwise }
        return path
    }

    static func id(_ context: GalleryRequestContext) throws -> UtensilID {
        guard let segment = context.parameters.get("id"), let id = UtensilID(segment) else { throw WebProblem.notFound }
        return id
    }

    /// An `application/x-www-form-urlencoded` body of at most 16 KiB.
    static func form(_ request: Request, context: GalleryRequestContext) async throws -> QueryItems {
        var request = request
        let body = try await request.collectBody(upTo: 16 * 1024)
        guard let items = QueryItems(String(buffer: body)) else {
            throw WebProblem.badRequest("The form is not valid; send it from the gallery's page.")
        }
        return items
    }
}
