extension ControlCommand {
    /// `retry`: one rejected file (`file`), or every one (`"all": true`), back into the inbox.
    public static let retry = ControlCommand(
        "retry", replyKey: "retried", access: .changes,
        decode: { arguments in
            guard try arguments.flag("all") else {
                return .retry(file: try arguments.required("file", "a file name in the rejected folder, or \"all\": true"))
            }
            guard try arguments.optional("file") == nil else {
                throw ControlError(.badRequest, "Retry takes either a file or \"all\", not both.")
            }
            return .retryAll
        },
        encode: { request, arguments in
            switch request {
            case .retry(let file): try arguments.write(file, "file")
            case .retryAll: try arguments.flag(true, "all")
            default: break
            }
        })
}

extension ControlCall where Reply == RetryOutcome {
    public static func retry(file: String) -> Self { Self(.retry(file: file)) }
    public static var retryAll: Self { Self(.retryAll) }
}
