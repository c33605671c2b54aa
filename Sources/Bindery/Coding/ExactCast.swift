/// The one place where a value of a generic type is reinterpreted as a concrete type: code generic over
/// `T` that found `T` to be `Date` (say) hands a `Date` back as a `T`, or reads a `T` as a `Date`; and
/// a one-byte value is read as its byte (``byte(of:)``).
///
/// Safety: ``cast(_:to:)`` compares the two types' metadata before it reinterprets anything, so it
/// only ever reinterprets a value as its own type, which is no conversion at all; for any other pair
/// of types it returns nil. It never traps. (`as?` would give the same answer through the runtime's
/// dynamic cast, a call of some hundred instructions for every value: that is the reason for this
/// type.) Callers compare the types first themselves (`if T.self == Date.self`), to choose which
/// conversion to run; the compiler folds the second, identical comparison away. A ``Place`` makes the
/// same comparison before it lets a value be read or changed, where it lies, as its own type.
///
/// It is also where a type itself is read: ``metadataKind(of:)`` reads the first word of a type's
/// metadata, which a metatype points to and which the runtime keeps for the life of the process.
enum ExactCast {
    /// `value` as a `Target`, when `Target` is exactly `Value`'s type; nil for any other type.
    @inline(__always)
    static func cast<Value, Target>(_ value: Value, to target: Target.Type) -> Target? {
        guard Value.self == Target.self else { return nil }
        return unsafeBitCast(value, to: Target.self)
    }

    /// `value` as a `Target`, when `Target` is exactly `Value`'s type; for any other type, a
    /// `DecodingError.typeMismatch` saying so.
    @inline(__always)
    static func decoded<Value, Target>(_ value: Value, as target: Target.Type) throws -> Target {
        guard let cast = cast(value, to: Target.self) else { throw mismatch(Value.self, Target.self) }
        return cast
    }

    /// The first word of `type`'s runtime metadata: its kind, part of Swift's stable ABI (see
    /// ``TypeKind``). A metatype is a pointer to that metadata, which lives as long as the process.
    static func metadataKind(of type: Any.Type) -> Int {
        unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: Int.self)
    }

    /// The byte of `value` when its type is one byte in size (a synthesized `CodingKeys` enum, whose
    /// byte is its case number: see ``KeyTagTable``); nil for a value of any other size.
    ///
    /// Safety: the size is compared before anything is reinterpreted, so `unsafeBitCast` only ever
    /// reads one byte as one byte; every bit pattern is a valid `UInt8`, which holds nothing to
    /// release, so the copy owns nothing of `value`'s. Whether equal bytes mean equal values is the
    /// caller's question (``KeyTagTable/isTaggable(_:)`` answers it for coding keys).
    @inline(__always)
    static func byte<Value>(of value: Value) -> UInt8? {
        guard MemoryLayout<Value>.size == 1 else { return nil }
        return unsafeBitCast(value, to: UInt8.self)
    }

    /// The error of ``decoded(_:as:)``, out of line.
    @inline(never)
    static func mismatch(_ value: Any.Type, _ target: Any.Type) -> DecodingError {
        .typeMismatch(
            target, .init(codingPath: [], debugDescription: "a \(value) was decoded where a \(target) was expected"))
    }

    /// Where a value lies, and its type, for the duration of one call: how code generic over a value's
    /// type hands the value, without copying it, to a protocol's static method reached through a
    /// metatype (`any StoredAsGiven.Type`), which knows the type as `Self` and not as the caller's
    /// generic parameter. A copy would retain each of the record's strings; a method generic over the
    /// value's type, called through the metatype, would run unspecialized (callgrind, issue 38:
    /// `insert()` one by one, about 230 instructions a record).
    ///
    /// Safety: a place is made only by ``with(_:_:)`` and ``with(borrowing:_:)``, from the address
    /// the standard library lends for the call, and by ``with(elementAt:of:_:)``, from an element of a
    /// buffer whose elements its caller holds initialized for the call (its index checked against the
    /// buffer's count); it is valid only inside `body` (which must not keep
    /// it). ``read(as:_:)`` and ``modify(as:_:)`` compare the type asked for with the value's own
    /// before they view the memory, so a value is only ever viewed as its own type; a place made from
    /// a borrowed value refuses ``modify(as:_:)``.
    struct Place {
        private let address: UnsafeMutableRawPointer
        private let type: Any.Type
        private let isMutable: Bool

        /// Runs `body` with the place of the value passed as `&value`, which it may read and change.
        /// (The address the compiler passes for `&value` is valid for the call, and so while `body`
        /// runs; `withUnsafeMutablePointer(to:)` would give the same, through a call of the standard
        /// library's generic function where the caller is itself generic.)
        @inline(__always)
        static func with<Value, R>(_ value: UnsafeMutablePointer<Value>, _ body: (Place) throws -> R) rethrows -> R {
            try body(Place(address: UnsafeMutableRawPointer(value), type: Value.self, isMutable: true))
        }

        /// The same for an array, whose `&array` would otherwise be passed as the address of its first
        /// element: the place is the array's own.
        static func with<Element, R>(_ value: inout [Element], _ body: (Place) throws -> R) rethrows -> R {
            try withUnsafeMutablePointer(to: &value) { try with($0, body) }
        }

        /// Runs `body` with the place of `value`, which it may only read.
        @inline(__always)
        static func with<Value, R>(borrowing value: borrowing Value, _ body: (Place) throws -> R) rethrows -> R {
            try withUnsafePointer(to: value) {
                try body(Place(address: UnsafeMutableRawPointer(mutating: $0), type: Value.self, isMutable: false))
            }
        }

        /// Runs `body` with the place of the element at `index` of `buffer`, which it may only read;
        /// nil, without running `body`, when `index` is not in `0..<buffer.count`. (The elements of a
        /// buffer are initialized, and stay so while its owner lends it, for the call that lends it.)
        @inline(__always)
        static func with<Value, R>(
            elementAt index: Int, of buffer: UnsafeBufferPointer<Value>, _ body: (Place) throws -> R
        ) rethrows -> R? {
            guard UInt(bitPattern: index) < UInt(bitPattern: buffer.count), let base = buffer.baseAddress else {
                return nil
            }
            let address = UnsafeMutableRawPointer(mutating: base + index)
            return try body(Place(address: address, type: Value.self, isMutable: false))
        }

        /// Runs `body` with the value, when it is a `Target`; nil, without running `body`, otherwise.
        @inline(__always)
        func read<Target, R>(as target: Target.Type, _ body: (borrowing Target) throws -> R) rethrows -> R? {
            guard type == Target.self else { return nil }
            return try body(address.assumingMemoryBound(to: Target.self).pointee)
        }

        /// Runs `body` with the value to change, when it is a `Target` and may be changed; nil, without
        /// running `body`, otherwise.
        @inline(__always)
        func modify<Target, R>(as target: Target.Type, _ body: (inout Target) throws -> R) rethrows -> R? {
            guard isMutable, type == Target.self else { return nil }
            return try body(&address.assumingMemoryBound(to: Target.self).pointee)
        }
    }
}
