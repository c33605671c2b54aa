// What the blocks of Observation.md take for granted.

struct Student: Record {
    static let tableName = "students"

    var id: Int64?
    var name: String
}

let student = Student(id: nil, name: "Ana")
