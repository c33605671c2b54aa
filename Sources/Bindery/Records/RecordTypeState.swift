/// One record type's SQL on one connection, built once for each set of columns, and its encoder.
///
/// The encoder serves one operation at a time. An operation that starts while another one of the same
/// type runs on the connection (an `encode(to:)` or `init(from:)` that inserts a record of its own type)
/// gets an encoder of its own (``checkOutEncoder()``), so that it never writes into the row the outer
/// operation is building.
final class RecordTypeState {
    /// The table name, quoted.
    let table: String
    /// The table name as the type declares it.
    let tableName: String
    /// The primary key's column names.
    let primaryKey: [String]
    /// The type, when it is ``StoredAsGiven``: `insert` then returns a record stored as given without
    /// decoding it, after ``StoredAsGiven/didInsert(rowID:)``.
    let storedAsGiven: (any StoredAsGiven.Type)?
    /// The encoder reused for every record of the type; it keeps the learned column slots.
    let encoder: RowEncoderCore
    /// ``encoder``, lent without counting a reference (the state holds it).
    private let encoderLent: Lent<RowEncoderCore>
    private let options: CodingOptions
    /// Whether an operation under way uses ``encoder``.
    private var encoderInUse = false
    /// The encoders of ``withEncoder(_:)`` calls made while ``encoder`` was in use, innermost last.
    private var nestedEncoders: [RowEncoderCore] = []
    private var insertSQL: [InsertShape: String] = [:]
    private var updateSQL: [[Bool]: String] = [:]
    private var upsertSQL: [UpsertShape: String] = [:]
    /// The last insert of ``encoder``'s row (see ``insertPlan(for:policy:)``).
    var lastInsert: InsertMemo? {
        didSet { lastInsertLent = lastInsert.map(Lent.init) }
    }
    /// ``lastInsert``, to lend without counting a reference (see ``lastInsertPlan(for:policy:)``).
    private(set) var lastInsertLent: Lent<InsertMemo>?
    /// How many insert memos were made, which numbers their layouts (``InsertMemo/layout``).
    var insertLayouts: UInt64 = 0
    /// Memory for one record of the type, which `find` and `upsert` decode into (see ``RecordSlot``).
    let slot = RecordSlot()
    /// Per-type data that the layers above attach (the requests' ``RequestMemo``); see
    /// ``attachment(_:)``.
    private var attachment: AnyObject?
    /// `SELECT * FROM "table"`.
    let selectAll: String
    /// `WHERE "a" = ? AND "b" = ?` over the primary key.
    let primaryKeyCondition: String
    /// `SELECT * FROM "table" WHERE` the primary key: `find`'s statement. Like the other statements
    /// by key, built once, so that the statement cache finds it by identity, without comparing text.
    let selectByKey: String
    /// `SELECT EXISTS(SELECT 1 FROM "table" WHERE` the primary key`)`: `exists`'s statement, and an
    /// update's that sets no column.
    let existsByKey: String
    /// `DELETE FROM "table" WHERE` the primary key.
    let deleteByKey: String
    /// The statements of the calls that take a condition, up to where it goes (see ``WhereCalls``).
    let whereCalls: WhereCalls
    /// The last update of ``encoder``'s row (see ``updatePlan(for:)``).
    var lastUpdate: UpdatePlan?
    /// The last upsert of ``encoder``'s row (see ``upsertPlan(for:)``).
    var lastUpsert: UpsertPlan?
    /// Whether the table lets bulk inserts run their batches as `INSERT OR FAIL`, as last read from
    /// its schema (see `BulkInserter+Groups.swift`).
    var failingBatches: BulkInserter.FailingBatches?
    /// The slots of the primary-key columns in ``encoder``'s row, in key order, once each of them is
    /// one of the row's columns: a slot, once learned, never moves.
    var sharedKeySlots: [Int]?
    /// A Swift type whose values always match the single key column (the column's own type, or any
    /// type when the key columns could not be probed): its key values need no check. Set by
    /// ``Connection/singleKeyValue(_:_:_:_:)``.
    var acceptedKeyType: ObjectIdentifier?

    /// The primary-key columns as the schema probe reads the type, once it was probed; nil inside
    /// when the type cannot be probed (its key look-ups are then not checked).
    private var probedKeyColumns: [RecordKeyColumn?]??

    struct InsertShape: Hashable {
        var columns: [Bool]
        var policy: ConflictPolicy
        var returning: Bool
        /// How many rows the statement inserts: its VALUES has this many lists of parameters.
        var rows: Int
    }

    /// What an upsert's SQL depends on.
    struct UpsertShape: Hashable {
        var nonNull: [Bool]
        var present: [Bool]
        var rows: Int
        var returning: Bool
    }

    init(table: String, primaryKey: [String], options: CodingOptions, storedAsGiven: (any StoredAsGiven.Type)?) {
        self.tableName = table
        self.storedAsGiven = storedAsGiven
        self.table = SQL.quote(identifier: table)
        self.primaryKey = primaryKey
        self.encoder = RowEncoderCore(options: options)
        self.encoderLent = Lent(encoder)
        self.options = options
        self.selectAll = "SELECT * FROM \(self.table)"
        let condition = primaryKey.map { "\(SQL.quote(identifier: $0)) = ?" }.joined(separator: " AND ")
        self.primaryKeyCondition = condition
        self.selectByKey = "\(selectAll) WHERE \(condition)"
        self.existsByKey = "SELECT EXISTS(SELECT 1 FROM \(self.table) WHERE \(condition))"
        self.deleteByKey = "DELETE FROM \(self.table) WHERE \(condition)"
        self.whereCalls = WhereCalls(table: self.table)
    }

    /// The attachment of class `T`, made by `make` (and attached, in place of any other) when the type
    /// has none of that class.
    func attachment<T: AnyObject>(_ make: () -> T) -> T {
        if let attachment = attachment as? T {
            return attachment
        }
        let made = make()
        attachment = made
        return made
    }

    /// The encoder for an operation that starts now: ``encoder``, or a new one when an operation under
    /// way (the one whose `encode(to:)` or `init(from:)` started this one) is using it. Give it back
    /// with ``checkIn(_:)``.
    @inline(__always)
    func checkOutEncoder() -> RowEncoderCore {
        if encoderInUse {
            return RowEncoderCore(options: options)
        }
        encoderInUse = true
        return encoder
    }

    /// Ends the use of an encoder from ``checkOutEncoder()``.
    @inline(__always)
    func checkIn(_ used: RowEncoderCore) {
        if used === encoder {
            encoderInUse = false
        }
    }

    /// Runs `body` with an encoder of its own (see ``checkOutEncoder()``): ``encoder``, lent without
    /// counting a reference, when no operation under way uses it. The caller holds the state.
    @inline(__always)
    func withEncoder<R>(_ body: (RowEncoderCore) throws -> R) rethrows -> R {
        // One call of `body`, which is then inlined here (a closure called from two places is kept as a
        // function of its own: callgrind, about 40 instructions a call).
        let borrowed = !encoderInUse
        // A new encoder, when ``encoder`` is in use, is held by the state for the call (in
        // ``nestedEncoders``), not by a local: an optional local reference cost a release, of nil,
        // on every call (callgrind, issue 38: `insert()` one by one, 9 instructions a record).
        let lent = borrowed ? encoderLent : lendNestedEncoder()
        if borrowed {
            encoderInUse = true
        }
        defer {
            if borrowed {
                encoderInUse = false
            } else {
                endNestedEncoder()
            }
        }
        return try lent.with(body)
    }

    /// A new encoder for ``withEncoder(_:)`` while ``encoder`` is in use, held in ``nestedEncoders``
    /// until ``endNestedEncoder()``; nested calls end in the reverse order of their start.
    @inline(never)
    private func lendNestedEncoder() -> Lent<RowEncoderCore> {
        let new = RowEncoderCore(options: options)
        nestedEncoders.append(new)
        return Lent(new)
    }

    /// Lets the encoder of the innermost nested ``withEncoder(_:)`` go.
    @inline(never)
    private func endNestedEncoder() {
        _ = nestedEncoders.popLast()
    }

    /// The INSERT for the columns of `row` marked in `columns`, with `rows` lists of parameters in its
    /// VALUES (one per row); kept for the next time when `row` is ``encoder``'s (the slots of another
    /// encoder's row may name other columns).
    func insert(row: EncodedRow, columns: [Bool], policy: ConflictPolicy, returning: Bool, rows: Int = 1) -> String {
        let shape = InsertShape(columns: columns, policy: policy, returning: returning, rows: rows)
        let shared = row === encoder.row
        if shared, let sql = insertSQL[shape] {
            return sql
        }
        let names = row.columns.indices.filter { columns[$0] }.map {
            SQL.quote(identifier: row.columns[$0])
        }
        let verb = policy == .abort ? "INSERT" : "INSERT OR \(policy.rawValue)"
        var sql: String
        if names.isEmpty {
            sql = "\(verb) INTO \(table) DEFAULT VALUES"
        } else {
            let placeholders = "(" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
            let values = Array(repeating: placeholders, count: rows).joined(separator: ", ")
            sql = "\(verb) INTO \(table) (\(names.joined(separator: ", "))) VALUES \(values)"
        }
        if returning {
            sql += " RETURNING *"
        }
        if shared {
            insertSQL[shape] = sql
        }
        return sql
    }

    /// The UPDATE that sets the columns of `row` marked in `columns`, by primary key; kept as
    /// ``insert(row:columns:policy:returning:)`` keeps its SQL.
    func update(row: EncodedRow, columns: [Bool]) -> String {
        let shared = row === encoder.row
        if shared, let sql = updateSQL[columns] {
            return sql
        }
        let assignments = row.columns.indices.filter { columns[$0] }
            .map { "\(SQL.quote(identifier: row.columns[$0])) = ?" }
        let sql = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(primaryKeyCondition)"
        if shared {
            updateSQL[columns] = sql
        }
        return sql
    }

    /// The upsert: insert the non-NULL columns of `row` marked in `nonNull`; on a primary-key conflict,
    /// set every other column of the row (NULL where the record holds nil), returning the row unless
    /// `returning` is false. With `rows` lists of parameters in its VALUES, it upserts that many rows in
    /// turn. Kept as ``insert(row:columns:policy:returning:rows:)`` keeps its SQL.
    func upsert(row: EncodedRow, nonNull: [Bool], present: [Bool], rows: Int = 1, returning: Bool = true) -> String {
        let key = UpsertShape(nonNull: nonNull, present: present, rows: rows, returning: returning)
        let shared = row === encoder.row
        if shared, let sql = upsertSQL[key] {
            return sql
        }
        let columns = row.columns
        let inserted = columns.indices.filter { nonNull[$0] }.map { SQL.quote(identifier: columns[$0]) }
        let assignments = columns.indices.filter { index in
            present[index] && !primaryKey.contains { $0.equalsIdentifier(columns[index]) }
        }
        .map { index -> String in
            let name = SQL.quote(identifier: columns[index])
            return nonNull[index] ? "\(name) = excluded.\(name)" : "\(name) = NULL"
        }
        let conflictTarget = primaryKey.map(SQL.quote(identifier:)).joined(separator: ", ")
        var sql: String
        if inserted.isEmpty {
            sql = "INSERT INTO \(table) DEFAULT VALUES"
        } else {
            let placeholders = "(" + Array(repeating: "?", count: inserted.count).joined(separator: ", ") + ")"
            let values = Array(repeating: placeholders, count: rows).joined(separator: ", ")
            sql = "INSERT INTO \(table) (\(inserted.joined(separator: ", "))) VALUES \(values)"
            sql += " ON CONFLICT(\(conflictTarget)) DO "
            sql += assignments.isEmpty ? "NOTHING" : "UPDATE SET " + assignments.joined(separator: ", ")
        }
        if returning {
            sql += " RETURNING *"
        }
        if shared {
            upsertSQL[key] = sql
        }
        return sql
    }

    /// The values of the primary-key columns in `row`, in key order.
    func primaryKeyValues(in row: EncodedRow) throws -> [SQLiteValue] {
        return try primaryKey.map { name in
            guard let index = row.columns.firstIndex(where: { $0.equalsIdentifier(name) }),
                row.present[index], !row.values[index].isNull
            else {
                throw RecordError.missingPrimaryKey(table: tableName, column: name)
            }
            return row.values[index]
        }
    }

    /// The primary-key columns of `T` in key order, probed on the first key look-up on this
    /// connection; nil when `T`'s columns cannot be read, and a nil element for a key column the
    /// probe did not find: no type check is made for those.
    func keyColumns<T: Record>(of type: T.Type, options: CodingOptions) -> [RecordKeyColumn?]? {
        if let probed = probedKeyColumns {
            return probed
        }
        let columns = try? SchemaProbe.columns(of: T.self, options: options)
        let keyColumns = columns.map { columns in
            primaryKey.map { name in
                columns.first { $0.name.equalsIdentifier(name) }.map {
                    RecordKeyColumn(name: $0.name, sqlType: $0.type, swiftType: $0.swiftType)
                }
            }
        }
        probedKeyColumns = .some(keyColumns)
        return keyColumns
    }

    /// ``RecordError/notFound(table:key:)`` for the key of `row`, whose columns are the slots `keySlots`.
    func notFound(_ row: EncodedRow, keySlots: [Int]) -> RecordError {
        .notFound(table: tableName, key: keyDescription(values(in: row, slots: keySlots)))
    }

    /// The key as a dictionary, for ``RecordError/notFound(table:key:)``.
    func keyDescription(_ values: [SQLiteValue]) -> [String: SQLiteValue] {
        Dictionary(zip(primaryKey, values), uniquingKeysWith: { first, _ in first })
    }
}

extension String {
    /// Whether two identifiers are equal as SQLite compares them (ASCII case-insensitively).
    func equalsIdentifier(_ other: String) -> Bool {
        FoldedIdentifier.same(self, other)
    }
}
