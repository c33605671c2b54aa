/// The parent side of a foreign key: `REFERENCES table(columns) ON DELETE … ON UPDATE …`.
struct ForeignKeyReference {
    var table: String
    /// The parent columns; empty for the parent's primary key.
    var columns: [String]
    var onDelete: ForeignKeyAction?
    var onUpdate: ForeignKeyAction?
    var deferred: Bool

    /// The `REFERENCES` clause.
    var sql: String {
        var text = "REFERENCES " + SQL.quote(identifier: table)
        if !columns.isEmpty {
            text += "(" + columns.map(SQL.quote(identifier:)).joined(separator: ", ") + ")"
        }
        if let onDelete {
            text += " ON DELETE " + onDelete.rawValue
        }
        if let onUpdate {
            text += " ON UPDATE " + onUpdate.rawValue
        }
        if deferred {
            text += " DEFERRABLE INITIALLY DEFERRED"
        }
        return text
    }
}
