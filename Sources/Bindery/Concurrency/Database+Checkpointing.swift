extension Database {
    /// Who moves the pages of a WAL database's `-wal` file back into the database file (a checkpoint):
    /// Bindery and SQLite, or a replicator such as Litestream that runs beside the app.
    ///
    /// ```swift
    /// var options = Database.Options()
    /// options.checkpointing = .leftToReplicator
    /// let db = try Database(path: "app.sqlite", options: options)
    /// ```
    ///
    /// See <doc:BeyondOneMachine>.
    public enum Checkpointing: Sendable, Hashable, CaseIterable {
        /// SQLite checkpoints after a commit that leaves 1000 pages or more in the `-wal` file, and
        /// ``Database/close()`` checkpoints, so that closing the last connection removes the `-wal`
        /// and `-shm` files. The default.
        case automatic
        /// No connection of the database ever checkpoints on its own: every connection (the writer and
        /// each reader) runs with `PRAGMA wal_autocheckpoint = 0` and with SQLite's checkpoint on
        /// close turned off (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`), and ``Database/close()`` runs no
        /// checkpoint, so the `-wal` file keeps its frames after the database closes. The WAL grows
        /// until another process checkpoints it: run a replicator (`litestream replicate`), which
        /// copies the new frames before it checkpoints, whenever the app writes.
        ///
        /// Everything else stays as it is: WAL mode, `synchronous = NORMAL` and
        /// ``Options/busyTimeout``, which must stay above zero so that a write waits for the short
        /// write lock the replicator takes when it checkpoints instead of failing with
        /// ``SQLiteError/Code/busy``. It needs ``JournalMode/wal``: with another journal mode,
        /// opening a database for writing throws ``SQLiteError`` with code
        /// ``SQLiteError/Code/misuse``. An in-memory database has no WAL, and ignores it.
        case leftToReplicator
    }
}
