// What the blocks of QueriesAndSQLInterpolation.md take for granted.

struct Student: Record {
    static let tableName = "students"

    var id: Int64?
    var name: String
    var year: Int
}
