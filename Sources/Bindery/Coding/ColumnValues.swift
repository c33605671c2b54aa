import CSQLite

/// The values of the current row's columns, found with one call into SQLite per row, two with the guard.
///
/// `sqlite3_column_value` costs a trip through SQLite's API layer (its mutex and error bookkeeping)
/// for every column. SQLite keeps a result row's values side by side, one `sqlite3_value` after the
/// other (the registers that its `ResultRow` instruction hands out), so once the first column's value is
/// known, the others are a multiplication away. The spacing is measured on the first row, and checked
/// for every column there; when it does not hold (fewer than two columns, say) each value is asked
/// for with `sqlite3_column_value`. On every later row the last column's value is asked for too and
/// compared with the computed one (``lastColumnMatches(handle:count:base:stride:)``): a row laid out
/// otherwise turns the spacing off for good. The row's first value is forgotten when each row ends
/// (``endRow()``), so that no step or reset of the statement leaves a stale one behind. The values
/// are unprotected and valid until the statement steps.
struct ColumnValues {
    /// Marks a spacing not measured yet.
    private static let unmeasured = -1
    private let handle: OpaquePointer
    private let count: Int32
    /// Bytes from one column's value to the next, 0 when they are not evenly spaced.
    private var stride: Int
    /// The first column's value in the current row, nil until a value of the row is asked for.
    private var first: UnsafeMutableRawPointer?

    init(handle: OpaquePointer, count: Int32) {
        self.handle = handle
        self.count = count
        self.stride = ColumnValues.unmeasured
    }

    /// Values whose spacing is taken as given, not measured: how tests check that a wrong spacing is
    /// caught by the guard.
    init(handle: OpaquePointer, count: Int32, assumedStride: Int) {
        self.handle = handle
        self.count = count
        self.stride = assumedStride
    }

    /// Whether the values are computed from the first one (false once the guard turned that off).
    var usesStride: Bool { stride > 0 }

    /// Forgets the current row's values: call it when the row was read, before the statement steps or
    /// resets (the decoder does, however its row ends), so that the next row starts with none known.
    @inline(__always)
    mutating func endRow() {
        first = nil
    }

    /// The value of `column`; a column outside the row gets SQLite's NULL value (and its range error).
    @inline(__always)
    mutating func value(_ column: Int32) -> OpaquePointer? {
        // One unsigned comparison keeps a column outside the row (a bug elsewhere) away from the
        // arithmetic: `sqlite3_column_value` refuses it instead.
        if let first, UInt32(bitPattern: column) < UInt32(bitPattern: count) {
            return OpaquePointer(first + Int(column) &* stride)
        }
        return firstValue(column)
    }

    /// Finds the row's first value before any is asked for, so that a record's first key takes the fast
    /// path of ``knownValue(_:)`` too. Only where the spacing holds or is still to be measured: without
    /// it, each value is asked for one by one anyway.
    @inline(__always)
    mutating func loadRow() {
        if first == nil, count >= 2, stride != 0 {
            _ = firstValue(0)
        }
    }

    /// The value of `column` when the row's first value is known and `column` is one of the row's (a
    /// negative look-up result is not); nil otherwise, without asking SQLite: the caller then takes the
    /// path through ``value(_:)``. The fast path of the keyed container, which needs no call here.
    @inline(__always)
    func knownValue(_ column: Int32) -> OpaquePointer? {
        guard let first, UInt32(bitPattern: column) < UInt32(bitPattern: count) else { return nil }
        return OpaquePointer(first + Int(column) &* stride)
    }

    /// The value of `column` when the row's first value is not known yet: finds it, and the spacing on
    /// the first row read; checks the spacing against the row's last column.
    @inline(never)
    private mutating func firstValue(_ column: Int32) -> OpaquePointer? {
        if stride == ColumnValues.unmeasured {
            stride = measureStride()
        }
        guard stride > 0, column >= 0, column < count, let start = sqlite3_column_value(handle, 0) else {
            return sqlite3_column_value(handle, column)
        }
        let base = UnsafeMutableRawPointer(start)
        guard Self.lastColumnMatches(handle: handle, count: count, base: base, stride: stride) else {
            // This row is not laid out as the first one was: ask SQLite for every value from now on.
            stride = 0
            return sqlite3_column_value(handle, column)
        }
        first = base
        return OpaquePointer(base + Int(column) &* stride)
    }

    /// Whether the last column's value of the current row is where `base` and `stride` put it: the
    /// guard run on every row before a value is computed.
    static func lastColumnMatches(handle: OpaquePointer, count: Int32, base: UnsafeMutableRawPointer, stride: Int)
        -> Bool
    {
        guard count >= 1, let last = sqlite3_column_value(handle, count - 1) else { return false }
        return UnsafeMutableRawPointer(last) == base + Int(count - 1) &* stride
    }

    /// The spacing of the current row's values, or 0 when they are not evenly spaced.
    private func measureStride() -> Int {
        guard count >= 2, let start = sqlite3_column_value(handle, 0), let second = sqlite3_column_value(handle, 1)
        else { return 0 }
        let base = UnsafeMutableRawPointer(start)
        let stride = UnsafeMutableRawPointer(second) - base
        guard stride > 0 else { return 0 }
        for column in 2..<count {
            guard let value = sqlite3_column_value(handle, column),
                UnsafeMutableRawPointer(value) == base + Int(column) * stride
            else { return 0 }
        }
        return stride
    }
}

extension ColumnValues {
    /// Column values in memory of their own, shared by a ``RowDecoder`` and its keyed containers: read
    /// for every field, they must not pay for the exclusivity checks of a class's stored `var`s, and a
    /// container must reach them without a counted reference.
    ///
    /// Safety: the memory is made by ``make(handle:count:)`` when the decoder is, and freed by
    /// ``free()`` when it goes (its `deinit`), after its ``RowGenerations/Counters`` are given back: a
    /// container reads the values only after its ``RowGenerations/Stamp`` is found current, which it
    /// cannot be once the decoder is gone.
    struct Shared {
        private let base: UnsafeMutablePointer<ColumnValues>

        private init(base: UnsafeMutablePointer<ColumnValues>) {
            self.base = base
        }

        /// New values for the statement `handle`, of `count` columns.
        static func make(handle: OpaquePointer, count: Int32) -> Shared {
            let base = UnsafeMutablePointer<ColumnValues>.allocate(capacity: 1)
            base.initialize(to: ColumnValues(handle: handle, count: count))
            return Shared(base: base)
        }

        /// Frees the values; neither this nor any copy may be used afterwards.
        func free() {
            base.deinitialize(count: 1)
            base.deallocate()
        }

        /// See ``ColumnValues/value(_:)``.
        @inline(__always)
        func value(_ column: Int32) -> OpaquePointer? { base.pointee.value(column) }

        /// See ``ColumnValues/knownValue(_:)``.
        @inline(__always)
        func knownValue(_ column: Int32) -> OpaquePointer? { base.pointee.knownValue(column) }

        /// See ``ColumnValues/loadRow()``.
        @inline(__always)
        func loadRow() { base.pointee.loadRow() }

        /// See ``ColumnValues/endRow()``.
        @inline(__always)
        func endRow() { base.pointee.endRow() }

        /// Takes `other`'s state (its spacing and the current row's first value): a nested value's
        /// decoder starts with its parent's row as the parent knows it.
        func copy(from other: Shared) { base.pointee = other.base.pointee }
    }
}
