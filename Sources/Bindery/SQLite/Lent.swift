/// A reference to an object lent without counting it: the one place where Bindery uses an object
/// whose lifetime something else guarantees.
///
/// Each record call lends the same few objects (the record layer's state on the connection, the
/// record type's state and encoder, the cached statement, the insert's memo and plan). Lent as strong
/// references, each lend retains and releases its object: measured with callgrind (issue 38, against
/// e18be8d, where they were lent without counting), plain strong references cost `insert()` one by
/// one 4.27% of its instructions (782,780,548 → 816,173,089 for 100,000 records), `insert()` of
/// decoded records 2.69% and `update()` 2.48%; lent through this type, 1.35% and 0.86% (`insert()`,
/// `update()`).
///
/// The safety argument, which every maker of a `Lent` relies on:
///
/// - **Who holds it.** A `Lent` is made only from an object that an owner holds strongly, and is used
///   only while the owner keeps holding it: the statement cache holds each statement it lends until
///   it comes back (``StatementCache/release(_:)``), even when it drops it meanwhile (it then keeps it
///   in its list of statements lent but not held); the connection's ``ExtensionStore`` holds each
///   state it lends until the last lend running ends, even when it is replaced or the connection
///   closes (it then keeps it among its retired states); a ``RecordContext`` holds every
///   ``RecordTypeState`` it made for as long as it lives; a record type's state holds its encoder
///   (and, for a call made while that one is in use, a nested encoder until the call ends) and its
///   last insert memo, which only an insert of that encoder's row replaces; a statement holds its
///   attachment (an insert plan), which only the call that uses the statement replaces.
/// - **For how long.** A `Lent` is never stored beyond the call that lends it, except as the memo of
///   its owner (``ExtensionStore``, ``StatementCache``, ``RecordContext``), which drops the memo
///   when it lets the object go, and in what a decoded or encoded value may keep (a keyed container,
///   the `Encoder` handed to `encode(to:)`): those hold it in a `RowGenerations.Held` with a stamp of
///   the decoder's (or encoder's) counters, and reach it only while the stamp is current, which it
///   stops being before the decoder is freed (its `deinit` moves the counters on); the keyed
///   container of the inserted-row decoder reads its decoder's row of values under the same check.
/// - **What retires it.** The owner: the statement's `release`, the end of the last extension lend,
///   the context's own deinitialization.
///
/// `LendingTests` checks the contract (a statement lent through `clearStatementCache()`, a state lent
/// through `close()`, a lend inside a lend), and `scripts/asan` runs it with the suites that lend.
struct Lent<Object: AnyObject> {
    /// The reference, not counted.
    private let reference: Unmanaged<Object>

    /// Lends `object`, which its owner holds for as long as this value is used (see the type's
    /// comment).
    @inline(__always)
    init(_ object: Object) {
        reference = Unmanaged.passUnretained(object)
    }

    /// Runs `body` with the object, without counting a reference for the call.
    @inline(__always)
    func with<R>(_ body: (Object) throws -> R) rethrows -> R {
        // The one underscored standard-library call of the SQLite and Records layers, kept for its
        // figure (callgrind, issue 38): with `body(reference.takeUnretainedValue())`, which retains and
        // releases the object on every lend, `insert()` one by one costs 845,170,770 instructions for
        // 100,000 records against 793,370,492 with this (+6.5%), and `update()` 999,524,018 against
        // 970,323,735 (+3.0%). No public form of it exists: measured again on 2026-12-07 (insert one by
        // one, 784.67M instructions with this), an `unowned(unsafe)` reference costs 842.77M (+7.4%: each
        // use retains it), and reading the reference's bytes through `withUnsafePointer` and
        // `withMemoryRebound` 960.77M to 1,130.37M (their closures are not inlined in generic code).
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` with the object, without counting a reference for the call, and `value` to change.
    /// Passed as a parameter rather than captured by `body`, `value` is not copied: a closure that
    /// captures an `inout` value and borrows it copies it first (callgrind, issue 38: `insert()` one by
    /// one, a copy of the 88-byte record, 17 instructions, and a release per record).
    @inline(__always)
    func with<Value, R>(_ value: inout Value, _ body: (Object, inout Value) throws -> R) rethrows -> R {
        try with { try body($0, &value) }
    }

    /// The object, as a counted reference that the caller may keep.
    @inline(__always)
    var object: Object {
        reference.takeUnretainedValue()
    }

    /// The same object lent as a `T`, when it is exactly of class `T` (not a subclass): recognised by
    /// comparing classes, without the runtime's cast.
    @inline(__always)
    func exactly<T: AnyObject>(_ type: T.Type) -> Lent<T>? {
        // Opened as `AnyObject`: in generic code, `type(of:)` of an `Object` that is itself
        // `AnyObject` would be the static metatype, never `T`.
        guard with({ Swift.type(of: $0 as AnyObject) == T.self }) else { return nil }
        return Lent<T>(reference: Unmanaged<T>.fromOpaque(reference.toOpaque()))
    }

    @inline(__always)
    private init(reference: Unmanaged<Object>) {
        self.reference = reference
    }
}
