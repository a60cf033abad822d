// swift-tools-version: 6.2
import PackageDescription

/// Targets split where a dependency or a trust boundary splits:
/// - `UtensilCodec` is the only code that touches libturbojpeg, libspng, libheif and libwebp
///   (bytes in, pixels out).
/// - `UtensilCatalogModel` is the catalog seam: the `CatalogBackend` protocol, its value types
///   and its refusals, with no database dependency.
/// - `UtensilCatalogSQLite` is the SQLite backend behind it, the only code that touches GRDB / SQLite.
/// - `UtensilCore` is the shared vocabulary (names, rejection reasons) with no dependencies.
/// - `UtensilStore` is the store: the one owner of a utensil's row and renditions, and backup.
/// - `UtensilIngest` is the engine: where a drop becomes a utensil.
/// - `UtensilConfig` reads the layered configuration (TOML file, environment, flags).
let package = Package(
    name: "utensild",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "utensild", targets: ["utensild"]),
        .executable(name: "utensilctl", targets: ["utensilctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        // No default traits: the gallery needs neither swift-configuration nor full Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", exact: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CSPNG", pkgConfig: "spng",
            providers: [.apt(["libspng-dev"])]),
        .systemLibrary(
            name: "CHeif", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(
            name: "CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        .target(name: "CUtensilSupport"),
        .target(
            name: "UtensilSystemd",
            dependencies: ["CSystemd", "UtensilCore", .product(name: "Logging", package: "swift-log")]),
        .target(name: "UtensilWatch", dependencies: ["UtensilCore", "CUtensilSupport"]),
        .target(name: "UtensilControlProtocol", dependencies: ["UtensilCore"]),
        .executableTarget(
            name: "utensilctl",
            dependencies: [
                "UtensilControlProtocol", "UtensilCore", "UtensilWebUsers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .target(
            name: "UtensilControlServer",
            dependencies: [
                "UtensilControlProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The web users file (name:bcrypt-hash lines), shared by utensild and utensilctl; bcrypt
        // is a small C target, so utensilctl stays free of NIO and Hummingbird.
        .target(
            name: "UtensilWebUsers",
            dependencies: [.product(name: "HummingbirdBcrypt", package: "hummingbird-auth")]),
        // The web gallery: pages, the JSON API, files and uploads over HTTP (Hummingbird).
        .target(
            name: "UtensilWeb",
            dependencies: [
                "UtensilControlProtocol", "UtensilCore", "UtensilConfig", "UtensilWebUsers", "CUtensilSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]),
        // The daemon's metrics: a Prometheus registry it owns (no global MetricsSystem), served as
        // GET /metrics; the web gallery records its requests through swift-metrics' API only.
        .target(
            name: "UtensilMetrics",
            dependencies: [
                "UtensilCatalogModel",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]),
        .target(
            name: "UtensilDaemon",
            dependencies: [
                "UtensilMetrics",
                "UtensilIngest", "UtensilConfig", "UtensilWatch", "UtensilSystemd", "UtensilCodec",
                "UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilCore", "UtensilControlProtocol", "UtensilControlServer", "UtensilWeb", "CUtensilSupport",
                "UtensilStorage", "UtensilStorageS3", "UtensilStore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "UtensilCore"),
        // Perceptual fingerprints of photos and their near-neighbour look-ups; the scan of many
        // fingerprints is a small portable C kernel (POPCNT chosen at run time).
        .target(name: "CFingerprintScan"),
        .target(name: "UtensilLookalike", dependencies: ["CFingerprintScan"]),
        // The codec's C side for libheif: a plugin that holds its HEVC and AV1 decoders to the
        // size the file declares.
        .target(name: "CHeifGuard", dependencies: ["CHeif"]),
        .target(
            name: "UtensilCodec",
            dependencies: ["CTurboJPEG", "CSPNG", "CHeif", "CHeifGuard", "CWebP"],
            // Optimised in debug builds too: unoptimised, its pixel loops (resampling, planes,
            // orientation) run about 25 times slower, and every test that ingests real photos
            // through a debug utensild pays for it. Its checks are preconditions, which -O keeps.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // The catalog seam (docs/ARCHITECTURE.md, "The catalog seam"): what the store asks of a
        // catalog, in its own value types; no database dependency.
        .target(name: "UtensilCatalogModel", dependencies: ["UtensilCore"]),
        // sqlite3_db_config (variadic) for a connection to a file not trusted: a backup's catalog.
        .systemLibrary(name: "CSQLiteGuard", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The SQLite backend (GRDB).
        .target(
            name: "UtensilCatalogSQLite",
            dependencies: [
                "UtensilCatalogModel", "UtensilCore", "CSQLiteGuard", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // The PostgreSQL catalog (several hosts, one catalog): the only code that touches
        // postgres-nio: its connection, check, schema migrations and PostgresCatalog.
        .target(
            name: "UtensilCatalogPostgres",
            dependencies: [
                "UtensilCatalogModel", "UtensilCore", "UtensilConfig", "UtensilControlProtocol",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "UtensilConfig",
            dependencies: ["TOMLKit", "UtensilCore"]),
        // Where a utensil's renditions are kept: the seam (RenditionStorage) and the local
        // folder that keeps them (LocalFolderStorage, HeldFolder, FileOps); no catalog, no GRDB.
        .target(name: "UtensilStorage", dependencies: ["UtensilCore", "CUtensilSupport"]),
        // The storage seam kept in an S3-compatible bucket: our own SigV4 signing, an S3 client
        // over async-http-client, and S3Storage; the only code that speaks S3.
        .target(
            name: "UtensilStorageS3",
            dependencies: [
                "UtensilStorage", "UtensilCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The store: the one owner of the catalog and the storage (UtensilStore), the settings,
        // the drop's vocabulary and the fault injection it shares with the engine, and backup.
        .target(
            name: "UtensilStore",
            dependencies: [
                "UtensilCore", "UtensilCodec", "UtensilCatalogModel", "UtensilStorage", "UtensilLookalike",
                "CUtensilSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "UtensilIngest",
            dependencies: [
                "UtensilStore", "UtensilCore", "UtensilCodec", "UtensilCatalogModel", "UtensilStorage",
                "CUtensilSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // `utensild restore`: a backup into an empty catalog and state folder. Its own target, as
        // it alone needs both the state folder's layout and the SQLite backend (a backup's
        // catalog is a SQLite file), so that the store target depends on no backend.
        .target(
            name: "UtensilRestore",
            dependencies: [
                "UtensilStore", "UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilCore", "UtensilStorage",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "utensild",
            dependencies: [
                "UtensilIngest", "UtensilRestore", "UtensilCore", "UtensilConfig", "UtensilDaemon", "UtensilSystemd", "UtensilControlProtocol",
                "UtensilCatalogPostgres", "UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilStorage", "UtensilStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Less of the binary resident in every daemon (docs/PERFORMANCE.md, "Idle memory"):
            // lld with packed relative relocations (DT_RELR, glibc 2.36), so that the dynamic
            // loader reads a few kB of relocations instead of 1.6 MB (far more with the Swift
            // runtime linked in); and, with the runtime linked in (`--static-swift-stdlib`, as
            // installed), no table of the packages' 34,000 symbols for the loader to search; and
            // the functions a daemon runs first and together, in packaging/utensild.order's order
            // (make symbol-order writes it; it lays out only what was compiled with
            // -function-sections, as make install-build compiles: docs/PERFORMANCE.md, "The
            // binary's resident code").
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                     "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/packaging/utensild.order",
                     "-Xlinker", "--no-warn-symbol-ordering"],
                    .when(platforms: [.linux]))
            ]),
        // make bench's in-process figures (decode floor, engine CPU, search latency); not a product.
        .executableTarget(
            name: "utensil-bench",
            dependencies: [
                "UtensilIngest", "UtensilCodec", "UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilCore", "CTurboJPEG",
                "UtensilLookalike", "UtensilStorageS3", "UtensilCatalogPostgres", "UtensilConfig", "UtensilStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "UtensilCoreTests", dependencies: ["UtensilCore", "UtensilTestSupport"]),
        .testTarget(name: "UtensilCodecTests", dependencies: ["UtensilCodec"]),
        .testTarget(name: "UtensilLookalikeTests", dependencies: ["UtensilLookalike", "UtensilCodec"]),
        .testTarget(
            name: "UtensilCatalogSQLiteTests",
            dependencies: ["UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilCore", .product(name: "GRDB", package: "GRDB.swift")]),
        // The catalog contract (docs/ARCHITECTURE.md, "The catalog seam"): every rule of
        // CatalogBackend, run against every backend in CatalogBackends.all.
        .testTarget(
            name: "UtensilCatalogContractTests",
            dependencies: [
                "UtensilCatalogModel", "UtensilCatalogSQLite", "UtensilCore", "UtensilCatalogPostgres", "UtensilConfig", "UtensilTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The storage contract: every rule of RenditionStorage, run against every storage in
        // StorageBackends.all: a temporary folder, and a bucket of a private SeaweedFS.
        .testTarget(
            name: "UtensilStorageContractTests",
            dependencies: [
                "UtensilStorage", "UtensilStorageS3", "UtensilCore", "UtensilTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The SigV4 signing (AWS's test vectors, botocore) and the S3 client against a real
        // SeaweedFS (SeaweedServer).
        .testTarget(
            name: "UtensilStorageS3Tests",
            dependencies: [
                "UtensilStorageS3", "UtensilStorage", "UtensilCore", "UtensilTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(name: "UtensilConfigTests", dependencies: ["UtensilConfig", "UtensilTestSupport"]),
        .testTarget(
            name: "UtensilMetricsTests",
            dependencies: ["UtensilMetrics", "UtensilCatalogModel", "UtensilTestSupport", .product(name: "CoreMetrics", package: "swift-metrics")]),
        .testTarget(
            name: "UtensilSystemdTests",
            dependencies: ["UtensilSystemd", "UtensilCore", "UtensilTestSupport", "UtensilStore", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "UtensilWatchTests", dependencies: ["UtensilWatch", "UtensilCore", "UtensilTestSupport"]),
        .testTarget(name: "UtensilControlProtocolTests", dependencies: ["UtensilControlProtocol"]),
        .testTarget(
            name: "UtensilctlTests",
            dependencies: [
                "UtensilControlProtocol", "UtensilCore", "utensilctl", "UtensilTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Shared by the test targets: temporary worlds, real test images, the invariant check,
        // and running the real utensild binary. A test target (test targets may depend on one
        // another), so that no build of the products, release or not, compiles it.
        .testTarget(
            name: "UtensilTestSupport",
            dependencies: [
                "UtensilIngest", "UtensilStore", "UtensilCodec", "UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilCore", "UtensilStorageS3",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/UtensilTestSupport"),
        // The PostgreSQL catalog against a real server (PostgresServer: initdb in a temporary folder).
        .testTarget(
            name: "UtensilCatalogPostgresTests",
            dependencies: [
                "UtensilCatalogPostgres", "UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilCore", "UtensilConfig", "UtensilTestSupport",
                "UtensilStore", "UtensilStorageS3",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "UtensilIngestTests",
            dependencies: [
                "UtensilIngest", "UtensilStore", "UtensilRestore", "UtensilCodec", "UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilCore",
                "UtensilTestSupport", "UtensilStorage", "UtensilStorageS3", "UtensilCatalogPostgres", "UtensilConfig",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The gallery's routes and middleware driven in-process (HummingbirdTesting's router
        // client): no daemon spawned, no socket.
        .testTarget(
            name: "UtensilWebTests",
            dependencies: [
                "UtensilWeb", "UtensilControlProtocol", "UtensilConfig", "UtensilWebUsers", "UtensilCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "UtensildTests",
            dependencies: [
                "UtensilDaemon", "UtensilIngest", "UtensilCatalogSQLite", "UtensilCatalogModel", "UtensilCore", "UtensilWatch", "UtensilTestSupport",
                "UtensilControlProtocol", "UtensilControlServer", "UtensilWeb", "UtensilConfig", "UtensilStore", "UtensilStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
