/// A set of tables, named as SQLite names them: the tables a query read, or the tables a write changed.
///
/// Names are compared without regard to ASCII case, as SQLite compares them, and without the schema
/// (`main`, `temp`, an attached database): two attached databases with a table of the same name share
/// one entry, which can only make an observation run more often, never less. `sqlite_schema` is
/// recorded under its older name `sqlite_master`, the name SQLite reports it by.
struct DatabaseRegion: Sendable, Hashable {
    /// The table names, ASCII letters lowercased.
    private(set) var tables: Set<String> = []

    /// An empty region.
    init() {}

    /// A region of the tables named in `names`.
    init<S: Sequence<String>>(tables names: S) {
        for name in names {
            insert(name)
        }
    }

    /// Whether the region holds no table.
    var isEmpty: Bool { tables.isEmpty }

    /// Adds the table named `name`.
    mutating func insert(_ name: String) {
        tables.insert(DatabaseRegion.normalized(name))
    }

    /// Adds the table named `name` in a callback.
    mutating func insert(_ name: CallbackContext.Name) {
        insert(name.string)
    }

    /// Adds every table of `other`.
    mutating func formUnion(_ other: DatabaseRegion) {
        tables.formUnion(other.tables)
    }

    /// Whether a table is in both regions.
    func intersects(_ other: DatabaseRegion) -> Bool {
        !tables.isDisjoint(with: other.tables)
    }

    /// Whether the region holds the table named `name`.
    func contains(_ name: String) -> Bool {
        tables.contains(DatabaseRegion.normalized(name))
    }

    private static func normalized(_ name: String) -> String {
        // SQLite compares names without regard to ASCII case, and only ASCII case.
        let lowered = String(decoding: FoldedIdentifier(name).bytes, as: UTF8.self)
        switch lowered {
        case "sqlite_schema": return "sqlite_master"
        case "sqlite_temp_schema": return "sqlite_temp_master"
        default: return lowered
        }
    }
}
