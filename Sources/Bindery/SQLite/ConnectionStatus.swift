import CSQLite

/// What stops the statements of a connection: whether it is closed, whether a `close()` was refused
/// while it was lent, and whether it was interrupted. A connection and each of its statements share
/// one, so that a statement checks it in one load, before it starts and at each step.
///
/// The flags are one word read and written atomically: ``Connection/interrupt()`` raises
/// ``Flags/interrupted`` from another thread while the connection's own thread reads the word.
final class ConnectionStatus: @unchecked Sendable {
    // @unchecked Sendable is safe: the flags live in the word in `word`, which is read and changed
    // only through atomic operations (`bindery_atomic_*`) at its address, which never changes.
    // `closeRefusal` is read and written only on the thread that uses the connection.

    /// The reasons a statement may not run.
    struct Flags: OptionSet, Sendable {
        let rawValue: UInt32

        /// ``Connection/close()`` ran.
        static let closed = Flags(rawValue: 1)
        /// ``Connection/close()`` was called while the connection was lent (see
        /// ``Connection/beginLending(closeRefusal:)``): it did not close, and nothing runs until the
        /// lending ends.
        static let closeRefused = Flags(rawValue: 2)
        /// ``Connection/interrupt()`` was called: nothing runs until ``Connection/clearInterrupt()``.
        /// Its value is the one `bindery_stop_if_interrupted` (in the C shim) tests.
        static let interrupted = Flags(rawValue: 4)
        /// The statement was finalized (only the status of finalized statements has it).
        static let finalized = Flags(rawValue: 8)
    }

    /// The word itself, in a box of its own so that its address stays the same for as long as the
    /// status lives: SQLite's progress handler reads it there, by address, while a statement runs (see
    /// ``Connection/interrupt()``). The status owns it and frees it in its `deinit`; Swift reads and
    /// writes it only atomically, at ``FixedBox/address``, never through ``FixedBox/value``.
    let word: FixedBox<UInt32>
    /// Why a refused `close()` stops the statements, in the lender's words.
    var closeRefusal = ""
    /// How many events may have undone changes the connection made: statements that failed (SQLite
    /// rolls a failed statement's changes back) and `ROLLBACK TO` of savepoints. A ``ChangeRecorder``
    /// reads its rows again when this moved during its recording. Counted on the connection's thread.
    var possibleUndos: UInt64 = 0
    /// How many statements that change the schema the connection ran (``Connection/noteSchemaChange()``):
    /// a ``ChangeRecorder`` notes it with each change, to tell a row changed before a table's columns
    /// changed. Counted on the connection's thread.
    var schemaChanges: UInt64 = 0
    /// The hooks tracking the connection's writes, told of each statement prepared (see
    /// ``ConnectionHooks/statementPrepared(_:)``); nil while writes are not tracked. Used on the
    /// connection's thread.
    weak var writeTracker: ConnectionHooks?

    init(_ flags: Flags = []) {
        word = .allocate(flags.rawValue)
    }

    deinit {
        word.deallocate()
    }

    /// The status every finalized statement points to, so that stepping one throws.
    static let finalized = ConnectionStatus(.finalized)

    /// Whether no flag is raised: statements may run.
    @inline(__always)
    var isClear: Bool {
        bindery_atomic_load(word.address) == 0
    }

    /// The flags raised now.
    var flags: Flags {
        Flags(rawValue: bindery_atomic_load(word.address))
    }

    /// Raises `flags`.
    func raise(_ flags: Flags) {
        bindery_atomic_or(word.address, flags.rawValue)
    }

    /// Lowers `flags`.
    func lower(_ flags: Flags) {
        bindery_atomic_and(word.address, ~flags.rawValue)
    }

    /// The error for a statement (`sql`, if known) that may not run: ``SQLiteError/Code/misuse`` for a
    /// closed connection, a refused close or a finalized statement, ``SQLiteError/Code/interrupt`` for
    /// an interrupt.
    func error(sql: String?) -> SQLiteError {
        let flags = self.flags
        if flags.contains(.finalized) {
            return SQLiteError(
                code: .misuse, message: "the statement was finalized; a finalized statement never runs", sql: sql)
        }
        if flags.contains(.closed) {
            return SQLiteError(
                code: .misuse,
                message: "the connection is closed (it was closed before this statement ran, or while it ran)",
                sql: sql)
        }
        if flags.contains(.closeRefused) {
            return SQLiteError(code: .misuse, message: closeRefusal, sql: sql)
        }
        return SQLiteError(
            code: .interrupt, extendedCode: SQLITE_INTERRUPT,
            message: "interrupted: the statement was stopped before it could start or go on", sql: sql)
    }
}
