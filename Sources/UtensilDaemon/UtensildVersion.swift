/// The version of utensild, reported by `--version` and `utensilctl status`.
public enum UtensildVersion {
    public static let current = "0.1.0"
}
