/// How ``PostgresCatalog`` finds a page of a search that no other filter narrows: by walking
/// the listing order, or by gathering every match and sorting them.
///
/// The walk reads the covering listing index (`utensils_listing_by_name` or `_by_date`: sort
/// value, id and `search_key` of every utensil not in the trash) and tests each name there,
/// without reading its row: about 0.15 µs an entry at a million utensils, so a term whose
/// matches are spread through the order fills its page after `limit / density` entries. But
/// names that share a prefix sit together in that order, so a term's matches may all lie far
/// along it (every "… whisk" after a third of the names): after ``walkAtMost`` entries the
/// walk gives up, and the matches are gathered through the trigram index and sorted, about
/// 1.5 µs a match (each one's row is read from the table to be tested again and sorted).
///
/// The walk comes first because PostgreSQL cannot count a term's matches without reading
/// their rows (a trigram index only names candidates), so it cannot know beforehand which
/// way is cheaper; the planner's own choice rests on a selectivity estimate that can be off
/// a hundredfold for such patterns, and it takes the walk for evenly spread matches. The
/// bound caps what a wrong first guess costs: ``walkAtMost`` entries of the walk, about as
/// long as gathering some 5,000 matches.
public struct PostgresSearchPlan: Sendable, Equatable {
    /// Index entries a walk looks at before it gives up and the matches are gathered.
    public var walkAtMost: Int

    public init(walkAtMost: Int) {
        self.walkAtMost = max(1, walkAtMost)
    }

    /// Measured at 1,000,000 utensils on a quiet machine (`make bench-postgres` with
    /// `BENCH_SCALE=1m`): a walk of 50,000 entries takes about 8 ms, gathering 16,668 matches
    /// about 25 ms, 83,335 matches about 110 ms.
    public static let standard = PostgresSearchPlan(walkAtMost: 50_000)
}
