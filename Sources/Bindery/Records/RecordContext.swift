/// The record layer's state on one connection: the coding options, a value encoder, and per record
/// type the SQL built once and the encoder that learned the type's columns.
final class RecordContext {
    /// The conversions used by every record operation and ``SQL`` value on the connection.
    let options: CodingOptions
    /// Converts interpolated ``SQL`` values.
    let values: ValueEncoder
    private var types: [ObjectIdentifier: RecordTypeState] = [:]
    /// The type asked for last and its state: calls one record at a time find it without hashing.
    private var lastType: ObjectIdentifier?
    private var lastState: RecordTypeState?

    init(options: CodingOptions) {
        self.options = options
        self.values = ValueEncoder(options: options)
    }

    /// The state of record type `T`, made on first use.
    func state<T: Record>(for type: T.Type) -> RecordTypeState {
        let key = ObjectIdentifier(T.self)
        if key == lastType, let lastState {
            return lastState
        }
        let state: RecordTypeState
        if let known = types[key] {
            state = known
        } else {
            state = RecordTypeState(table: T.tableName, primaryKey: T.primaryKey, options: options)
            types[key] = state
        }
        lastType = key
        lastState = state
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
