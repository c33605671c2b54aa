/// The record layer's state on one connection: the coding options, a value encoder, and per record
/// type the SQL built once and the encoder that learned the type's columns.
final class RecordContext {
    /// The conversions used by every record operation and ``SQL`` value on the connection.
    let options: CodingOptions
    /// Converts interpolated ``SQL`` values.
    let values: ValueEncoder
    private var types: [ObjectIdentifier: RecordTypeState] = [:]
    /// The record type asked for last, and its state: found again without a dictionary look-up.
    private var last: (key: ObjectIdentifier, state: RecordTypeState)?
    /// Whether `insert` always asks for `RETURNING *`, even where a plain INSERT tells the row as
    /// stored: how tests compare the two ways.
    var insertsReturningAlways = false
    /// How many times `insert` ran a plain INSERT (no `RETURNING`), for tests.
    var plainInsertCount = 0

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
        if let last, last.key == ObjectIdentifier(T.self) {
            return last.state
        }
        return otherState(for: T.self)
    }

    /// ``state(for:)`` when `T` is not the type asked for last.
    @inline(never)
    private func otherState<T: Record>(for type: T.Type) -> RecordTypeState {
        let key = ObjectIdentifier(T.self)
        if let state = types[key] {
            last = (key, state)
            return state
        }
        let state = RecordTypeState(
            table: T.tableName, primaryKey: T.primaryKey, options: options,
            storedAsGiven: T.self as? any StoredAsGiven.Type)
        types[key] = state
        last = (key, state)
        return state
    }
}

extension Connection {
    /// The record layer's state on this connection.
    var recordContext: RecordContext {
        extensionState { RecordContext(options: CodingOptions()) }
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
