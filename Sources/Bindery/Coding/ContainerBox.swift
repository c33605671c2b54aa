/// Holds a keyed container so that it can be kept, type-erased, from one row (or record) to the next.
///
/// The container's type is the box's own generic parameter, on purpose: a `KeyedDecodingContainer<Key>`
/// has a layout the standard library does not publish, so copying one in code generic over `Key`
/// looks up its metadata in the runtime's cache each time (some 300 instructions). ``value()`` is
/// generic over the container type itself and finds that metadata in the box's class metadata.
final class ContainerBox<Container> {
    private let container: Container

    init(_ container: Container) {
        self.container = container
    }

    /// A copy of the container. Kept out of line: inlined into code generic over the key type, the
    /// copy would look the container type's metadata up again.
    @inline(never)
    func value() -> Container {
        container
    }
}
