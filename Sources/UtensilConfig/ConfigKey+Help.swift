extension ConfigKey {
    /// One sentence for `--help` and the example file: what the key means and which values it takes.
    public var help: String {
        switch self {
        case .inbox:
            "The watched folder people drop photos into (absolute path)."
        case .rejected:
            "Where failed drops go, each beside a .error.json sidecar (absolute path; default: the folder \"rejected\" beside inbox)."
        case .stateDir:
            "Holds the lock and recovery's files, utensils.sqlite with catalog = \"sqlite\", and with storage = \"local\" originals/, thumbnails/, previews/ and squares/ (absolute path)."
        case .controlSocket:
            "The Unix socket utensilctl talks to (absolute path, at most \(Limits.socketPathBytes) bytes)."
        case .socketMode:
            "Permission bits of the control socket, in octal: \"0660\", 0o660 or 660 (at most 0777)."
        case .workers:
            "Parallel ingests, \(Limits.workers.lowerBound) to \(Limits.workers.upperBound); 0 means one per CPU core."
        case .thumbnailSize:
            "Thumbnail edge in pixels (thumbnails are square), \(Limits.thumbnailSize.lowerBound) to \(Limits.thumbnailSize.upperBound)."
        case .thumbnailQuality:
            "JPEG quality of thumbnails, \(Limits.thumbnailQuality.lowerBound) to \(Limits.thumbnailQuality.upperBound)."
        case .maxFileBytes:
            "Drops larger than this many bytes are rejected as too-large (greater than 0)."
        case .maxPixels:
            "Images with more pixels are rejected as too-many-pixels before decoding (greater than 0)."
        case .memoryBudget:
            "Bytes that reading and decoding drops may hold across all workers (a drop waits for its share; one needing more than all is too-many-pixels); at least \(Limits.memoryBudget.lowerBound >> 20) MiB."
        case .duplicateNames:
            "\"reject\", \"allow\" or \"replace\" (the existing utensil's photo) a drop whose name matches an existing utensil's (ignoring case)."
        case .duplicateContent:
            "\"reject\" or \"allow\" a drop with the same bytes as an existing utensil."
        case .nearDuplicates:
            "A drop whose photo looks like a copy of an existing utensil's (re-encoded, resized, converted, rotated, slightly cropped): \"warn\" ingests it and records which utensil it resembles, \"reject\" rejects it as near-duplicate, \"off\" does neither."
        case .trashDays:
            "Deleted utensils stay in the trash this many days before they are purged; 0 deletes at once, at most \(Int(Limits.trashDaysMaximum)), fractions allowed."
        case .settleSeconds:
            "A drop is taken once its size and mtime have been unchanged this long; 0 to \(Int(Limits.settleSecondsMaximum)), fractions allowed."
        case .watch:
            "\"inotify\", \"poll\" or \"auto\" (poll where the inbox is on a network or FUSE filesystem)."
        case .rescanSeconds:
            "Full rescan of the inbox this often, as a safety net; greater than 0, at most \(Int(Limits.rescanSecondsMaximum))."
        case .logLevel:
            "Least severe level logged: " + LogLevelName.allCases.map(\.rawValue).joined(separator: ", ") + "."
        case .logFormat:
            "\"auto\" (journald when it is there, else plain lines on stderr), \"plain\" (lines on stderr) or \"json\" (one JSON object a line on stderr, the journal's fields as keys)."
        case .webListen:
            "Where the web gallery listens: \"HOST:PORT\" (\"[::1]:8180\" for IPv6), \"unix:PATH\" for a reverse proxy, or \"\" for off."
        case .webUsersFile:
            "Users who may change things through the web gallery, one name:bcrypt-hash a line; utensilctl web-user manages it (absolute path)."
        case .webHosts:
            "Host header names the web gallery also answers to (a reverse proxy's public name), besides its listen address, localhost, 127.0.0.1 and [::1]; any other Host gets 421. A TOML array of strings; in the environment or a flag, names separated by commas."
        case .onIngest:
            "A program run (no shell) after each ingest, with the event's JSON on standard input (absolute path of an executable file; \"\" for none)."
        case .onReject:
            "A program run (no shell) after each rejection, with the event's JSON on standard input (absolute path of an executable file; \"\" for none)."
        case .hostName:
            "This host's name (the host label of its metrics, UTENSIL_HOST of its hooks): 1 to 63 of A-Z a-z 0-9 . -; \"\" means the machine's host name."
        case .catalog:
            "Where the catalog lives: \"sqlite\" (utensils.sqlite in state_dir) or a PostgreSQL URL without a password, \"postgresql://USER@HOST:PORT/DB\" or \"postgresql://USER@/DB?host=/run/postgresql\" (a Unix socket)."
        case .storage:
            "Where originals, thumbnails, previews and grid squares live: \"local\" (under state_dir) or \"s3://BUCKET/PREFIX\", an S3-compatible bucket (the prefix may be empty). With s3://, storage_endpoint is required and --check-config asks the server."
        case .storageEndpoint:
            "The S3 API's base URL (\"https://s3.example.org\", \"http://127.0.0.1:8333\"); required with an s3:// storage; requests are path-style."
        case .storageRegion:
            "The region the requests to the bucket are signed for (AWS Signature Version 4)."
        case .storageCredentialsFile:
            "A file with the lines AWS_ACCESS_KEY_ID=… and AWS_SECRET_ACCESS_KEY=… (absolute path; \"\" for none, then the systemd credential storage-credentials, else those environment variables)."
        case .catalogPasswordFile:
            "A file holding the PostgreSQL password on its first line (absolute path; \"\" for none, then the systemd credential catalog-password is used when the unit passes one)."
        case .hookTimeoutSeconds:
            "A hook still running after this many seconds is stopped (SIGTERM to its process group, SIGKILL \(Int(Limits.hookStopGraceSeconds)) seconds later); greater than 0, at most \(Int(Limits.hookTimeoutSecondsMaximum)), fractions allowed."
        }
    }
}
