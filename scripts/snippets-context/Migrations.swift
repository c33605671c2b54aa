// What the blocks of Migrations.md take for granted: the records they name, and the migrator
// it declares, for the later blocks.

struct Student: Record {
    static let tableName = "students"
    static let primaryKey = ["registerNumber"]

    var registerNumber: String
    var name: String
    var department: String
    var year: Int
}

@MainActor var migrator = Migrator()

struct Book: Record {
    static let tableName = "books"

    var id: Int64?
    var title: String
}
