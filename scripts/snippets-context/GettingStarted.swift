// What the blocks of GettingStarted.md take for granted. `Student` is declared in GettingStarted.md.

let department = "CS"
let student = Student(registerNumber: "21CS002", name: "Bo", department: "CS", year: 2021)
