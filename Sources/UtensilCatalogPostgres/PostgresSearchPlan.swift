/// How ``PostgresCatalog`` finds a page of a search that no other filter narrows: by walking
/// the listing order, or by gathering every match and sorting them.
///
/// The walk reads the covering listing index (`utensils_listing_by_name` or `_by_date`: sort
/// value, id and `search_key` of every utensil not in the trash) and tests each name there,
/// without reading its row: about 0.2 µs an entry at a million utensils, so a term whose
/// matches are spread through the order fills its page after `limit / density` entries. But
/// names that share a prefix sit together in that order, so a dense term's matches may all lie
/// far along it (every "… whisk" after a third of the names). Gathering goes through the
/// trigram index and reads each match's row (to test the name again and to sort it): about
/// 1–1.5 µs a match, whatever the order.
///
/// SQLite's catalog counts a term's matches in its trigram index first and gathers them below
/// a bound; PostgreSQL cannot count them without reading each one's row, so it estimates:
/// 1. a short walk (``walkFirst`` entries): a term spread through the order fills its page;
/// 2. else the term's share of a random sample of about ``sampleSize`` names
///    (`TABLESAMPLE SYSTEM`), times the utensils: below ``gatherBelow`` estimated matches, every
///    match is gathered and sorted;
/// 3. else a walk of at most ``walkAtMost`` entries, and every match gathered when that does
///    not fill the page either.
public struct PostgresSearchPlan: Sendable, Equatable {
    /// Index entries the first, short walk looks at.
    public var walkFirst: Int
    /// Names in the sample a term's matches are estimated from.
    public var sampleSize: Int
    /// Estimated matches below which a search gathers them instead of walking further.
    public var gatherBelow: Int
    /// Index entries the second walk looks at before it gives up and every match is gathered.
    public var walkAtMost: Int

    public init(walkFirst: Int, sampleSize: Int, gatherBelow: Int, walkAtMost: Int) {
        self.walkFirst = max(1, walkFirst)
        self.sampleSize = max(1, sampleSize)
        self.gatherBelow = max(1, gatherBelow)
        self.walkAtMost = max(1, walkAtMost)
    }

    /// Measured at 1,000,000 utensils on a quiet machine (`BENCH_SCALE=1m make
    /// bench-postgres`): a walk of 5,000 entries takes about 1 ms and one of 100,000 about
    /// 20 ms; the sample about 3 ms (its estimate is within about a quarter of the truth for a
    /// term in 2 % of the names); gathering the 16,668 matches of a term about 17–25 ms.
    public static let standard = PostgresSearchPlan(walkFirst: 5_000, sampleSize: 5_000, gatherBelow: 30_000, walkAtMost: 100_000)
}
