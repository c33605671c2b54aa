/// The statements that a record call with a condition runs (`exists(_:where:)`, `count(_:where:)`,
/// `fetchAll(_:where:)`, `fetchOne(_:where:)`, `delete(_:where:)`), around the caller's condition:
/// one for each record type and connection (see ``RecordTypeState``).
struct WhereCalls {
    /// `SELECT EXISTS(SELECT 1 FROM "table")`.
    let existsAny: String
    /// `SELECT EXISTS(SELECT 1 FROM "table" WHERE ` condition `)`.
    var exists: WrappingMemo
    /// `SELECT count(*) FROM "table"`.
    let countAll: String
    /// `SELECT count(*) FROM "table" WHERE ` condition.
    var count: WrappingMemo
    /// `SELECT * FROM "table" WHERE `, before a condition.
    let selectWhere: String
    /// `SELECT * FROM "table" WHERE ` condition ` LIMIT 1`.
    var selectOne: WrappingMemo
    /// `DELETE FROM "table" WHERE ` condition.
    var delete: WrappingMemo

    /// The statements over `table`, a quoted identifier.
    init(table: String) {
        existsAny = "SELECT EXISTS(SELECT 1 FROM \(table))"
        exists = WrappingMemo(prefix: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE ", suffix: ")")
        countAll = "SELECT count(*) FROM \(table)"
        count = WrappingMemo(prefix: "SELECT count(*) FROM \(table) WHERE ")
        selectWhere = "SELECT * FROM \(table) WHERE "
        selectOne = WrappingMemo(prefix: "SELECT * FROM \(table) WHERE ", suffix: " LIMIT 1")
        delete = WrappingMemo(prefix: "DELETE FROM \(table) WHERE ")
    }
}
