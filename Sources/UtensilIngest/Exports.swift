/// The file primitives (``HeldFolder``, ``FileOps``, ``FileStatus``, ``SystemError``) live in
/// the storage target, and the store (``UtensilStore``, ``IngestSettings``, backup) in the
/// store's, both below this one; the daemon and the tests keep finding them through
/// `import UtensilIngest`, as before they moved.
@_exported import UtensilStorage
@_exported import UtensilStore
