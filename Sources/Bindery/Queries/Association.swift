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
