import Foundation
import UtensilCatalogPostgres
import UtensilConfig

/// utensil-bench: the in-process figures of `make bench` (bench/run.py calls it).
///
///     utensil-bench cpu --work DIR [--rounds N] NAME=FOLDER ...
///         decode floor, codec, SHA-256 and engine CPU ms per image for each set of photos
///     utensil-bench square --work DIR [--rounds N] NAME=FOLDER ...
///         the grid square's share of the engine's CPU alone (`gridSquare` of cpu)
///     utensil-bench renditions --out DIR FOLDER ...
///         each photo's thumbnail, grid square and preview as the ingest makes them, written
///         to DIR, and its look-alike fingerprint on standard output (to compare two builds)
///     utensil-bench search --catalog DIR [--rows N] [--repeats N]
///         `list --search` latency through the real catalog code (the catalog is built once)
///     utensil-bench scale --state DIR --rows N --original JPEG --thumbnail JPEG
///         a state folder of N utensils with both files of each (built once; see ScaleCatalog)
///     utensil-bench postgres-rows --rows N [--host NAME]
///         the same N utensils as COPY text for a PostgreSQL catalog (see PostgresRows)
///     utensil-bench postgres-columns
///         the columns of those lines, comma-separated, for `COPY utensils (…) FROM STDIN`
///     utensil-bench lookalike-files --list FILE | lookalike-grey --file RAW [--side N]
///         | lookalike-pairs --file HEX --within D | lookalike-confirm --list PAIRS
///         look-alike fingerprints of photos (real codec) or of raw grey images, the pairs
///         within D among fingerprints, through the near-neighbour index, and the finer
///         confirmation of pairs of photos (bench/lookalike.py)
///     utensil-bench lookalike-catalog (--catalog DIR | --postgres HOST:PORT/DATABASE
///         --password-file FILE [--user NAME]) [--rows N] [--repeats N]
///         the catalog's look-up of near neighbours over N utensils, SQLite (a file in DIR,
///         made once) or PostgreSQL (the database migrated and filled here) (see LookalikeLatency);
///         --memory yes: the same fingerprints in memory (NearNeighbourIndex, a plain scan);
///         --held yes: through FingerprintMemory (loaded from the catalog, scanned, confirmed)
///     utensil-bench s3 --endpoint URL --bucket NAME --credentials FILE [--objects N] [--bytes N]
///         [--parallel N]
///         object-storage throughput and latency against a running server (see S3Throughput)
///
/// cpu, search and scale print one JSON document on standard output.
func main() async throws {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let command = arguments.first else { throw BenchError("usage: utensil-bench cpu|search …") }
    arguments.removeFirst()
    var options: [String: String] = [:]
    var positional: [String] = []
    while let argument = arguments.first {
        arguments.removeFirst()
        if argument.hasPrefix("--") {
            guard let value = arguments.first else { throw BenchError("\(argument) needs a value") }
            arguments.removeFirst()
            options[String(argument.dropFirst(2))] = value
        } else {
            positional.append(argument)
        }
    }
    switch command {
    case "cpu":
        guard let work = options["work"] else { throw BenchError("cpu needs --work DIR") }
        let sets = try positional.map { argument -> (name: String, folder: String) in
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw BenchError("a set is NAME=FOLDER, not \(argument)") }
            return (parts[0], parts[1])
        }
        try printJSON(try EngineCPU(work: work, rounds: Int(options["rounds"] ?? "3") ?? 3).run(sets: sets))
    case "square":
        guard let work = options["work"] else { throw BenchError("square needs --work DIR") }
        var results: [String: Any] = [:]
        for argument in positional {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw BenchError("a set is NAME=FOLDER, not \(argument)") }
            results[parts[0]] = try GridSquareShare(work: work, rounds: Int(options["rounds"] ?? "3") ?? 3)
                .measure(try readFiles([parts[1]]), set: parts[0])
        }
        try printJSON(results)
    case "renditions":
        guard let out = options["out"] else { throw BenchError("renditions needs --out DIR") }
        try RenditionDump.write(try readFiles(positional), to: out)
    case "search":
        guard let folder = options["catalog"] else { throw BenchError("search needs --catalog DIR") }
        try printJSON(try SearchLatency(
            folder: folder, rows: Int(options["rows"] ?? "100000") ?? 100_000,
            repeats: Int(options["repeats"] ?? "20") ?? 20).run())
    case "scale":
        guard let state = options["state"], let rows = options["rows"].flatMap({ Int($0) }),
              let original = options["original"], let thumbnail = options["thumbnail"]
        else { throw BenchError("scale needs --state DIR --rows N --original JPEG --thumbnail JPEG") }
        try printJSON(try ScaleCatalog(state: state, rows: rows, original: original, thumbnail: thumbnail).run())
    case "postgres-rows":
        guard let rows = options["rows"].flatMap({ Int($0) }) else { throw BenchError("postgres-rows needs --rows N") }
        PostgresRows(rows: rows, host: options["host"] ?? "bench-scale").run()
    case "postgres-columns":
        print(PostgresRows.columns.joined(separator: ", "))
    case "lookalike-files":
        guard let list = options["list"] else { throw BenchError("lookalike-files needs --list FILE") }
        try Lookalike.files(list: list)
    case "lookalike-confirm":
        guard let list = options["list"] else { throw BenchError("lookalike-confirm needs --list FILE") }
        try Lookalike.confirm(list: list)
    case "lookalike-grey":
        guard let file = options["file"] else { throw BenchError("lookalike-grey needs --file RAW") }
        try Lookalike.grey(file: file, side: Int(options["side"] ?? "32") ?? 32)
    case "lookalike-pairs":
        guard let file = options["file"], let within = options["within"].flatMap({ Int($0) })
        else { throw BenchError("lookalike-pairs needs --file HEX --within D") }
        try printJSON(try Lookalike.pairs(file: file, within: within))
    case "lookalike-catalog":
        let latency = LookalikeLatency(
            rows: Int(options["rows"] ?? "1000000") ?? 1_000_000, repeats: Int(options["repeats"] ?? "100") ?? 100,
            held: options["held"] == "yes")
        if options["memory"] == "yes" {
            try printJSON(latency.memory())
        } else if let folder = options["catalog"] {
            try printJSON(try await latency.sqlite(folder: folder))
        } else if let server = options["postgres"], let passwordFile = options["password-file"] {
            try printJSON(try await latency.postgres(
                settings: try postgresSettings(server, user: options["user"] ?? "utensil", passwordFile: passwordFile)))
        } else {
            throw BenchError("lookalike-catalog needs --catalog DIR or --postgres HOST:PORT/DATABASE --password-file FILE")
        }
    case "s3":
        guard let endpoint = options["endpoint"], let bucket = options["bucket"], let credentials = options["credentials"]
        else { throw BenchError("s3 needs --endpoint URL --bucket NAME --credentials FILE") }
        try printJSON(try S3Throughput(
            endpoint: endpoint, bucket: bucket, credentialsFile: credentials,
            objects: Int(options["objects"] ?? "40") ?? 40, size: Int(options["bytes"] ?? "4000000") ?? 4_000_000,
            parallel: Int(options["parallel"] ?? "4") ?? 4).run())
    default:
        throw BenchError("unknown command \(command); use cpu, search, scale, postgres-rows or postgres-columns")
    }
}

/// The settings of a PostgreSQL catalog at `HOST:PORT/DATABASE` over TCP without TLS (the
/// bench's own server on loopback), the password read from `passwordFile`.
func postgresSettings(_ server: String, user: String, passwordFile: String) throws -> PostgresCatalogSettings {
    let parts = server.split(separator: "/", maxSplits: 1).map(String.init)
    guard parts.count == 2, let colon = parts[0].lastIndex(of: ":"), let port = Int(parts[0][parts[0].index(after: colon)...])
    else { throw BenchError("--postgres is HOST:PORT/DATABASE, not \(server)") }
    let password = try String(contentsOfFile: passwordFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    return PostgresCatalogSettings(
        url: PostgresURL(user: user, server: .tcp(host: String(parts[0][..<colon])), port: port, database: parts[1], sslMode: .disable),
        password: password)
}

do {
    try await main()
} catch {
    FileHandle.standardError.write(Data("utensil-bench: \(error)\n".utf8))
    exit(1)
}
