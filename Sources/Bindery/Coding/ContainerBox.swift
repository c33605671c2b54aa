/// Holds a keyed container so that it can be kept, type-erased, from one row (or record) to the next.
///
/// The container's type is the box's own generic parameter, on purpose: a `KeyedDecodingContainer<Key>`
/// has a layout the standard library does not publish, so copying one in code generic over `Key`
/// looks up its metadata in the runtime's cache each time (some 300 instructions). ``value()`` is
/// generic over the container type itself and finds that metadata in the box's class metadata.
///
/// The container lives in memory of its own rather than in a stored property: reading it, and asking
/// whether it is shared, then pays for no exclusivity check and no closure.
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
