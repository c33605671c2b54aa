// What the blocks of Concurrency.md take for granted.

struct Student: Record {
    static let tableName = "students"

    var id: Int64?
    var name: String
}

struct Account: Record {
    static let tableName = "accounts"

    var id: Int64
    var userName: String
}

let account = Account(id: 1, userName: "ada")
