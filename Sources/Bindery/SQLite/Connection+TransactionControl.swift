/// Transaction control in single statements run inside a transaction scope.
extension Connection {
    /// Throws ``SQLiteError/Code/misuse`` before `statement` runs when it could end the transaction of
    /// the open ``transaction(_:_:)`` scope (`COMMIT`, `END`, `ROLLBACK`) or release its savepoint (a
    /// `RELEASE` of a savepoint no statement of the scope opened), and gives the statement back then:
    /// the scope commits when its body returns, or not at all. Savepoints the scope's statements open
    /// are remembered, so that they may be released and rolled back to.
    func guardTransactionControl(of statement: Statement) throws {
        guard statement.isTransactionControl else { return }
        let control = statement.transactionControl
        do {
            try Connection.checkControl(control, sql: statement.sql, savepoints: scopeSavepoints, inScript: false)
        } catch {
            release(statement)
            throw error
        }
        if case .rollbackTo = control {
            // Counted before it runs: what it undoes is read again by a change recorder either way.
            status.possibleUndos &+= 1
        }
        Connection.track(control, in: &scopeSavepoints)
    }
}
