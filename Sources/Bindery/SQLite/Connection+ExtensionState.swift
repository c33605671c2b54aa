/// The per-connection state that the layers above keep on a connection, kept and lent by its
/// ``ExtensionStore``.
extension Connection {
    /// The per-connection state of type `T` kept by a layer above, made on first use.
    @inline(__always)
    func extensionState<T: AnyObject>(_ make: () -> T) -> T {
        extensionStore.state(make)
    }

    /// Replaces the per-connection state of type `T`. One lent by a running
    /// ``withExtensionState(_:_:)`` lives until that call ends.
    func setExtensionState<T: AnyObject>(_ state: T) {
        extensionStore.set(state)
    }

    /// Runs `body` with the per-connection state of type `T` (made by `make` on first use), lent
    /// (``ExtensionStore/lend(_:_:)``): it lives until `body` returns, even when `body` replaces it
    /// (``setExtensionState(_:)``) or closes the connection.
    @inline(__always)
    func withExtensionState<T: AnyObject, R>(_ make: () -> T, _ body: (T) throws -> R) rethrows -> R {
        try extensionStore.lend(make, body)
    }

    /// How many replaced or dropped extension states wait for the lends running now to end.
    var retiredExtensionCount: Int { extensionStore.retiredCount }

    /// How many statements lent out now the statement cache holds only until they come back.
    var statementsLentUnheld: Int { statementCache.lentUnheldCount }
}
