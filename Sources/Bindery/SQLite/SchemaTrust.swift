/// How far a connection trusts the schema of its file and the SQL run on it: which of SQLite's
/// defenses for files from elsewhere (sqlite.org/security.html) it keeps.
///
/// ```swift
/// // A search app: triggers that write an FTS5 table run, and the other defenses stay.
/// let db = try Database(path: "notes.sqlite", options: .init(schemaTrust: .trustedSchema))
/// ```
public enum SchemaTrust: Sendable, Hashable, CaseIterable {
    /// Every defense (the default): a view, trigger, `CHECK` constraint, default or index of the
    /// schema may call only functions marked innocuous and use no virtual table that is not
    /// (`SQLITE_DBCONFIG_TRUSTED_SCHEMA` off); no SQL can corrupt the file through
    /// `PRAGMA writable_schema` or `sqlite_dbpage` (`SQLITE_DBCONFIG_DEFENSIVE` on); extensions
    /// cannot be loaded (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` off).
    case untrusted
    /// The schema may call any function and use any virtual table (`SQLITE_DBCONFIG_TRUSTED_SCHEMA`
    /// on): what the triggers that keep a search table in step need. Defensive mode stays on and
    /// extensions stay off. For a file your app created.
    case trustedSchema
    /// No defense: the schema is trusted, defensive mode is off (a tool may edit `sqlite_schema`)
    /// and extensions may be loaded through the C API. What `trustsSchema: true` sets.
    case full

    /// Whether the schema may call any function and use any virtual table.
    var trustsSchemaCode: Bool { self != .untrusted }
}
