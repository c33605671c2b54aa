/// What ``ToOneAssociation`` and ``ToManyAssociation`` share: a descriptor that each modifier copies
/// and changes.
protocol AssociationSteps {
    var descriptor: AssociationDescriptor { get }
    init(descriptor: AssociationDescriptor)
}

extension AssociationSteps {
    /// The same association, its descriptor changed by `change`.
    func with(_ change: (inout AssociationDescriptor) -> Void) -> Self {
        var descriptor = self.descriptor
        change(&descriptor)
        return Self(descriptor: descriptor)
    }

    /// The same association with a condition, ordering or selection written against its alias, which
    /// `change` adds: the alias is noted, and renaming the association afterwards throws when it runs.
    func writing(_ change: (inout AssociationDescriptor) -> Void) -> Self {
        with {
            change(&$0)
            $0.writtenAlias = $0.writtenAlias ?? $0.aliasName
        }
    }

    /// The same association, which joins or includes `child` of its destination as `mode` says.
    func adding(_ child: AssociationDescriptor, _ mode: AssociationPart.Mode) -> Self {
        with { $0.children.append(AssociationPart(descriptor: child, mode: mode)) }
    }

    /// The same association, which includes every record of the to-many association `child`.
    func addingAll<Next: Record>(_ child: ToManyAssociation<some Record, Next>) -> Self {
        with {
            $0.children.append(
                AssociationPart(descriptor: child.descriptor, mode: .includeAll, loader: ToManyLoader<Next>()))
        }
    }
}
