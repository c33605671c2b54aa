/// The standard collections (arrays, sets, dictionaries), which Bindery stores as JSON text. Fetched as
/// a whole row (`fetchAll([String].self, sql: "SELECT tags FROM posts")`), such a value is read from
/// the statement's one column exactly as a property of its type is, never from the row's columns in
/// order: see ``RowDecoder/TopLevelKind/json``.
protocol JSONCollection {}

extension Array: JSONCollection {}
extension ContiguousArray: JSONCollection {}
extension ArraySlice: JSONCollection {}
extension Set: JSONCollection {}
extension Dictionary: JSONCollection {}
