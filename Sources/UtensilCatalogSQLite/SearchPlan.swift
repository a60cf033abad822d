/// How ``SQLiteCatalog/list(search:category:addedBy:sort:limit:after:)`` finds a page of a trigram
/// search: by gathering every match and sorting them, or by walking the sort order.
///
/// Gathering costs one row lookup per match (about 1.6 µs each at a million utensils, most of
/// it the page read), so it is done only for terms matching fewer than ``gatherBelow`` names.
/// A denser term walks a covering index of the listing order (sort key, id and search key of
/// every utensil not in the trash), testing each name without reading its row (about 0.4 µs
/// each), until the page is full — usually after `limit / density` entries. Names that share
/// a prefix sit together in that order, so a dense term's matches may all lie far along it:
/// after ``walkAtMost`` entries the walk gives up and the matches are gathered after all.
public struct SearchPlan: Sendable, Equatable {
    /// Matches below which a search gathers and sorts them instead of walking.
    public var gatherBelow: Int
    /// Index entries a walk looks at before it gives up.
    public var walkAtMost: Int

    public init(gatherBelow: Int, walkAtMost: Int) {
        self.gatherBelow = max(1, gatherBelow)
        self.walkAtMost = max(1, walkAtMost)
    }

    /// Measured at 1,000,000 utensils on a quiet machine: a gather of 16,668 matches takes
    /// about 27 ms, a walk of 100,000 index entries about 40 ms.
    public static let standard = SearchPlan(gatherBelow: 20_000, walkAtMost: 100_000)
}
