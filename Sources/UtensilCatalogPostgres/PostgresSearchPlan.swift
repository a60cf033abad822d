/// How ``PostgresCatalog`` finds a page of a search that no other filter narrows: by
/// gathering every match and sorting them, or by walking the listing order.
///
/// Gathering goes through the trigram index and reads each match's row (to test the name
/// again and to sort it): about 1 µs a match at a million utensils. The walk reads the
/// covering listing index (`utensils_listing_by_name` or `_by_date`: sort value, id and
/// `search_key` of every utensil not in the trash) and tests each name there without reading
/// its row: about 0.16 µs an entry, so a term whose matches are spread through the order
/// fills its page after `limit / density` entries.
///
/// PostgreSQL cannot count a term's matches without reading their rows (a trigram index only
/// names candidates), and the planner's estimate for such a pattern can be off a hundredfold,
/// so a search tries the cheap ways first:
/// 1. gather at most ``gatherBelow`` matches: when there are no more, that is all of them
///    (a selective term, a millisecond or two);
/// 2. else walk at most ``walkAtMost`` entries of the order (a dense term, whose page is
///    usually full long before);
/// 3. else gather every match and sort them: names that share a prefix sit together in that
///    order, so a dense term's matches may all lie far along it (every "… whisk" after a
///    third of the names).
public struct PostgresSearchPlan: Sendable, Equatable {
    /// Matches below which the first gathering is the whole answer.
    public var gatherBelow: Int
    /// Index entries a walk looks at before it gives up and every match is gathered.
    public var walkAtMost: Int

    public init(gatherBelow: Int, walkAtMost: Int) {
        self.gatherBelow = max(1, gatherBelow)
        self.walkAtMost = max(1, walkAtMost)
    }

    /// Measured at 1,000,000 utensils on a quiet machine (`BENCH_SCALE=1m make
    /// bench-postgres`): gathering 1,000 of 83,335 matches takes about 4 ms, a walk of 50,000
    /// entries about 8 ms, gathering all 16,668 matches of a term about 17 ms.
    public static let standard = PostgresSearchPlan(gatherBelow: 1_000, walkAtMost: 50_000)
}
