/// The statements that both a single call and a drop's combined look-ups run, written once,
/// each with its parameters numbered from `first` on: the rule each one keeps lives here alone.
enum PostgresLookupSQL {
    /// ``PostgresCatalog/claimDuty(_:for:now:until:)``: the row is taken when it is new, already
    /// this host's, or its lease ran out, and `holder` comes back only then. Concurrent claims
    /// queue on the row's lock. Its commit does not wait for the WAL flush (`synchronous_commit`
    /// off for this transaction alone): other hosts see the claim at once, and a claim that a
    /// server crash loses is only taken again, so it need not cost every drop a flush.
    /// Parameters: the duty, the host, until, now.
    static func claim(first: Int) -> String {
        let (duty, host, until, now) = ("$\(first)", "$\(first + 1)", "$\(first + 2)", "$\(first + 3)")
        return """
            INSERT INTO duties (name, holder, until)
            SELECT \(duty), \(host), \(until) FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
            WHERE duties.holder = excluded.holder OR duties.until < \(now)
            RETURNING holder
            """
    }

    /// ``PostgresCatalog/utensil(sameFileAs:)``: parameters as ``SameFileKeys`` binds them.
    static func sameFile(first: Int) -> String {
        let (identity, from, to) = ("$\(first)", "$\(first + 1)", "$\(first + 2)")
        return """
            SELECT \(UtensilColumns.list) FROM utensils
            WHERE source_key = \(identity) OR (source_key > \(from) AND source_key < \(to)) LIMIT 1
            """
    }

    /// ``PostgresCatalog/utensil(nameKey:)``: the name's claimant first, then the oldest.
    static func byName(first: Int) -> String {
        """
        SELECT \(UtensilColumns.list) FROM utensils WHERE name_key = $\(first) AND trashed_at IS NULL
        ORDER BY name_claim IS NULL, created_at LIMIT 1
        """
    }

    /// ``PostgresCatalog/utensil(sha256:)``: the photo's claimant first.
    static func byContent(first: Int) -> String {
        "SELECT \(UtensilColumns.list) FROM utensils WHERE sha256 = $\(first) ORDER BY content_claim IS NULL LIMIT 1"
    }
}
