/// A cursor decoding rows as `T` one at a time, from ``Connection/fetchCursor(_:sql:)``.
///
/// Only one row is in memory at a time, whatever the size of the result. A cursor that is not read to
/// its end gives its statement back when it is deallocated.
public final class RecordCursor<T: Decodable>: Cursor {
    private let connection: Connection
    private var statement: Statement?
    private let options: CodingOptions
    /// How nested values of a joined row find their columns.
    private let scoping: RowScoping
    /// Made after the first step, which re-prepares a statement whose schema changed.
    private var decoder: RowDecoder?

    init(connection: Connection, statement: Statement, options: CodingOptions, scoping: RowScoping) {
        self.connection = connection
        self.statement = statement
        self.options = options
        self.scoping = scoping
    }

    deinit {
        if let statement {
            connection.release(statement)
        }
    }

    /// The next value, or nil when there are no more rows.
    public func next() throws -> T? {
        guard let statement else { return nil }
        // `step` throws when the connection was closed (or interrupted) since the last row.
        do {
            if try statement.step() {
                let decoder =
                    self.decoder ?? RowDecoder.attached(to: statement, options: options, for: T.self, scoping: scoping)
                self.decoder = decoder
                return try decoder.decodeRow(T.self)
            }
        } catch {
            finish()
            throw error
        }
        finish()
        return nil
    }

    private func finish() {
        if let statement {
            connection.release(statement)
            self.statement = nil
        }
    }
}
