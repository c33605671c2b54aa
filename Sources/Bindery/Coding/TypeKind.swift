/// What kind of nominal type a Swift type is, read from its runtime metadata, for the cases where
/// Swift has no public way to ask: whether a type is an enum, to word an error or refuse a key.
enum TypeKind: Equatable {
    case `struct`, `enum`, optional, other

    /// The kind of `type`. The first word of a type's metadata is its kind, part of Swift's stable
    /// ABI: 0x200 for a struct, 0x201 for an enum, 0x202 for `Optional` (classes and the rest differ).
    init(of type: Any.Type) {
        switch ExactCast.metadataKind(of: type) {
        case 0x200: self = .struct
        case 0x201: self = .enum
        case 0x202: self = .optional
        default: self = .other
        }
    }
}
