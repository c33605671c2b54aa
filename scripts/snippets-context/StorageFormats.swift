// What the blocks of StorageFormats.md take for granted.

struct Student: Record {
    static let tableName = "students"

    var id: Int64?
    var name: String
    var enrolledAt: Date
}

let student = Student(id: 1, name: "Ana", enrolledAt: .now)
