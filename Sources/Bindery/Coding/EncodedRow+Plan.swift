import CSQLite

/// A bulk insert's records following a ``ColumnPlan``: each value of a ``ColumnEncodable`` record bound
/// to its parameter as its ``ColumnWriter`` writes it, checked against the plan's next key, without the
/// slots, the kinds of value or the shape's bookkeeping, which a batch of records of one shape does not
/// need. The bulk insert learns the plan from a record it bound whole (``startLearningPlan()``,
/// ``endLearningPlan()``, ``commitPlan()``) and has each later record of the batch follow it
/// (``startFollowingPlan()``, ``endFollowingPlan(followed:)``); a record that leaves it is encoded again.
extension EncodedRow {
    /// Binds the INTEGER `value` written for `key` by the writer of generation `generation` when the
    /// record follows the plan and its next key is `key`, with a parameter; returns whether it did (or
    /// tried: a value SQLite refused to bind ends the following, and the record, encoded again, meets
    /// the error then). Otherwise nothing is changed, and the writer stores the value as it stores any
    /// other (which ends the following).
    func bindFollowingPlan(_ value: Int64, forKey key: String, writer generation: UInt64) -> Bool {
        bindFollowingPlan(forKey: key, writer: generation) { sqlite3_bind_int64($0, $1, value) }
    }

    /// ``bindFollowingPlan(_:forKey:writer:)`` for a REAL, which the caller has checked is no NaN.
    func bindFollowingPlan(_ value: Double, forKey key: String, writer generation: UInt64) -> Bool {
        bindFollowingPlan(forKey: key, writer: generation) { sqlite3_bind_double($0, $1, value) }
    }

    /// What the two above share: `bind` binds the value to the statement's parameter it is given.
    private func bindFollowingPlan(
        forKey key: String, writer generation: UInt64, _ bind: (OpaquePointer?, Int32) -> Int32
    ) -> Bool {
        let parameter = plan.value.parameter(forKey: key, writer: generation)
        guard parameter > 0 else { return false }
        // Not nil: the record follows the plan (see ColumnPlan.cursor).
        if bind(plan.value.target, parameter &+ plan.value.rowOffset) == SQLITE_OK {
            plan.value.cursor &+= 1
        } else {
            leavePlan()
        }
        return true
    }

    /// Whether NULL written for `key` by the writer of generation `generation` follows the plan, which
    /// has no parameter there (NULL is left out of the statement): the plan moves on to the next key.
    func followsPlanWithNull(forKey key: String, writer generation: UInt64) -> Bool {
        guard plan.value.expectsNull(forKey: key, writer: generation) else { return false }
        plan.value.cursor &+= 1
        return true
    }

    /// Stores `value` for `key`, written by a ``ColumnWriter`` that is still valid, as the mode of the
    /// current record says: stored in its slot (and noted, while a plan is learned), or, for a record
    /// following the plan, bound as the plan says (a value the writer converted: an optional, a
    /// `UInt64`, a raw value) or, when it does not fit the plan, nothing: the record leaves the plan
    /// and is encoded again.
    func write(_ value: SQLiteValue, forKey key: String) {
        guard plan.value.mode == .normal else { return writeOffPlan(value, forKey: key) }
        set(value, forKey: key)
    }

    /// ``write(_:forKey:)`` while a plan is learned or followed.
    private func writeOffPlan(_ value: SQLiteValue, forKey key: String) {
        switch plan.value.mode {
        case .normal:
            set(value, forKey: key)
        case .learning:
            let slot = set(value, forKey: key)
            learn(key, parameter: parameter(ofSlot: slot), value: value)
        case .following:
            if !follow(value, forKey: key) {
                leavePlan()
            }
        case .left:
            break
        }
    }

    /// Binds `value`, converted by the writer, as the plan's next key when it is `key` and the value
    /// fits it (an INTEGER or a REAL where it has a parameter, NULL where it has none); returns
    /// whether it did (or tried, see ``bindFollowingPlan(_:forKey:writer:)``).
    private func follow(_ value: SQLiteValue, forKey key: String) -> Bool {
        let generation = plan.value.writerGeneration
        switch value {
        case .integer(let int): return bindFollowingPlan(int, forKey: key, writer: generation)
        case .real(let double): return bindFollowingPlan(double, forKey: key, writer: generation)
        case .null: return followsPlanWithNull(forKey: key, writer: generation)
        case .text, .blob: return false
        }
    }

    /// Ends the current record's following: it is to be encoded again, and writes nothing more.
    private func leavePlan() {
        plan.value.mode = .left
        plan.value.cursor = ColumnPlan.idle
    }

    /// Notes `key`, just stored with `value` in a slot of parameter `parameter`, as the plan's next entry.
    private func learn(_ key: String, parameter: Int32, value: SQLiteValue) {
        let index = plan.value.learned
        switch value {
        case .text, .blob:
            plan.value.refused = true
            return
        case .null, .integer, .real:
            break
        }
        guard index < ColumnPlan.capacity else {
            plan.value.refused = true
            return
        }
        plan.value.entries[index] = ColumnPlan.Entry(key: key, parameter: parameter)
        plan.value.learned = index + 1
    }

    /// Whether the row has a plan for `statement`, its target.
    func hasPlan(for statement: Statement) -> Bool {
        plan.value.count > 0 && plan.value.target == statement.handle && target == statement.handle
    }

    /// Whether the next record may be learned as a plan: nothing learned for the statement was refused,
    /// and no two keys need telling apart byte for byte (the plan compares keys as `String`s).
    var learnsPlan: Bool {
        !plan.value.refused && !hasEquivalentKeys
    }

    /// Starts learning the plan from the record about to be encoded (its keys as written by its
    /// ``ColumnWriter``; the record is stored as any other).
    func startLearningPlan() {
        plan.value.mode = .learning
        plan.value.learned = 0
    }

    /// Ends learning; returns whether the record gave a plan, which ``commitPlan()`` then makes the
    /// row's when the record was bound whole to the target.
    func endLearningPlan() -> Bool {
        plan.value.mode = .normal
        return !plan.value.refused && plan.value.learned > 0
    }

    /// Makes the plan just learned the row's, for its target statement.
    func commitPlan() {
        guard let target else { return }
        plan.value.count = plan.value.learned
        plan.value.target = target
    }

    /// Starts records following the plan, which the row has for its target (``hasPlan(for:)``): each
    /// starts with ``followNextRecord(atRowOffset:)`` and ends with ``followedRecord()``, and
    /// ``endFollowingPlan(followed:)`` ends them.
    func startFollowingPlan() {
        plan.value.mode = .following
    }

    /// Starts the next record following the plan, in the row of the statement whose parameters
    /// start after the first `offset`.
    func followNextRecord(atRowOffset offset: Int32) {
        plan.value.cursor = 0
        plan.value.rowOffset = offset
    }

    /// Whether the record just encoded followed the plan whole, every value bound.
    func followedRecord() -> Bool {
        plan.value.mode == .following && plan.value.cursor == plan.value.count
    }

    /// Ends the records' following. Unless the last `followed` the plan, the plan is forgotten, to be
    /// learned again from a record bound the slow way.
    func endFollowingPlan(followed: Bool) {
        plan.value.mode = .normal
        plan.value.cursor = ColumnPlan.idle
        if !followed {
            plan.value.forget()
        }
    }
}
