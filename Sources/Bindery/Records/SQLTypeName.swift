import Foundation

/// A type's name as a Swift user writes it, for error messages: `[Int64]` rather than
/// `Array<Int64>`, `[String: Int]` rather than `Dictionary<String, Int>`, `UUID?` rather than
/// `Optional<UUID>`.
struct SQLTypeName: CustomStringConvertible {
    /// The outermost generic type's name (`Array`, `Set`, `Optional` …), or the type's own name.
    let base: String
    /// The generic arguments, in order.
    let arguments: [SQLTypeName]

    init(_ type: Any.Type) {
        let name = String(describing: type)
        var index = name.startIndex
        let parsed = Self.parse(name, &index)
        self = index == name.endIndex ? parsed : SQLTypeName(base: name, arguments: [])
    }

    private init(base: String, arguments: [SQLTypeName]) {
        self.base = base
        self.arguments = arguments
    }

    /// The type with any `Optional` around it removed.
    var unwrapped: SQLTypeName {
        base == "Optional" && arguments.count == 1 ? arguments[0].unwrapped : self
    }

    /// The name in Swift's sugar: `[Int64]`, `[String: Int]`, `UUID?`.
    var description: String {
        switch (base, arguments.count) {
        case ("Array", 1): return "[\(arguments[0].description)]"
        case ("Dictionary", 2): return "[\(arguments[0].description): \(arguments[1].description)]"
        case ("Optional", 1): return arguments[0].description + "?"
        case (_, 0): return base
        default: return base + "<" + arguments.map(\.description).joined(separator: ", ") + ">"
        }
    }

    /// Parses `Name` or `Name<Argument, …>` from `index`; stops at a `,` or `>` that is not its own.
    private static func parse(_ name: String, _ index: inout String.Index) -> SQLTypeName {
        let start = index
        while index < name.endIndex, !"<>,".contains(name[index]) {
            index = name.index(after: index)
        }
        let base = name[start..<index].trimmingCharacters(in: .whitespaces)
        var arguments: [SQLTypeName] = []
        if index < name.endIndex, name[index] == "<" {
            index = name.index(after: index)
            while index < name.endIndex {
                arguments.append(parse(name, &index))
                guard index < name.endIndex else { break }
                let separator = name[index]
                index = name.index(after: index)
                if separator == ">" { break }
            }
        }
        return SQLTypeName(base: base, arguments: arguments)
    }
}
