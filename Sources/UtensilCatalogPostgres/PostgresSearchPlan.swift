/// How ``PostgresCatalog`` finds a page of a search that no other filter narrows: by walking
/// the listing order, or by gathering every match and sorting them.
///
/// The walk reads the covering listing index (`utensils_listing_by_name` or `_by_date`: sort
/// value, id and `search_key` of every utensil not in the trash) and tests each name there,
/// without reading its row: about 0.16 µs an entry at a million utensils, so a term whose
/// matches are spread through the order fills its page after `limit / density` entries.
/// Gathering goes through the trigram index and reads each match's row (to test the name
/// again and to sort it): about 1 µs a match.
///
/// PostgreSQL cannot count a term's matches without reading their rows (a trigram index only
/// names candidates), and the planner's estimate for such a pattern can be off a hundredfold,
/// so a search walks first, at most ``walkAtMost`` entries, and gathers every match only when
/// that does not fill its page: a selective term, or a dense one whose matches all lie far
/// along the order (names that share a prefix sit together: every "… whisk" after a third of
/// the names). The bound caps what the walk costs a selective term.
public struct PostgresSearchPlan: Sendable, Equatable {
    /// Index entries a walk looks at before it gives up and every match is gathered.
    public var walkAtMost: Int

    public init(walkAtMost: Int) {
        self.walkAtMost = max(1, walkAtMost)
    }

    /// Measured at 1,000,000 utensils on a quiet machine (`BENCH_SCALE=1m make
    /// bench-postgres`): a walk of 50,000 entries takes about 8 ms; gathering the 16,668
    /// matches of a term about 17 ms, the 83,335 of another about 110 ms (which the walk
    /// answers in 10 ms).
    public static let standard = PostgresSearchPlan(walkAtMost: 50_000)
}
