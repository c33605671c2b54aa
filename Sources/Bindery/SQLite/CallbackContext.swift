import CSQLite
import Foundation

/// The context pointer that SQLite hands back to a C callback (a hook, an authorizer, a changeset
/// conflict handler), naming the Swift object the callback is for: the one place the SQLite layer turns
/// an object into a C pointer and back. ``Name`` holds the names (of tables, of schemas) such a
/// callback is given.
///
/// Safety: a ``retainedPointer(to:)`` counts one reference, which SQLite's destructor callback for
/// it gives back (a collation's, called once when the collation is replaced or the connection
/// closes; when the registration fails, SQLite calls no destructor and the registering code gives it
/// back). Any other pointer does not count a reference. Each registration keeps its object alive for as
/// long as SQLite may call back with the pointer: ``ConnectionHooks`` removes its callbacks before it
/// goes, ``ChangeRecorder`` removes its preupdate hook when it closes (and before the connection
/// closes), and a changeset's apply context is used only during the apply call, which holds it. A
/// ``Name`` points into memory SQLite owns for the duration of the callback: it is made inside the
/// callback, used there and never stored (its users copy it into a `String` to keep it).
enum CallbackContext {
    /// The context pointer for `object`, which must outlive every callback made with it.
    static func pointer(to object: AnyObject) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(object).toOpaque()
    }

    /// A context pointer that holds a reference to `object`, for a registration whose destructor
    /// callback SQLite calls once when it lets go of the pointer (a collation's, when it is replaced
    /// or the connection closes): the destructor, or the registering code when SQLite refuses the
    /// registration (and then calls no destructor), must ``release(_:)`` it, exactly once.
    static func retainedPointer(to object: AnyObject) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(object).toOpaque()
    }

    /// Gives back the reference that a ``retainedPointer(to:)`` pointer holds; the pointer is not
    /// used again.
    static func release(_ context: UnsafeMutableRawPointer) {
        Unmanaged<AnyObject>.fromOpaque(context).release()
    }

    /// The object of type `T` that `context` (made by ``pointer(to:)`` or ``retainedPointer(to:)``
    /// from a `T`) names.
    static func object<T: AnyObject>(_ context: UnsafeMutableRawPointer, as type: T.Type) -> T {
        Unmanaged<T>.fromOpaque(context).takeUnretainedValue()
    }

    /// The `count` bytes of UTF-8 text at `text` that SQLite hands a callback (a collation's, not
    /// NUL-terminated, valid while the callback runs), copied into a `String`, bad bytes replaced.
    static func text(_ text: UnsafeRawPointer?, count: Int32) -> String {
        guard let text, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: Int(count)), as: UTF8.self)
    }

    /// A NUL-terminated name SQLite hands to a callback, valid only while the callback runs.
    struct Name {
        private let text: UnsafePointer<CChar>

        /// The name at `text`, which SQLite gave the running callback.
        init(_ text: UnsafePointer<CChar>) {
            self.text = text
        }

        /// A copy of the name.
        var string: String { String(cString: text) }

        /// Whether the name is `other`, byte for byte.
        func isSame(as other: String) -> Bool {
            other.withCString { strcmp($0, text) } == 0
        }

        /// Whether the name is the NUL-terminated `other`, ignoring ASCII case (`sqlite3_stricmp`).
        func isSameIgnoringCase(as other: [CChar]) -> Bool {
            sqlite3_stricmp(text, other) == 0
        }

        /// Whether the name starts with `prefix`, ignoring ASCII case (`sqlite3_strnicmp`).
        func hasPrefixIgnoringCase(_ prefix: String) -> Bool {
            sqlite3_strnicmp(text, prefix, Int32(prefix.utf8.count)) == 0
        }
    }
}
