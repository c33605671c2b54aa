// What the blocks of Records.md take for granted. `Student` is declared in Records.md.

let students = [
    Student(id: nil, name: "Bo", department: "ME", year: 2023),
    Student(id: nil, name: "Chidi", department: "CS", year: 2022),
]
let name = "Ana"
let department = "CS"
