/// A layer above that takes part in a connection's outermost transactions: sync's change capture,
/// which records each transaction's changes in the same transaction. Set with
/// ``Connection/setTransactionParticipant(_:)``; the connection holds it.
protocol TransactionParticipant: AnyObject {
    /// Called before the `BEGIN` of an outermost ``Connection/transaction(_:_:)``; an error stops the
    /// transaction before it begins.
    func willBegin(_ connection: Connection) throws
    /// Called before the `COMMIT` of an outermost ``Connection/transaction(_:_:)``, inside the
    /// transaction: it may run statements. An error rolls the transaction back and is rethrown.
    func willCommit(_ connection: Connection) throws
    /// Called from SQLite's commit hook, for every commit of the connection (a `COMMIT` statement,
    /// or a statement run outside a transaction): false turns the commit into a rollback, which
    /// fails with `SQLITE_CONSTRAINT_COMMITHOOK`. It must not run statements.
    func allowsCommit() -> Bool
    /// Called from SQLite's rollback hook when a transaction rolls back (a refused commit included).
    /// It must not run statements.
    func didRollBack()
    /// Called by ``Connection/close()`` before the connection closes.
    func connectionWillClose()
}
