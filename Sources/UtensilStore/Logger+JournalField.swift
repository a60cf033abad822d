import Logging
import UtensilCore

extension Logger.Metadata {
    /// Metadata whose keys are journal fields: `.journal([.utensilID: .string(id)])`.
    public static func journal(_ fields: KeyValuePairs<JournalField, Logger.MetadataValue>) -> Logger.Metadata {
        Logger.Metadata(uniqueKeysWithValues: fields.map { ($0.key.rawValue, $0.value) })
    }

    public subscript(field: JournalField) -> Logger.MetadataValue? {
        get { self[field.rawValue] }
        set { self[field.rawValue] = newValue }
    }
}

extension Logger.MetadataValue {
    /// The value of a `MESSAGE_ID` field.
    public static func id(_ id: MessageID) -> Logger.MetadataValue { .string(id.rawValue) }
}
