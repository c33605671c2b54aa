/// The per-connection state that the layers above keep on a connection (the record layer's context,
/// the hooks, the schema log), one object per type, and how it is lent.
///
/// A state is lent by ``lend(_:_:)`` without counting a reference (``Lent``): the store holds it until
/// the lend ends. A state replaced (``set(_:)``) or dropped (``removeAll()``, when the connection
/// closes) while any lend runs goes to the retired states, freed when the last lend ends; the state
/// asked for last is found again without a dictionary look-up.
///
/// Used on the connection's thread only, like the connection.
final class ExtensionStore {
    private var states: [ObjectIdentifier: AnyObject] = [:]
    /// The state asked for last and its type (held by ``states``): found again without a look-up.
    private var last: (key: ObjectIdentifier, state: Lent<AnyObject>)?
    /// How many ``lend(_:_:)`` calls are running: while any is, replaced or dropped states are
    /// retired instead of being freed.
    private var lends = 0
    /// States replaced or dropped while one may be lent; freed when the last lend ends.
    private var retired: [AnyObject] = []
    /// Whether ``retired`` holds anything: the check at the end of every lend reads this byte, where
    /// reading the array itself is checked for exclusive access at run time (callgrind, issue 38:
    /// `insert()` one by one, about 70 instructions a record in `swift_beginAccess`).
    private var hasRetired = false

    /// The state of type `T`, made by `make` on first use.
    func state<T: AnyObject>(_ make: () -> T) -> T {
        let key = ObjectIdentifier(T.self)
        if let last, last.key == key, let state = last.state.exactly(T.self) {
            return state.object
        }
        return other(make)
    }

    /// ``state(_:)`` when `T` is not the type asked for last.
    @inline(never)
    private func other<T: AnyObject>(_ make: () -> T) -> T {
        let key = ObjectIdentifier(T.self)
        if let state = states[key] as? T {
            last = (key, Lent(state))
            return state
        }
        let state = make()
        states[key] = state
        last = (key, Lent(state))
        return state
    }

    /// Replaces the state of type `T`; one lent by a running ``lend(_:_:)`` lives until that call ends.
    func set<T: AnyObject>(_ state: T) {
        let key = ObjectIdentifier(T.self)
        let old = states.updateValue(state, forKey: key)
        if lends > 0, let old {
            retired.append(old)
            hasRetired = true
        }
        last = (key, Lent(state))
    }

    /// Drops every state (the connection closes); those lent live until their lends end.
    func removeAll() {
        if lends > 0 {
            retired.append(contentsOf: states.values)
            hasRetired = !retired.isEmpty
        }
        states.removeAll()
        last = nil
    }

    /// Runs `body` with the state of type `T` (made by `make` on first use), lent: the store keeps it
    /// alive until `body` returns, even when `body` replaces it or closes the connection.
    @inline(__always)
    func lend<T: AnyObject, R>(_ make: () -> T, _ body: (T) throws -> R) rethrows -> R {
        lends &+= 1
        defer {
            lends &-= 1
            if lends == 0, hasRetired {
                freeRetired()
            }
        }
        // One call of `body`, which is then inlined here.
        let lent: Lent<T>
        if let last, last.key == ObjectIdentifier(T.self), let state = last.state.exactly(T.self) {
            lent = state
        } else {
            lent = Lent(other(make))  // which the store now holds
        }
        return try lent.with(body)
    }

    /// How many replaced or dropped states wait for the lends running now to end.
    var retiredCount: Int { retired.count }

    /// Frees the states replaced while lent, once no lend runs.
    @inline(never)
    private func freeRetired() {
        retired.removeAll()
        hasRetired = false
    }
}
