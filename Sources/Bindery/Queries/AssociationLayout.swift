/// What the rows of a query select after its table's own columns for the associations it joins and
/// includes, at any depth: the key columns of the to-many associations fetched by queries of their own,
/// then the columns of the included to-one associations, with the scopes that decode them.
///
/// A request's rows and a to-many association's rows are laid out alike: `SELECT "loan".*, <key
/// columns>, "book".*, "author".*`. An association included by another that is selected decodes into
/// that one's value (its scope is nested in that one's, its path starts with that one's key); one
/// included by an association that is only joined decodes where that one would have.
struct AssociationLayout {
    /// A to-many association whose records a query of their own fetches, for the keys the rows hold.
    struct ToManyStep {
        var part: AssociationPart
        /// The keys of the properties from the row's value to the one the records decode into:
        /// `reviews`, `book.reviews`.
        var path: String
        /// The quoted alias of the table whose columns hold the parent's key.
        var parentAlias: String
    }

    /// In the order of their key columns.
    private(set) var toMany: [ToManyStep] = []
    /// The scopes of the included to-one associations, in row order.
    private(set) var scopes: [RowScope] = []
    /// `, "book".*, "author".*`: the columns of the included to-one associations.
    private(set) var scopedColumns = SQL(text: "")

    /// The layout of `parts`, associations of the table aliased `parentAlias` (quoted); `resolve` gives
    /// the width of a selection (``ToOneAssociation/select(_:)``).
    init(_ parts: [AssociationPart], parentAlias: String, _ resolve: RequestSchema) throws {
        var scopes: [RowScope] = []
        try walk(parts, parentAlias: parentAlias, path: "", resolve, scopes: &scopes)
        self.scopes = scopes
    }

    /// Whether the rows select nothing for the associations.
    var isEmpty: Bool { toMany.isEmpty && scopes.isEmpty }

    private mutating func walk(
        _ parts: [AssociationPart], parentAlias: String, path: String, _ resolve: RequestSchema,
        scopes: inout [RowScope]
    ) throws {
        for part in parts {
            let descriptor = part.descriptor
            if part.mode == .includeAll {
                toMany.append(ToManyStep(part: part, path: path + descriptor.key, parentAlias: parentAlias))
            } else if part.isSelected {
                scopedColumns += SQL(text: ", ") + descriptor.selectedColumns
                var extent = RowScope.Extent.table(descriptor.destinationTable)
                if descriptor.selection != nil {
                    // A selection takes as many columns as it has, and one more: a key column of the
                    // association's table, NULL only where no row was joined (the selected columns may
                    // all be NULL in a row that was).
                    let marker =
                        try resolve.keys(descriptor)?.destination.first.map {
                            descriptor.alias + "." + SQL.quote(identifier: $0)
                        } ?? "<a key column of \(descriptor.alias)>"
                    scopedColumns += SQL(text: ", " + marker + " AS " + SQL.quote(identifier: "bindery.present"))
                    extent = .columns((try resolve.selectionWidth(descriptor) ?? 0) + 1)
                }
                var nested: [RowScope] = []
                try walk(
                    descriptor.children, parentAlias: descriptor.alias, path: path + descriptor.key + ".", resolve,
                    scopes: &nested)
                scopes.append(
                    RowScope(descriptor.key, extent: extent, nested: nested, presence: descriptor.selection != nil))
            } else {
                try walk(descriptor.children, parentAlias: descriptor.alias, path: path, resolve, scopes: &scopes)
            }
        }
    }

    /// `, "book"."id" AS "bindery.key.book.reviews.0"`: the key columns of ``toMany``, as `resolve` gives
    /// them (a placeholder where it knows none), with the keys of each step and how many columns they take.
    func keyColumns(_ resolve: RequestSchema) throws -> (sql: SQL, keys: [JoinKeys], count: Int) {
        var text = ""
        var all: [JoinKeys] = []
        var count = 0
        for step in toMany {
            let descriptor = step.part.descriptor
            let resolved = try resolve.keys(descriptor)
            let keys =
                resolved
                ?? JoinKeys(origin: ["<the key columns of \(descriptor.schemaKeyDescription)>"], destination: [])
            for (index, column) in keys.origin.enumerated() {
                let alias = SQL.quote(identifier: "bindery.key.\(step.path).\(index)")
                // A placeholder is printed as it is, not as a quoted column name.
                let selected = resolved == nil ? column : step.parentAlias + "." + SQL.quote(identifier: column)
                text += ", \(selected) AS \(alias)"
            }
            count += keys.origin.count
            all.append(keys)
        }
        return (SQL(text: text), all, count)
    }
}
