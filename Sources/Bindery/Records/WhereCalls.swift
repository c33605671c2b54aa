/// The statements that a record call with a condition runs (`exists(_:where:)`, `count(_:where:)`,
/// `fetchAll(_:where:)`, `fetchOne(_:where:)`, `delete(_:where:)`, a request's `fetchOne` of one
/// condition), around the caller's condition:
/// one for each record type and connection (see ``RecordTypeState``).
///
/// The texts kept around the last condition of each call (``WrappingMemo``) are updated on every call:
/// they live in memory of their own (a ``FixedBox``), not in a stored `var` of a class, whose
/// exclusivity checks cost some 80 instructions a call (callgrind, issue 39). No access to them
/// overlaps another: each call reads or replaces a memo in one step, running no other code meanwhile.
final class WhereCalls {
    /// `SELECT EXISTS(SELECT 1 FROM "table")`.
    let existsAny: String
    /// `SELECT count(*) FROM "table"`.
    let countAll: String
    /// `SELECT * FROM "table" WHERE `, before a condition.
    let selectWhere: String
    /// The texts around a condition, and the last whole text of each.
    private let memos: FixedBox<Memos>

    /// The texts around a condition of each call.
    struct Memos {
        /// `SELECT EXISTS(SELECT 1 FROM "table" WHERE ` condition `)`.
        var exists: WrappingMemo
        /// `SELECT count(*) FROM "table" WHERE ` condition.
        var count: WrappingMemo
        /// `SELECT * FROM "table" WHERE ` condition ` LIMIT 1`.
        var selectOne: WrappingMemo
        /// `SELECT "table".* FROM "table" WHERE ` condition ` LIMIT 1`: the SQL of a request of one
        /// condition, with `LIMIT 1` (see ``QueryRequest/statement(keys:)``).
        var requestOne: WrappingMemo
        /// `DELETE FROM "table" WHERE ` condition.
        var delete: WrappingMemo
    }

    /// The statements over `table`, a quoted identifier.
    init(table: String) {
        existsAny = "SELECT EXISTS(SELECT 1 FROM \(table))"
        countAll = "SELECT count(*) FROM \(table)"
        selectWhere = "SELECT * FROM \(table) WHERE "
        memos = .allocate(
            Memos(
                exists: WrappingMemo(prefix: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE ", suffix: ")"),
                count: WrappingMemo(prefix: "SELECT count(*) FROM \(table) WHERE "),
                selectOne: WrappingMemo(prefix: "SELECT * FROM \(table) WHERE ", suffix: " LIMIT 1"),
                requestOne: WrappingMemo(prefix: "SELECT \(table).* FROM \(table) WHERE ", suffix: " LIMIT 1"),
                delete: WrappingMemo(prefix: "DELETE FROM \(table) WHERE ")))
    }

    deinit {
        memos.deallocate()
    }

    /// `exists(_:where:)`'s statement for `condition`.
    func exists(around condition: SQL) -> String {
        memos.value.exists.text(around: condition)
    }

    /// `count(_:where:)`'s statement for `condition`.
    func count(around condition: SQL) -> String {
        memos.value.count.text(around: condition)
    }

    /// `fetchOne(_:where:)`'s statement (without an order) for `condition`.
    func selectOne(around condition: SQL) -> String {
        memos.value.selectOne.text(around: condition)
    }

    /// The statement of a request's `fetchOne` for a request of `condition` alone.
    func requestOne(around condition: SQL) -> String {
        memos.value.requestOne.text(around: condition)
    }

    /// `delete(_:where:)`'s statement for `condition`.
    func delete(around condition: SQL) -> String {
        memos.value.delete.text(around: condition)
    }
}
