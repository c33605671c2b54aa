import CSQLite

/// Leaving the checkpoints of a WAL database to another process, such as a replicator that copies the
/// `-wal` file before it moves its pages into the database file.
extension Connection {
    /// Turns off the two checkpoints SQLite runs on its own on this connection: the one after a commit
    /// that leaves 1000 pages or more in the `-wal` file (`PRAGMA wal_autocheckpoint = 0`), and the one
    /// when the last connection to the file closes (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`), which would
    /// also delete the `-wal` file. Explicit `PRAGMA wal_checkpoint` statements still run.
    ///
    /// Throws ``SQLiteError`` with code ``SQLiteError/Code/misuse`` when SQLite does not confirm the
    /// setting (an SQLite older than 3.16).
    func disableAutomaticCheckpoints() throws {
        let code = sqlite3_wal_autocheckpoint(handle, 0)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: .misuse, message: "SQLite refused PRAGMA wal_autocheckpoint = 0 (code \(code))")
        }
        try Connection.setConfigFlag(
            handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, name: "SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE", to: 1, since: "3.16")
    }

    /// Whether the checkpoint on close is off (``disableAutomaticCheckpoints()``).
    var skipsCheckpointOnClose: Bool {
        var inForce: Int32 = -1
        _ = bindery_db_config_flag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, -1, &inForce)
        return inForce == 1
    }
}
