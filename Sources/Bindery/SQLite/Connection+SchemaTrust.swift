import CSQLite

/// SQLite's advice for database files that come from elsewhere (sqlite.org/security.html), which
/// Bindery follows on every connection as far as ``Connection/Options/schemaTrust`` says.
extension Connection {
    /// Sets on `db` `SQLITE_DBCONFIG_DEFENSIVE` on (no SQL can corrupt the file: no
    /// `PRAGMA writable_schema` edits of `sqlite_schema`, no writes to `sqlite_dbpage`) and
    /// `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` off unless `trust` is ``SchemaTrust/full``, and
    /// `SQLITE_DBCONFIG_TRUSTED_SCHEMA` off (a view, trigger, `CHECK` or index of the schema may call
    /// only functions and virtual tables marked innocuous) when it is ``SchemaTrust/untrusted``.
    /// Throws when SQLite does not confirm a setting (an SQLite older than 3.31).
    static func configureSchemaTrust(_ db: OpaquePointer, trust: SchemaTrust) throws {
        let full = trust == .full
        let settings: [(option: Int32, name: String, value: Int32)] = [
            (SQLITE_DBCONFIG_DEFENSIVE, "SQLITE_DBCONFIG_DEFENSIVE", full ? 0 : 1),
            (SQLITE_DBCONFIG_TRUSTED_SCHEMA, "SQLITE_DBCONFIG_TRUSTED_SCHEMA", trust.trustsSchemaCode ? 1 : 0),
            (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, "SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION", full ? 1 : 0),
        ]
        for setting in settings {
            try setConfigFlag(db, setting.option, name: setting.name, to: setting.value, since: "3.31")
        }
    }

    /// `error`, or when it is SQLite refusing a function or a virtual table used by the schema
    /// ("unsafe use of …"), the same error saying why and what to do.
    func explainingUntrustedSchema(_ error: SQLiteError) -> SQLiteError {
        guard !options.schemaTrust.trustsSchemaCode, error.code == .error, error.message.hasPrefix("unsafe use of ")
        else {
            return error
        }
        if error.message.hasPrefix("unsafe use of virtual table") {
            return error.explained(
                "a trigger or view of the schema uses a virtual table, as the triggers that keep a search table "
                    + "in step do, which SQLite allows only on a connection that trusts its schema, and Bindery "
                    + "does not trust the schema of a file by default; open the database with "
                    + "schemaTrust: .trustedSchema if your app created it")
        }
        return error.explained(
            "a view, trigger, CHECK constraint, index or generated column of the schema calls a function that is "
                + "not marked innocuous, which Bindery refuses because it does not trust the schema of a file by "
                + "default; open the database with schemaTrust: .trustedSchema (or trustsSchema: true) if you "
                + "trust its schema")
    }
}
