/// Associations declared on record types, by static factories: `belongsTo`, `hasOne`, `hasMany` and
/// `hasMany(_:through:)`.
///
/// ```swift
/// extension Order {
///     static let customer = belongsTo(Customer.self)      // Orders.CustomerID REFERENCES Customers
/// }
/// extension Customer {
///     static let orders = hasMany(Order.self)
/// }
/// ```
///
/// Key columns come from the schema's foreign keys when not given; a ``ForeignKey`` names them where
/// the schema has none or several between the same tables.
extension Record {
    /// A to-one association whose key this record's table holds: an order belongs to its customer.
    ///
    /// - Parameters:
    ///   - destination: The associated record type.
    ///   - key: The property it decodes into, and its table's alias in a request. Default: the type's
    ///     name with its first letter lowercased (`customer`).
    ///   - foreignKey: The columns of this table that refer to the destination; default: the one
    ///     foreign key of this table to the destination's table.
    public static func belongsTo<Destination: Record>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> ToOneAssociation<Self, Destination> {
        ToOneAssociation(descriptor: descriptor(.belongsTo, Destination.self, key: key, foreignKey))
    }

    /// A to-one association whose key the other table holds: a country has one capital.
    ///
    /// - Parameters:
    ///   - destination: The associated record type.
    ///   - key: The property it decodes into; default: the type's name, first letter lowercased.
    ///   - foreignKey: The columns of the destination's table that refer to this one; default: the
    ///     one foreign key of the destination's table to this table.
    public static func hasOne<Destination: Record>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> ToOneAssociation<Self, Destination> {
        ToOneAssociation(descriptor: descriptor(.hasOne, Destination.self, key: key, foreignKey))
    }

    /// A to-many association whose key the other table holds: a customer has many orders.
    ///
    /// - Parameters:
    ///   - destination: The associated record type.
    ///   - key: The property it decodes into; default: the type's name, first letter lowercased, in
    ///     the plural (`orders`).
    ///   - foreignKey: The columns of the destination's table that refer to this one; default: the
    ///     one foreign key of the destination's table to this table.
    public static func hasMany<Destination: Record>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> ToManyAssociation<Self, Destination> {
        ToManyAssociation(descriptor: descriptor(.hasMany, Destination.self, key: key, foreignKey))
    }

    /// A many-to-many association through a join table whose rows refer to both sides: a student has
    /// many courses through enrollments.
    ///
    /// ```swift
    /// extension Student {
    ///     static let courses = hasMany(Course.self, through: Enrollment.self)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - destination: The associated record type.
    ///   - pivot: The record type of the join table.
    ///   - key: The property it decodes into; default: the destination's name in the plural.
    ///   - originKey: The columns of the join table that refer to this table; default: its one
    ///     foreign key to this table.
    ///   - destinationKey: The columns of the join table that refer to the destination; default: its
    ///     one foreign key to the destination's table.
    public static func hasMany<Destination: Record, Pivot: Record>(
        _ destination: Destination.Type, through pivot: Pivot.Type, key: String? = nil,
        originKey: ForeignKey? = nil, destinationKey: ForeignKey? = nil
    ) -> ToManyAssociation<Self, Destination> {
        var descriptor = descriptor(.hasManyThrough, Destination.self, key: key, nil)
        descriptor.pivot = AssociationDescriptor.Pivot(
            table: Pivot.tableName, primaryKey: Pivot.primaryKey, originKey: originKey, destinationKey: destinationKey)
        return ToManyAssociation(descriptor: descriptor)
    }

    /// A to-one association through two others: a loan has one author, through its book and the
    /// book's author. The middle table is joined but not decoded.
    ///
    /// ```swift
    /// extension Loan {
    ///     static let author = hasOne(Author.self, through: book, using: Book.author)
    /// }
    /// struct LoanAuthor: Decodable, Sendable { var loan: Loan; var author: Author }
    /// let loans = try conn.fetchAll(LoanAuthor.self, Loan.including(required: Loan.author))
    /// ```
    ///
    /// - Parameters:
    ///   - destination: The associated record type.
    ///   - pivot: The association from this record type to the middle one; its conditions (``ToOneAssociation/filter(_:)``)
    ///     filter the middle rows, and its alias is the middle table's.
    ///   - target: The association from the middle record type to the destination; its conditions, alias and
    ///     key (by default) are this association's.
    ///   - key: The property it decodes into; default: `target`'s key.
    public static func hasOne<Pivot: Record, Destination: Record>(
        _ destination: Destination.Type, through pivot: ToOneAssociation<Self, Pivot>,
        using target: ToOneAssociation<Pivot, Destination>, key: String? = nil
    ) -> ToOneAssociation<Self, Destination> {
        ToOneAssociation(descriptor: through(.hasOneThrough, pivot.descriptor, target.descriptor, key: key))
    }

    /// A to-one association through two others, as ``hasOne(_:through:using:key:)``; the name says that
    /// the rows hold the key of the first step (an order belongs to its customer's country).
    public static func belongsTo<Pivot: Record, Destination: Record>(
        _ destination: Destination.Type, through pivot: ToOneAssociation<Self, Pivot>,
        using target: ToOneAssociation<Pivot, Destination>, key: String? = nil
    ) -> ToOneAssociation<Self, Destination> {
        ToOneAssociation(descriptor: through(.hasOneThrough, pivot.descriptor, target.descriptor, key: key))
    }

    /// A to-many association through two others, to-many then to-many: an author has many reviews,
    /// through the author's books and each book's reviews. The middle table is joined but not
    /// decoded; a destination reached through two middle rows comes twice.
    ///
    /// ```swift
    /// extension Author {
    ///     static let reviews = hasMany(Review.self, through: books, using: Book.reviews)
    /// }
    /// ```
    ///
    /// The parameters are those of ``hasOne(_:through:using:key:)``.
    public static func hasMany<Pivot: Record, Destination: Record>(
        _ destination: Destination.Type, through pivot: ToManyAssociation<Self, Pivot>,
        using target: ToManyAssociation<Pivot, Destination>, key: String? = nil
    ) -> ToManyAssociation<Self, Destination> {
        ToManyAssociation(descriptor: through(.hasManyThrough, pivot.descriptor, target.descriptor, key: key))
    }

    /// A to-many association through a to-many association and a to-one one: a student has many
    /// courses through the student's enrollments and each enrollment's course.
    public static func hasMany<Pivot: Record, Destination: Record>(
        _ destination: Destination.Type, through pivot: ToManyAssociation<Self, Pivot>,
        using target: ToOneAssociation<Pivot, Destination>, key: String? = nil
    ) -> ToManyAssociation<Self, Destination> {
        ToManyAssociation(descriptor: through(.hasManyThrough, pivot.descriptor, target.descriptor, key: key))
    }

    /// A to-many association through a to-one association and a to-many one: a loan has many reviews,
    /// through its book and the book's reviews.
    public static func hasMany<Pivot: Record, Destination: Record>(
        _ destination: Destination.Type, through pivot: ToOneAssociation<Self, Pivot>,
        using target: ToManyAssociation<Pivot, Destination>, key: String? = nil
    ) -> ToManyAssociation<Self, Destination> {
        ToManyAssociation(descriptor: through(.hasManyThrough, pivot.descriptor, target.descriptor, key: key))
    }

    /// The descriptor of an association through `first` (from this type) and `second`.
    private static func through(
        _ kind: AssociationDescriptor.Kind, _ first: AssociationDescriptor, _ second: AssociationDescriptor,
        key: String?
    ) -> AssociationDescriptor {
        var descriptor = AssociationDescriptor(
            kind: kind, key: key ?? second.key, originTable: tableName, originPrimaryKey: primaryKey,
            destinationTable: second.destinationTable, destinationPrimaryKey: second.destinationPrimaryKey,
            foreignKey: nil)
        descriptor.pivot = AssociationDescriptor.Pivot(
            table: first.destinationTable, primaryKey: first.destinationPrimaryKey,
            steps: AssociationDescriptor.ThroughSteps(first, second), alias: first.aliasName,
            conditions: first.conditions)
        // The target's conditions and orderings name its columns by its alias.
        descriptor.tableAlias = second.aliasName
        descriptor.writtenAlias = second.writtenAlias
        descriptor.conditions = second.conditions
        descriptor.orderings = second.orderings
        return descriptor
    }

    private static func descriptor<Destination: Record>(
        _ kind: AssociationDescriptor.Kind, _ destination: Destination.Type, key: String?, _ foreignKey: ForeignKey?
    ) -> AssociationDescriptor {
        let isToMany = kind == .hasMany || kind == .hasManyThrough
        return AssociationDescriptor(
            kind: kind,
            key: key
                ?? (isToMany
                    ? AssociationDescriptor.pluralKey(Destination.self)
                    : AssociationDescriptor.singularKey(Destination.self)),
            originTable: tableName, originPrimaryKey: primaryKey, destinationTable: Destination.tableName,
            destinationPrimaryKey: Destination.primaryKey, foreignKey: foreignKey)
    }
}
