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
    /// The result of a first step taken by ``stepAhead()``, for the first ``next()``.
    private var firstStep: Bool?

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

    /// Takes the first step now, so that the statement reads the snapshot of the transaction it is
    /// made in (a request's to-many records are fetched in one), whatever is committed before the
    /// first ``next()``.
    func stepAhead() throws {
        guard let statement, firstStep == nil else { return }
        do {
            firstStep = try statement.step()
        } catch {
            finish()
            throw error
        }
    }

    /// The next value, or nil when there are no more rows.
    public func next() throws -> T? {
        guard let statement else { return nil }
        // `step` throws when the connection was closed (or interrupted) since the last row.
        do {
            let hasRow: Bool
            if let firstStep {
                self.firstStep = nil
                hasRow = firstStep
            } else {
                hasRow = try statement.step()
            }
            if hasRow {
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
