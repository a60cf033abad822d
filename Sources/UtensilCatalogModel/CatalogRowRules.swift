/// What a row read from outside a catalog (a backup's `utensils.sqlite`, which
/// `utensild restore` loads) must meet beyond its shape: the rules a drop meets at ingest.
/// The reader checks ids, types and references itself; these say what its values may be.
/// Each answers what is wrong as the end of "its utensil <id> has …", or nil.
public protocol CatalogRowRules: Sendable {
    /// What is wrong with one utensil (its name, category, extension, sizes, dates, …).
    func problem(with record: UtensilRecord) -> String?
    /// What is wrong with a user name a favorite is marked for (the end of "its favorite … is
    /// marked for …").
    func problem(withUser user: String) -> String?
    /// What is wrong with a decoder-crash count (the end of "its decoder-crash count … has …").
    func problem(with crash: CatalogDecoderCrash) -> String?
}
