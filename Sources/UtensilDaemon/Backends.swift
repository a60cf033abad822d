import Glibc
import Logging
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilConfig
import UtensilStorage
import UtensilStorageS3
import UtensilStore

/// What the one store runs on: where the rows are (the catalog), how the hosts sharing it hear
/// of each other's changes, and where the renditions are (the storage). The configuration
/// chooses each in one place: the executable's `Backends.open` for the daemon and `--oneshot`,
/// or ``local(_:logger:faults:)`` for what needs no server.
public struct Backends: Sendable {
    /// The rows behind the store.
    public let catalog: any CatalogBackend
    /// How this host and the others sharing ``catalog`` tell each other of their changes; nil
    /// for a catalog of one host.
    public let changeFeed: (any CatalogChangeFeed)?
    /// Where the utensils' originals, thumbnails and previews are kept.
    public let storage: any RenditionStorage

    /// Opens the backends for these settings (``local(_:logger:faults:)``, or those of a
    /// catalog server the caller runs).
    public typealias Opener = @Sendable (IngestSettings, Logger) throws -> Backends

    public init(catalog: any CatalogBackend, changeFeed: (any CatalogChangeFeed)?, storage: any RenditionStorage) {
        self.catalog = catalog
        self.changeFeed = changeFeed
        self.storage = storage
    }

    /// The SQLite catalog in `state_dir` (its file made private first) and `storage`, by
    /// default the local folder (``storage(_:faults:)``).
    public static func local(
        _ settings: IngestSettings, logger: Logger, storage: (any RenditionStorage)? = nil,
        faults: FaultInjection = .fromEnvironment()
    ) throws -> Backends {
        StatePermissions.tighten(settings, sqliteCatalog: true, logger: logger)
        return Backends(
            catalog: try SQLiteCatalog(path: settings.catalogPath), changeFeed: nil,
            storage: storage ?? Self.storage(settings, faults: faults))
    }

    /// The storage of the renditions in the local folder `state_dir`.
    public static func storage(_ settings: IngestSettings, faults: FaultInjection = .fromEnvironment()) -> any RenditionStorage {
        UtensilStore.localStorage(settings, faults: faults)
    }

    /// The storage of the renditions `configuration` names (`storage`): the local folder
    /// `state_dir`, or an S3-compatible bucket at `storage_endpoint` with the keys of
    /// ``S3CredentialsSource`` (`storage_credentials_file`, else the systemd credential, else
    /// the environment). Nothing is asked of the server here: the store's start checks it.
    public static func storage(
        _ configuration: UtensilConfiguration, settings: IngestSettings, environment: [String: String],
        faults: FaultInjection = .fromEnvironment()
    ) throws(StorageChoiceError) -> any RenditionStorage {
        guard case .s3(let bucket, let prefix) = configuration.storage else { return storage(settings, faults: faults) }
        return try bucketStorage(configuration, bucket: bucket, prefix: prefix, hostName: settings.hostName, environment: environment)
    }

    /// `--check-config` with an `s3://` storage: opens it and asks the server whether the bucket
    /// is there and takes the keys. Returns the lines to print (TOML comments), none for a
    /// local folder; throws what is wrong (endpoint unreachable, keys refused, bucket missing).
    public static func checkStorage(
        _ configuration: UtensilConfiguration, environment: [String: String]
    ) async throws(StorageChoiceError) -> [String] {
        guard case .s3(let bucket, let prefix) = configuration.storage else { return [] }
        let storage = try bucketStorage(
            configuration, bucket: bucket, prefix: prefix, hostName: configuration.effectiveHostName, environment: environment)
        do throws(S3Error) {
            try await storage.client.withTimeout(.seconds(10)).checkBucket()
        } catch {
            throw .server(error)
        }
        return [
            "# storage: \(storage.location) at \(configuration.storageEndpoint) answers and takes the keys",
            "# storage: keys from \(credentialsOrigin(configuration.storageCredentialsFile, environment: environment))",
        ]
    }

    private static func bucketStorage(
        _ configuration: UtensilConfiguration, bucket: String, prefix: String, hostName: String,
        environment: [String: String]
    ) throws(StorageChoiceError) -> S3Storage {
        let credentials: S3Credentials
        do throws(S3CredentialsError) {
            credentials = try S3CredentialsSource.load(file: configuration.storageCredentialsFile, environment: environment)
        } catch {
            throw .credentials(error)
        }
        do throws(S3Error) {
            let client = try S3Client(
                endpoint: configuration.storageEndpoint, bucket: bucket, region: configuration.storageRegion,
                credentials: credentials)
            return S3Storage(client: client, location: S3Location(bucket: bucket, prefix: prefix), hostName: hostName)
        } catch {
            throw .server(error)
        }
    }

    /// Where ``S3CredentialsSource/load(file:environment:)`` takes the keys from, in words.
    private static func credentialsOrigin(_ file: String, environment: [String: String]) -> String {
        if !file.isEmpty { return "storage_credentials_file \(file)" }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
           access(directory + "/" + S3CredentialsSource.credentialName, F_OK) == 0 {
            return "the systemd credential \(S3CredentialsSource.credentialName)"
        }
        return "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
    }
}

/// Why the storage the configuration names cannot be opened or used.
public enum StorageChoiceError: Error, Sendable, CustomStringConvertible {
    /// The bucket's keys cannot be read (no file, an unreadable or malformed one, none at all).
    case credentials(S3CredentialsError)
    /// The endpoint is unusable, or the server refused or did not answer (which, in the words
    /// of ``S3Error``).
    case server(S3Error)

    public var description: String {
        switch self {
        case .credentials(let error): "storage: \(error)"
        case .server(let error): "storage: \(error)"
        }
    }
}
