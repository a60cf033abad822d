import Foundation
import Testing
import UtensilStorageS3

/// Where the bucket's keys come from: the configured file, systemd's credential, or the
/// environment, in that order; and what a person is told when they are not right.
@Suite("Storage credentials")
struct S3CredentialsSourceTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("s3-credentials-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("a file's two lines, with comments, blank lines and quotes")
    func file() throws {
        let parsed = try S3CredentialsSource.parse(
            "# the bucket's keys\n\nAWS_ACCESS_KEY_ID=AKID\nAWS_SECRET_ACCESS_KEY = \"se=cr/et\"\n", path: "f")
        #expect(parsed == S3Credentials(accessKeyID: "AKID", secretAccessKey: "se=cr/et"))
    }

    @Test("the configured file first, then systemd's credential, then the environment")
    func order() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configured = folder.appendingPathComponent("configured").path
        try "AWS_ACCESS_KEY_ID=file\nAWS_SECRET_ACCESS_KEY=s1\n".write(toFile: configured, atomically: true, encoding: .utf8)
        try "AWS_ACCESS_KEY_ID=systemd\nAWS_SECRET_ACCESS_KEY=s2\n"
            .write(toFile: folder.appendingPathComponent("storage-credentials").path, atomically: true, encoding: .utf8)
        let environment = [
            "CREDENTIALS_DIRECTORY": folder.path, "AWS_ACCESS_KEY_ID": "env", "AWS_SECRET_ACCESS_KEY": "s3",
        ]
        #expect(try S3CredentialsSource.load(file: configured, environment: environment).accessKeyID == "file")
        #expect(try S3CredentialsSource.load(file: "", environment: environment).accessKeyID == "systemd")
        var withoutSystemd = environment
        withoutSystemd["CREDENTIALS_DIRECTORY"] = folder.appendingPathComponent("elsewhere").path
        #expect(try S3CredentialsSource.load(file: "", environment: withoutSystemd).accessKeyID == "env")
        #expect(throws: S3CredentialsError.noCredentials) { try S3CredentialsSource.load(file: "", environment: [:]) }
    }

    @Test("a missing key, a line that is not NAME=value and an unreadable file are named, never a secret")
    func refusals() throws {
        #expect(throws: S3CredentialsError.missing(path: "f", name: "AWS_SECRET_ACCESS_KEY")) {
            try S3CredentialsSource.parse("AWS_ACCESS_KEY_ID=AKID\n", path: "f")
        }
        #expect(throws: S3CredentialsError.malformedLine(path: "f", line: 2)) {
            try S3CredentialsSource.parse("AWS_ACCESS_KEY_ID=AKID\nhunter2\n", path: "f")
        }
        let missing = "/nonexistent/\(UUID().uuidString)"
        #expect {
            try S3CredentialsSource.read(missing)
        } throws: { error in
            guard case .unreadable(let path, _) = error as? S3CredentialsError else { return false }
            return path == missing
        }
        #expect(!"\(S3CredentialsError.malformedLine(path: "f", line: 2))".contains("hunter2"))
    }
}
