// swift-tools-version: 6.2
import PackageDescription

/// The image codec alone, for libFuzzer and the sanitizers (`make fuzz`, `make sanitize`).
///
/// Its targets are symbolic links to the main package's `Sources/UtensilCodec` (the four
/// system-library shims and the libheif size guard) and `Tests/UtensilCodecTests`, so that a sanitized build compiles
/// only the codec and its tests, not GRDB, NIO and the rest. `CodecFuzz` is the libFuzzer
/// target when built with `--sanitize=fuzzer -Xswiftc -DUTENSIL_LIBFUZZER`, and otherwise a
/// plain program that runs the same checks over the files it is given.
let package = Package(
    name: "utensil-codec-fuzz",
    platforms: [.macOS(.v15)],
    targets: [
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg"),
        .systemLibrary(name: "CSPNG", pkgConfig: "spng"),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif"),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux"),
        .target(name: "CHeifGuard", dependencies: ["CHeif"]),
        // Optimised in debug builds, as in the main package: the sanitizers' tests decode real
        // photos, which unoptimised pixel loops make minutes slower; AddressSanitizer checks
        // optimised code as well (the libFuzzer build is a release build).
        .target(
            name: "UtensilCodec", dependencies: ["CTurboJPEG", "CSPNG", "CHeif", "CHeifGuard", "CWebP"],
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .executableTarget(
            name: "CodecFuzz", dependencies: ["UtensilCodec"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .testTarget(name: "UtensilCodecTests", dependencies: ["UtensilCodec"]),
    ],
    swiftLanguageModes: [.v6]
)
