/// The journald `MESSAGE_ID` of each kind of event, documented in `systemd/utensild.catalog`.
public enum MessageID: String, Sendable, CaseIterable {
    /// A drop became a utensil.
    case ingested = "092aa93d51e24d3a8839ac8796bda321"
    /// A drop was moved to `rejected/` with its sidecar.
    case rejected = "d1c7c9574b2e4974941b108ff0f349c2"
    /// A drop could not be ingested for a reason that is not its fault; it stays and is retried.
    case retryLater = "65f426e627ff4ae085efb538672bd158"
    /// A drop that crashed the decoder was quarantined.
    case decoderCrash = "97c9a2e4519744138761e1d40b9f21a1"
    /// A drop was left alone: a folder on its way became a symbolic link, another file took
    /// its name, or it changed after it was read (it is looked at again).
    case leftAlone = "d2f8f69b9eb54fdda97a59d2fc937115"
    /// The inbox went missing or came back.
    case inboxUnavailable = "b735a5b3b772404981b292a5424d1041"
    /// Part of the inbox tree cannot be watched (inotify's watch limit, or no descriptor or
    /// memory for a folder): drops there are found by the rescans only.
    case inboxPartlyWatched = "dc30006a3e914558bafb92863fbe1984"
    /// Start-up reconciliation removed leftovers of an interrupted run.
    case reconciled = "73ffb29a8cef4c3ea3a7f69b1b390a66"
    /// A step of start-up recovery (or a rethumb's swap) stopped on an error that is not
    /// "absent" (a read or I/O error, a busy catalog): what it was mending was left as it is,
    /// for the next start or a person.
    case recoveryLeft = "e36b4a466c9f4cc9bd2fe6f2b246ad3c"
    /// A `rethumb` run began making thumbnails again from the originals.
    case rethumbStarted = "3d444234d1b64778a80b80d87edff2b9"
    /// A `rethumb` run finished: how many thumbnails were made again, how many could not be.
    case rethumbFinished = "1834f9bc30784de4a1ebec6951c9c85c"
    /// An ingest hook (`on_ingest`, `on_reject`) failed: it exited with a non-zero status, was
    /// killed by a signal, overran its time and was stopped, or could not be started.
    case hookFailed = "5c0b1f6e8a7d4e3f9b2c4d6a8e0f1a37"
    /// An ingest hook was not run: too many were already running and waiting.
    case hookDropped = "e41d7a9c2b6f4c08a5d3f7b1c9e2a604"
}
