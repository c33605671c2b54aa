/// What an association says, without its Swift types: the tables it links, how, and the key columns
/// it was given (the others come from the schema when a request runs).
struct AssociationDescriptor: Sendable {
    enum Kind: Sendable {
        /// To-one; the origin's row holds the foreign key.
        case belongsTo
        /// To-one; the destination's rows hold the foreign key.
        case hasOne
        /// To-many; the destination's rows hold the foreign key.
        case hasMany
        /// To-many through the rows of a join table, which hold a foreign key to each side, or through
        /// two associations (``Pivot/steps``).
        case hasManyThrough
        /// To-one through two to-one associations (``Pivot/steps``).
        case hasOneThrough
    }

    /// The join table of a many-to-many association, or the table in the middle of an association
    /// through two others.
    struct Pivot: Sendable {
        var table: String
        var primaryKey: [String]
        /// The pivot's key to the origin, when given.
        var originKey: ForeignKey?
        /// The pivot's key to the destination, when given.
        var destinationKey: ForeignKey?
        /// The two associations the association goes through, whose keys link the tables; nil for a
        /// join table.
        var steps: ThroughSteps?
        /// The pivot's alias (the first association's), and its conditions, for an association through
        /// two others.
        var alias: String?
        var conditions: [SQL] = []
    }

    /// The associations an association goes through: from the origin to the pivot, and on to the
    /// destination. Immutable, in a class so that an association can hold two others.
    final class ThroughSteps: Sendable {
        let first: AssociationDescriptor
        let second: AssociationDescriptor

        init(_ first: AssociationDescriptor, _ second: AssociationDescriptor) {
            self.first = first
            self.second = second
        }
    }

    var kind: Kind
    /// The property it decodes into, and the alias of its table in a request.
    var key: String
    var originTable: String
    var originPrimaryKey: [String]
    var destinationTable: String
    var destinationPrimaryKey: [String]
    /// The foreign key, when given (belongsTo: of the origin; hasOne, hasMany: of the destination).
    var foreignKey: ForeignKey?
    var pivot: Pivot?
    /// Conditions on the associated rows (`ON` of a join, `WHERE` of a to-many query), AND-ed.
    var conditions: [SQL] = []
    /// The order of a to-many association's rows in their array.
    var orderings: [SQL] = []
    /// The alias of the destination table given with ``ToOneAssociation/aliased(_:)``; nil: the key.
    var tableAlias: String?
    /// The columns selected of the destination (``ToOneAssociation/select(_:)``); nil: all of them.
    var selection: SQL?
    /// The alias when the first condition, ordering or selection was given, whose `column(_:)` named
    /// it; nil before.
    var writtenAlias: String?

    /// What the association selects: its selection, or every column of its table.
    var selectedColumns: SQL { selection ?? SQL(text: alias + ".*") }
    /// The associations of the destination joined or included with it, in the order given.
    var children: [AssociationPart] = []

    var isToMany: Bool { kind == .hasMany || kind == .hasManyThrough }

    /// The alias of the destination table in a request, unquoted: the one given, or the key.
    var aliasName: String { tableAlias ?? key }

    /// The quoted alias of the destination table in a request.
    var alias: String { SQL.quote(identifier: aliasName) }

    /// The quoted alias of the join table in a request.
    var pivotAlias: String { SQL.quote(identifier: pivot?.alias ?? aliasName + ".through") }

    /// The key columns the association gives (its ``ForeignKey``s), without the schema; nil where
    /// some come from the schema.
    var givenKeys: JoinKeys? {
        func pair(_ key: ForeignKey?, referencedPrimaryKey: [String]) -> (columns: [String], referenced: [String])? {
            guard let key else { return nil }
            let target = key.referencedColumns ?? referencedPrimaryKey
            guard target.count == key.columns.count, !target.isEmpty else { return nil }
            return (key.columns, target)
        }
        switch kind {
        case .belongsTo:
            guard let key = pair(foreignKey, referencedPrimaryKey: destinationPrimaryKey) else { return nil }
            return JoinKeys(origin: key.columns, destination: key.referenced)
        case .hasOne, .hasMany:
            guard let key = pair(foreignKey, referencedPrimaryKey: originPrimaryKey) else { return nil }
            return JoinKeys(origin: key.referenced, destination: key.columns)
        case .hasManyThrough, .hasOneThrough:
            if let steps = pivot?.steps {
                guard let first = steps.first.givenKeys, let second = steps.second.givenKeys else { return nil }
                return JoinKeys(through: first, second)
            }
            guard let pivot, let toOrigin = pair(pivot.originKey, referencedPrimaryKey: originPrimaryKey),
                let toDestination = pair(pivot.destinationKey, referencedPrimaryKey: destinationPrimaryKey)
            else { return nil }
            return JoinKeys(
                origin: toOrigin.referenced, destination: toDestination.referenced, pivotOrigin: toOrigin.columns,
                pivotDestination: toDestination.columns)
        }
    }

    /// Where the association's key columns come from when the schema gives them, for a request
    /// printed without a connection: `the foreign key from "Orders" to "Customers", read from the
    /// schema when the request runs`.
    var schemaKeyDescription: String {
        let (holder, referenced): (String, String)
        switch kind {
        case .belongsTo: (holder, referenced) = (originTable, destinationTable)
        case .hasOne, .hasMany: (holder, referenced) = (destinationTable, originTable)
        case .hasManyThrough, .hasOneThrough:
            let table = SQL.quote(identifier: pivot?.table ?? "")
            return "the foreign keys from \(table) to \(SQL.quote(identifier: originTable)) and to "
                + "\(SQL.quote(identifier: destinationTable)), read from the schema when the request runs"
        }
        return "the foreign key from \(SQL.quote(identifier: holder)) to \(SQL.quote(identifier: referenced)), "
            + "read from the schema when the request runs"
    }
}

/// The key columns of an association, resolved on a connection: `origin[i]` of the origin's table
/// matches `destination[i]` of the destination's, or, through a join table, `pivotOrigin[i]` of the
/// join table and `pivotDestination[i]` matches `destination[i]`.
struct JoinKeys: Sendable {
    var origin: [String]
    var destination: [String]
    var pivotOrigin: [String] = []
    var pivotDestination: [String] = []
}

extension JoinKeys {
    /// The keys of an association through two others: `first` links the origin to the pivot, `second`
    /// the pivot to the destination.
    init(through first: JoinKeys, _ second: JoinKeys) {
        self.init(
            origin: first.origin, destination: second.destination, pivotOrigin: first.destination,
            pivotDestination: second.origin)
    }
}

extension AssociationDescriptor {
    /// The default key of a to-one association: the type's name, first letter lowercased (`customer`).
    static func singularKey(_ type: Any.Type) -> String {
        let name = String(describing: type)
        guard let first = name.first else { return name }
        return first.lowercased() + name.dropFirst()
    }

    /// The default key of a to-many association: the type's name, first letter lowercased, in the
    /// English plural (`orders`, `categories`, `addresses`, `children`, `people`); see
    /// ``EnglishPlural``.
    static func pluralKey(_ type: Any.Type) -> String {
        EnglishPlural.plural(of: singularKey(type))
    }
}
