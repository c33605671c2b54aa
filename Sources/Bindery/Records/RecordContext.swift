/// The record layer's state on one connection: the coding options, a value encoder, and per record
/// type the SQL built once and the encoder that learned the type's columns.
final class RecordContext {
    /// The conversions used by every record operation and ``SQL`` value on the connection.
    let options: CodingOptions
    /// Converts interpolated ``SQL`` values.
    let values: ValueEncoder
    private var types: [ObjectIdentifier: RecordTypeState] = [:]
    /// The record type asked for last, and its state (held by ``types``): found again without a
    /// dictionary look-up, and lent without counting a reference (``Lent``).
    private var lastKey: ObjectIdentifier?
    private var lastState: Lent<RecordTypeState>?
    /// Whether `insert` always asks for `RETURNING *`, even where a plain INSERT tells the row as
    /// stored: how tests compare the two ways.
    var insertsReturningAlways = false
    /// How many times `insert` ran a plain INSERT (no `RETURNING`), for tests.
    var plainInsertCount = 0
    /// How many records bulk inserts stored through multi-row statements (batches that ran whole), for
    /// tests.
    var batchedRecordCount = 0

    /// The automatic rule for nested values of joined rows: a nested record reads its table's columns.
    /// (It never counts a table's columns: only scopes given with a query do.)
    let scoping = RowScoping(tableName: RecordContext.recordTable, tableColumns: { _ in [] })

    /// The table of a record type, nil for any other type.
    static func recordTable(_ type: Any.Type) -> String? {
        (type as? any Record.Type)?.tableName
    }

    init(options: CodingOptions) {
        self.options = options
        self.values = ValueEncoder(options: options)
    }

    /// The state of record type `T`, made on first use. The type asked for last is checked inline, in
    /// the caller; any other is found out of line.
    @inline(__always)
    func state<T: Record>(for type: T.Type) -> RecordTypeState {
        if let lastState, lastKey == ObjectIdentifier(T.self) {
            return lastState.object
        }
        return otherState(for: T.self)
    }

    /// Runs `body` with the state of record type `T` (see ``state(for:)``), lent without counting a
    /// reference. The caller holds the context, which holds every state it made for as long as it
    /// lives.
    @inline(__always)
    func withState<T: Record, R>(for type: T.Type, _ body: (RecordTypeState) throws -> R) rethrows -> R {
        // One call of `body`, which is then inlined here.
        let lent: Lent<RecordTypeState>
        if let lastState, lastKey == ObjectIdentifier(T.self) {
            lent = lastState
        } else {
            lent = Lent(otherState(for: T.self))  // which the context now holds
        }
        return try lent.with(body)
    }

    /// ``state(for:)`` when `T` is not the type asked for last.
    @inline(never)
    private func otherState<T: Record>(for type: T.Type) -> RecordTypeState {
        let key = ObjectIdentifier(T.self)
        let state: RecordTypeState
        if let known = types[key] {
            state = known
        } else {
            state = RecordTypeState(
                table: T.tableName, primaryKey: T.primaryKey, options: options,
                storedAsGiven: T.self as? any StoredAsGiven.Type)
            types[key] = state
        }
        lastKey = key
        lastState = Lent(state)
        return state
    }
}

extension Connection {
    /// The record layer's state on this connection.
    var recordContext: RecordContext {
        extensionState { RecordContext(options: CodingOptions()) }
    }

    /// Runs `body` with ``recordContext``, lent (``Connection/withExtensionState(_:_:)``): it lives until
    /// `body` returns, whatever user code run by `body` does to the connection.
    @inline(__always)
    func withRecordContext<R>(_ body: (RecordContext) throws -> R) rethrows -> R {
        try withExtensionState({ RecordContext(options: CodingOptions()) }, body)
    }

    /// How this connection converts record properties and interpolated ``SQL`` values.
    ///
    /// Setting it empties the statement cache, so that no statement keeps decoding with the old
    /// options.
    public var codingOptions: CodingOptions {
        get { recordContext.options }
        set {
            setExtensionState(RecordContext(options: newValue))
            clearStatementCache()
        }
    }
}
