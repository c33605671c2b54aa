import CSQLite
import Foundation

/// A named text order for `COLLATE`, defined in Swift: what a column declared
/// ``ColumnDefinition/collate(_:)-(Collation)`` sorts, compares and indexes by, and what
/// `ORDER BY name COLLATE localized` uses. Register it on each connection that reads such a column
/// (``Connection/Options/collations``, ``Database/Options-swift.struct/collations``): SQLite throws
/// "no such collation sequence" where one is missing.
///
/// ```swift
/// let natural = Collation("natural") { $0.localizedStandardCompare($1) }
/// var options = Database.Options()
/// options.collations = [natural]
/// ```
///
/// The comparison must be a total order that never changes for a given pair of strings: an index
/// sorted by it is searched by it. After changing a collation's order, rebuild the indexes that use
/// it with ``Connection/reindex(collation:)``. It runs on any connection's thread, so it must not
/// touch state that is not thread-safe, and it must not call back into Bindery.
///
/// Two collations are equal when their names are, ignoring ASCII case, as SQLite tells them apart.
public struct Collation: Sendable, Hashable {
    /// The name `COLLATE` uses.
    public let name: String
    /// The order.
    let compare: @Sendable (String, String) -> ComparisonResult

    /// A collation named `name` that orders two strings by `compare`. Text that is not valid UTF-8
    /// reaches `compare` with its bad bytes replaced by U+FFFD.
    public init(_ name: String, compare: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.compare = compare
    }

    /// Unicode case-insensitive order (`caseInsensitiveCompare`), where SQLite's `NOCASE` folds only
    /// ASCII letters: `"É"` and `"é"` compare equal.
    public static let caseInsensitive = Collation("caseInsensitive") { $0.caseInsensitiveCompare($1) }

    /// The Finder's order, numbers by their value (`localizedStandardCompare`): `"file2"` before `"file10"`.
    public static let localizedStandard = Collation("localizedStandard") { $0.localizedStandardCompare($1) }

    /// Whether two collations have the same name, ignoring ASCII case.
    public static func == (lhs: Collation, rhs: Collation) -> Bool {
        FoldedIdentifier.same(lhs.name, rhs.name)
    }

    /// Hashes the name, ignoring ASCII case.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(FoldedIdentifier(name))
    }

    /// Registers the collation on the connection `db`.
    func register(on db: OpaquePointer) throws {
        let box = CollationBox(compare: compare)
        let context = CallbackContext.retainedPointer(to: box)
        let code = sqlite3_create_collation_v2(
            db, name, SQLITE_UTF8, context,
            { context, count1, text1, count2, text2 in
                guard let context else { return 0 }
                let box = CallbackContext.object(context, as: CollationBox.self)
                let first = CallbackContext.text(text1, count: count1)
                let second = CallbackContext.text(text2, count: count2)
                switch box.compare(first, second) {
                case .orderedAscending: return -1
                case .orderedSame: return 0
                case .orderedDescending: return 1
                }
            },
            { context in
                if let context { CallbackContext.release(context) }
            })
        guard code == SQLITE_OK else {
            // SQLite calls the destructor only for a collation it took.
            CallbackContext.release(context)
            throw SQLiteError(database: db, resultCode: code, sql: nil)
        }
    }
}

/// The object SQLite's context pointer names for a registered ``Collation``.
final class CollationBox: Sendable {
    let compare: @Sendable (String, String) -> ComparisonResult

    init(compare: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.compare = compare
    }
}
