/// An `ON CONFLICT` clause of a constraint: the policy, or none.
struct ConflictClause {
    var onConflict: ConflictPolicy?

    /// ` ON CONFLICT <policy>`, or nothing.
    var sql: String { Self.sql(onConflict) }

    /// ` ON CONFLICT <policy>` for `policy`, or nothing.
    static func sql(_ policy: ConflictPolicy?) -> String {
        policy.map { " ON CONFLICT " + $0.rawValue } ?? ""
    }
}
