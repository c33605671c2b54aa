/// The context pointer that SQLite hands back to a C callback (a hook, an authorizer, a changeset
/// conflict handler), naming the Swift object the callback is for: the one place the SQLite layer turns
/// an object into a C pointer and back.
///
/// Safety: the pointer does not count a reference. Each registration keeps its object alive for as
/// long as SQLite may call back with the pointer: ``ConnectionHooks`` removes its callbacks before it
/// goes, ``ChangeRecorder`` removes its preupdate hook when it closes (and before the connection
/// closes), and a changeset's apply context is used only during the apply call, which holds it.
enum CallbackContext {
    /// The context pointer for `object`, which must outlive every callback made with it.
    static func pointer(to object: AnyObject) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(object).toOpaque()
    }

    /// The object of type `T` that `context` (made by ``pointer(to:)`` from a `T`) names.
    static func object<T: AnyObject>(_ context: UnsafeMutableRawPointer, as type: T.Type) -> T {
        Unmanaged<T>.fromOpaque(context).takeUnretainedValue()
    }
}
