import Foundation
import Hummingbird
import UtensilWebUsers

/// The signed-in user's own account: `GET /account` and `POST /account/password`, which
/// changes the password in `web_users_file`: a new bcrypt hash written over the old one in
/// the file itself (see ``WebUsersFile/replaceHash(of:from:to:in:)``). Every other session of
/// the user ends; the one that asked gets a new token and stays signed in.
struct AccountRoutes: Sendable {
    static let minimumPasswordLength = 8

    let access: Access
    let throttle: LoginThrottle
    let passwordChecks: PasswordChecks

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/account") { request, _ in
            guard let user = access.user(request) else { return Response.redirect(to: "/login", type: .normal) }
            return HTML.response(AccountPage(user: user, message: nil).render())
        }
        router.post("/account/password") { request, context in
            let user = try access.requireUser(request)
            let form = try await ChangeRoutes.form(request, context: context)
            let old = form["old"] ?? ""
            let new = form["new"] ?? ""
            func refuse(_ message: String, _ status: HTTPResponse.Status) -> Response {
                HTML.response(AccountPage(user: user, message: message, isProblem: true).render(), status: status)
            }
            guard new.count >= Self.minimumPasswordLength else {
                return refuse("A web password needs at least \(Self.minimumPasswordLength) characters; choose a longer one.", .badRequest)
            }
            guard new == form["again"] else { return refuse("The two new passwords differ; type them again.", .badRequest) }
            // The old password is guessed no faster here than at /login.
            if case .wait(let seconds) = throttle.reserve(account: user, address: context.remoteAddress) {
                var response = refuse("Too many wrong passwords; wait \(seconds) seconds and try again.", .tooManyRequests)
                response.headers[.retryAfter] = String(seconds)
                return response
            }
            let usersFile = access.usersFile
            let outcome: PasswordChange
            do {
                outcome = try await passwordChecks.run { Self.change(user, from: old, to: new, in: usersFile) }
            } catch {
                return refuse("Too many people are signing in at once; try again in a few seconds.", .tooManyRequests)
            }
            switch outcome {
            case .wrongPassword:
                throttle.failed(account: user, address: context.remoteAddress)
                return refuse("That is not your current password; type it again.", .forbidden)
            case .notWritten(let problem):
                throttle.succeeded(account: user, address: context.remoteAddress)
                return refuse(
                    "utensild could not save the new password (\(problem)); ask an administrator to run: sudo utensilctl web-user add \(user)",
                    .internalServerError)
            case .changed(let generation):
                throttle.succeeded(account: user, address: context.remoteAddress)
                access.sessions.closeAll(of: user)
                let token = access.sessions.open(for: user, generation: generation)
                var response = HTML.response(AccountPage(
                    user: user, message: "Your password is changed. You are still signed in here; every other session has ended."
                ).render())
                response.headers[.setCookie] = Access.cookie(token: token, request: request)
                return response
            }
        }
    }

    enum PasswordChange: Sendable {
        /// The new hash: the sessions' generation from now on.
        case changed(String)
        case wrongPassword
        case notWritten(String)
    }

    /// Checks `old` and writes a new hash of `new` for `user` (bcrypt twice: on the
    /// password-check threads).
    static func change(_ user: String, from old: String, to new: String, in file: TrustedUsersFile) -> PasswordChange {
        let path = file.path
        guard let users = file.users, let entry = users.entry(named: user),
            users.verify(user, password: old)
        else { return .wrongPassword }
        var changed = users
        changed.set(user, password: new)
        guard let hash = changed.entry(named: user)?.hash else { return .wrongPassword }
        do {
            // In place: utensild needs write access to the file only, not to its folder.
            guard try WebUsersFile.replaceHash(of: user, from: entry.hash, to: hash, in: path) else { return .wrongPassword }
        } catch {
            return .notWritten(error.isPermissionDenied ? "it may not write \(path)" : "\(error)")
        }
        return .changed(hash)
    }
}
