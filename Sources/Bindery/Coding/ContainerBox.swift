/// Holds a keyed container so that it can be kept, type-erased, from one row (or record) to the next.
///
/// The container's type is the box's own generic parameter, on purpose: a `KeyedDecodingContainer<Key>`
/// has a layout the standard library does not publish, so copying one in code generic over `Key`
/// looks up its metadata in the runtime's cache each time (some 300 instructions). ``value()`` is
/// generic over the container type itself and finds that metadata in the box's class metadata.
///
/// The container lives in memory of its own rather than in a stored property: reading it, and asking
/// whether it is shared, then pays for no exclusivity check and no closure.
///
/// Safety: this file is the only one that casts a box back to its type or reads a container's count
/// through a pointer. A box is only ever made, kept and cast back by ``ContainerSlot``, which keeps it
/// with the key type of the container it holds and hands it back only for that key type: the family
/// (decoding or encoding) is the slot's type parameter, so the container type is fixed by the key type
/// and the cast is of the box's own class. ``reference`` points into the box's memory and is used only
/// while the slot holds the box.
final class ContainerBox<Container> {
    private let storage: UnsafeMutablePointer<Container>

    init(_ container: Container) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: container)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// A copy of the container. Kept out of line: inlined into code generic over the key type, the
    /// copy would look the container type's metadata up again.
    @inline(never)
    func value() -> Container {
        storage.pointee
    }

    /// The container as the one counted reference it is made of, or nil when its layout is anything
    /// else: its count says whether a copy of the container is held outside the box.
    ///
    /// A `KeyedDecodingContainer` (or `KeyedEncodingContainer`) is one reference to the standard
    /// library's box of the concrete container, and every copy shares that box. The layout is checked
    /// here, not assumed: the container is the size and alignment of one reference, and its one stored
    /// property (as `Mirror` reflects it) is an instance of a class. When that does not hold, the
    /// caller treats the container as shared, which is always safe.
    var reference: UnsafeMutablePointer<AnyObject>? {
        guard MemoryLayout<Container>.size == MemoryLayout<AnyObject>.size,
            MemoryLayout<Container>.alignment == MemoryLayout<AnyObject>.alignment,
            Self.isOneReference(storage.pointee)
        else {
            return nil
        }
        return UnsafeMutableRawPointer(storage).assumingMemoryBound(to: AnyObject.self)
    }

    /// Whether `container` has one stored property, holding a class instance.
    private static func isOneReference(_ container: Container) -> Bool {
        let children = Mirror(reflecting: container).children
        guard children.count == 1, let only = children.first else { return false }
        return type(of: only.value) is AnyClass
    }

    /// Whether nothing but its box holds the container whose counted reference this is (see
    /// ``reference``); false when it is nil (unknown). (The container type plays no part here.)
    @inline(__always)
    static func isUnshared(_ reference: UnsafeMutablePointer<AnyObject>?) -> Bool {
        guard let reference else { return false }
        // Asked of a reference of a Swift class type (any: the count is read, nothing else), so that
        // the check is the runtime's one call; of an `AnyObject`, it goes through the standard
        // library's unspecialized generic function first (callgrind: about 10 instructions).
        return reference.withMemoryRebound(to: ContainerBox<Void>.self, capacity: 1) {
            isKnownUniquelyReferenced(&$0.pointee)
        }
    }
}

/// The keyed containers a ``ContainerSlot`` holds: `KeyedDecodingContainer`s.
enum DecodingContainers {}
/// The keyed containers a ``ContainerSlot`` holds: `KeyedEncodingContainer`s.
enum EncodingContainers {}

/// The keyed container a decoder (or encoder) reuses row after row, boxed, with its tag table: kept by
/// ``keep(_:tags:)`` for the first key type asked for, handed back by ``reuse(keyedBy:)`` for that key
/// type only, dropped when a decoded value kept it (``wasKept()``).
///
/// `Family` (``DecodingContainers`` or ``EncodingContainers``) says which kind of container it holds,
/// so that the key type alone tells the container's type.
///
/// ``reuse(keyedBy:)`` hands back the box, typed, not an optional container: in code generic over the
/// key type, an `Optional<KeyedDecodingContainer<Key>>` has a layout known only from the runtime's
/// metadata, looked up on every call (with the exclusivity checks of an encoder's stored slot, that
/// cost +11.6% on the bulk insert of 100,000 records, +8.2% on fetchAll of 100,000, callgrind); an
/// optional reference to a class has a layout of its own.
struct ContainerSlot<Family> {
    /// The box, a `ContainerBox<KeyedDecodingContainer<Key>>` (or `…Encoding…`) for ``keyType``'s `Key`.
    private var box: AnyObject?
    /// The key type of the container; ``noKeyType`` when there is none. Not an optional: comparing one
    /// costs a few instructions more on every record.
    private var keyType = noKeyType
    /// The box's container as its counted reference (see ``ContainerBox/reference``).
    private var reference: UnsafeMutablePointer<AnyObject>?
    /// Whether the container was handed out since the last ``wasKept()``.
    private var handedOut = false
    /// The tag table of the container, when its keys are plain enum cases (see ``KeyTagTable``), kept
    /// alive as long as the container is.
    private(set) var tags: KeyTagTable?

    /// No coding key type: `Void` is not one.
    private static var noKeyType: ObjectIdentifier { ObjectIdentifier(Void.self) }

    /// Whether no container is kept.
    var isEmpty: Bool { box == nil }

    /// Whether the container handed out since the last call is held outside the slot (a decoded value
    /// kept it): the caller then drops it (``drop()``) and moves its counter on. Call it when each row
    /// ends.
    @inline(__always)
    mutating func wasKept() -> Bool {
        guard handedOut else { return false }
        handedOut = false
        return !ContainerBox<Void>.isUnshared(reference)
    }

    /// Forgets the container (and its tag table).
    mutating func drop() {
        self = ContainerSlot()
    }

    /// The kept box for `Key`'s container, or nil; marks it handed out.
    @inline(__always)
    private mutating func reuseBox<Key: CodingKey>(keyedBy type: Key.Type) -> AnyObject? {
        guard let box, keyType == ObjectIdentifier(Key.self) else { return nil }
        handedOut = true
        return box
    }

    /// Keeps `box`, holding `Key`'s container, handed out.
    private mutating func keepBox<Key: CodingKey, Container>(
        _ box: ContainerBox<Container>, _ type: Key.Type, tags: KeyTagTable?
    ) {
        self.box = box
        self.keyType = ObjectIdentifier(Key.self)
        self.reference = box.reference
        self.handedOut = true
        self.tags = tags
    }
}

extension ContainerSlot where Family == DecodingContainers {
    /// The box of the kept container when it is `Key`'s, handed out (its ``ContainerBox/value()`` is
    /// the container); nil otherwise.
    @inline(__always)
    mutating func reuse<Key: CodingKey>(keyedBy type: Key.Type) -> ContainerBox<KeyedDecodingContainer<Key>>? {
        guard let box = reuseBox(keyedBy: Key.self) else { return nil }
        // Safe: a box kept for `Key` in a slot of decoding containers holds a `KeyedDecodingContainer<Key>`.
        return unsafeDowncast(box, to: ContainerBox<KeyedDecodingContainer<Key>>.self)
    }

    /// Keeps `container` (with its tag table), handed out.
    mutating func keep<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, tags: KeyTagTable?) {
        keepBox(ContainerBox(container), Key.self, tags: tags)
    }
}

extension ContainerSlot where Family == EncodingContainers {
    /// The box of the kept container when it is `Key`'s, handed out (its ``ContainerBox/value()`` is
    /// the container); nil otherwise.
    @inline(__always)
    mutating func reuse<Key: CodingKey>(keyedBy type: Key.Type) -> ContainerBox<KeyedEncodingContainer<Key>>? {
        guard let box = reuseBox(keyedBy: Key.self) else { return nil }
        // Safe: a box kept for `Key` in a slot of encoding containers holds a `KeyedEncodingContainer<Key>`.
        return unsafeDowncast(box, to: ContainerBox<KeyedEncodingContainer<Key>>.self)
    }

    /// Keeps `container` (with its tag table), handed out.
    mutating func keep<Key: CodingKey>(_ container: KeyedEncodingContainer<Key>, tags: KeyTagTable?) {
        keepBox(ContainerBox(container), Key.self, tags: tags)
    }
}
