import Testing
@testable import UtensilConfig

/// The object-storage keys: `storage` as "local" or `s3://BUCKET/PREFIX`, the endpoint as a
/// base URL, the region's name, and an endpoint required with a bucket.
@Suite struct StorageSettingsTests {
    @Test func bucketsAndPrefixes() throws {
        let folder = try TemporaryFolder()
        #expect(try load(toml: "storage = \"s3://utensils\"\n", in: folder).storage == .s3(bucket: "utensils", prefix: ""))
        #expect(try load(toml: "storage = \"s3://utensils/\"\n", in: folder).storage == .s3(bucket: "utensils", prefix: ""))
        #expect(try load(toml: "storage = \"s3://my.bucket-1//site/photos/\"\n", in: folder).storage
            == .s3(bucket: "my.bucket-1", prefix: "site/photos"))
        #expect(StorageLocation.s3(bucket: "utensils", prefix: "site").description == "s3://utensils/site")
        for refused in ["s3://", "s3://ab", "s3://Utensils/x", "S3://utensils", "gs://utensils", "/srv/photos"] {
            let error = try loadError(toml: "storage = \(TOMLText.quoted(refused))\n", in: folder)
            #expect(error?.key == .storage, "\(refused)")
        }
    }

    @Test func endpointsAndRegions() throws {
        let folder = try TemporaryFolder()
        #expect(try load(toml: "storage_endpoint = \"https://s3.example.org/\"\n", in: folder).storageEndpoint == "https://s3.example.org/")
        for refused in ["ftp://s3.example.org", "https://", "https://s3.example.org/utensils", "http://user@host:80"] {
            #expect(try loadError(toml: "storage_endpoint = \(TOMLText.quoted(refused))\n", in: folder)?.key == .storageEndpoint, "\(refused)")
        }
        for refused in ["", "US-EAST-1", "eu west"] {
            #expect(try loadError(toml: "storage_region = \(TOMLText.quoted(refused))\n", in: folder)?.key == .storageRegion, "\(refused)")
        }
    }

    @Test func aBucketNeedsAnEndpoint() throws {
        let folder = try TemporaryFolder()
        let withoutEndpoint = try load(toml: "storage = \"s3://utensils/site\"\n", in: folder)
        let problem = try #require(withoutEndpoint.storageProblem)
        #expect(problem.key == .storageEndpoint)
        #expect(problem.description.contains("s3://utensils/site"))
        let complete = try load(toml: "storage = \"s3://utensils/site\"\nstorage_endpoint = \"http://127.0.0.1:8333\"\n", in: folder)
        #expect(complete.storageProblem == nil)
        #expect(UtensilConfiguration.defaults.storageProblem == nil)
    }

    @Test func aCredentialsFileMustExist() throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(toml: "storage_credentials_file = \"/nonexistent/storage-credentials\"\n", in: folder))
        #expect(error.key == .storageCredentialsFile)
        #expect(error.description.contains("AWS_ACCESS_KEY_ID"))
    }
}
