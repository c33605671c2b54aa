import CSQLite

/// Setting one of SQLite's on/off database options (`sqlite3_db_config` with an `int` and an `int*`),
/// checked: the settings Bindery makes when a connection opens.
extension Connection {
    /// Sets the flag `option` (named `name` in errors) of `db` to `value` and reads it back; throws
    /// ``SQLiteError/Code/misuse`` when SQLite refuses it or does not confirm it (an SQLite older than
    /// `version`, which introduced it).
    static func setConfigFlag(
        _ db: OpaquePointer, _ option: Int32, name: String, to value: Int32, since version: String
    ) throws {
        var inForce: Int32 = -1
        let code = bindery_db_config_flag(db, option, value, &inForce)
        guard code == SQLITE_OK, inForce == value else {
            throw SQLiteError(
                code: .misuse,
                message: "SQLite \(String(cString: sqlite3_libversion())) cannot set \(name) to \(value) "
                    + "(SQLite \(version) or later is needed)")
        }
    }
}
