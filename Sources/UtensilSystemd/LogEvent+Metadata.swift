import Logging

extension LogEvent {
    /// The metadata one entry carries: the handler's (the logger's), then the metadata provider's,
    /// then the call's, later ones winning; an attached error adds `error.message` and
    /// `error.type` as swift-log's own `StreamLogHandler` does.
    func effectiveMetadata(handler: Logger.Metadata, provider: Logger.MetadataProvider?) -> Logger.Metadata {
        var merged = handler
        if let provided = provider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = metadata { merged.merge(explicit) { _, new in new } }
        if let error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return merged
    }
}
