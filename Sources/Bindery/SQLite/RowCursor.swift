/// A lazy sequence of values read from a statement one row at a time, in constant memory.
///
/// Call ``next()`` until it returns nil; a cursor that is not read to its end gives its statement back
/// when it is deallocated.
public protocol Cursor<Element>: AnyObject {
    /// The type of the values the cursor yields.
    associatedtype Element

    /// The next value, or nil when the rows are exhausted.
    func next() throws -> Element?
}

extension Cursor {
    /// Calls `body` with every remaining value.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() {
            try body(element)
        }
    }

    /// Every remaining value, in an array.
    public func collect() throws -> [Element] {
        var elements: [Element] = []
        while let element = try next() {
            elements.append(element)
        }
        return elements
    }
}

/// A cursor over ``Row``s, from ``Connection/rowCursor(_:arguments:)``.
public final class RowCursor: Cursor {
    private let connection: Connection
    private var statement: Statement?
    /// Read after the first step, which re-prepares a statement whose schema changed.
    private var columns: RowColumns?

    init(connection: Connection, statement: Statement) {
        self.connection = connection
        self.statement = statement
    }

    deinit {
        if let statement {
            connection.release(statement)
        }
    }

    /// The next row, or nil when there are no more.
    public func next() throws -> Row? {
        guard let statement else { return nil }
        // `step` throws when the connection was closed (or interrupted) since the last row.
        do {
            if try statement.step() {
                let columns = self.columns ?? RowColumns(names: statement.columnNames)
                self.columns = columns
                return Row(
                    values: try (0..<statement.columnCount).map { try statement.value(at: $0) }, columns: columns)
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
