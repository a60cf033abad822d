/// The version of utensild and utensilctl (one for both: they ship together), reported by
/// `--version` of each and by `utensilctl status`.
public enum UtensildVersion {
    public static let current = "0.1.0"
}
