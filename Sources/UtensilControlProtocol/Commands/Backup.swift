extension ControlCommand {
    /// `backup`: a consistent copy of the catalog and the files into a new folder (an absolute
    /// path); answered by progress lines under `backupProgressKey`, then the summary.
    public static let backup = ControlCommand(
        "backup", replyKey: "backup", access: .administers,
        decode: { arguments in
            let path = try arguments.required("destination", "the absolute path of the new backup folder")
            guard path.hasPrefix("/") else {
                throw ControlError(.badRequest, "The backup destination must be an absolute path, not \(path).")
            }
            return .backup(BackupDestination(
                path: path, parentDevice: try arguments.optional("parentDevice", as: UInt64.self),
                parentInode: try arguments.optional("parentInode", as: UInt64.self)))
        },
        encode: { request, arguments in
            guard case .backup(let destination) = request else { return }
            try arguments.write(destination.path, "destination")
            try arguments.writeIfPresent(destination.parentDevice, "parentDevice")
            try arguments.writeIfPresent(destination.parentInode, "parentInode")
        })
}

extension ControlCall where Reply == BackupInfo {
    /// Answered by `backupProgress` lines (`LineFraming.decodeBackupLine`), then the summary.
    public static func backup(_ destination: BackupDestination) -> Self { Self(.backup(destination)) }
}
