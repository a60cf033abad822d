// The watcher tests are being written; this file keeps the target buildable meanwhile.
