/// A growing buffer of values of a generic type, moved into an array once at the end: appending to a
/// `[T]` of a generic `T` one value at a time looks up the array's metadata on every call.
///
/// Not copyable in spirit: one owner appends, takes ``array()`` and calls ``deallocate()`` once.
///
/// Safety: the first `filled` values of the memory at `base` are initialized, the rest not; `append`
/// initializes the next one only after making room, `array()` moves the initialized ones out and sets
/// `filled` to 0, and ``deallocate()`` deinitializes what is left before freeing the memory.
/// ``drain(_:)`` sets `filled` to 0 before it starts, moves each value out before handing it over,
/// and its `defer` deinitializes exactly the values after the last one moved, thrown or not.
/// ``grouped(by:groupCount:)`` checks that it has one group for each value, moves each value out once
/// (every position appears once in its counting sort) and sets `filled` to 0.
struct RecordBuffer<T> {
    private var base: UnsafeMutablePointer<T>
    private var capacity: Int
    private var filled = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        self.base = .allocate(capacity: self.capacity)
    }

    /// Appends `value`, doubling the buffer when it is full.
    @inline(__always)
    mutating func append(_ value: T) {
        if filled == capacity {
            grow()
        }
        (base + filled).initialize(to: value)
        filled += 1
    }

    /// Appends the value `make` returns, initialized in place (no copy of a value of a generic type);
    /// nothing is appended when it throws.
    @inline(__always)
    mutating func append(_ make: () throws -> T) rethrows {
        if filled == capacity {
            grow()
        }
        (base + filled).initialize(to: try make())
        filled += 1
    }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<T>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: filled)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// The values appended, moved out into an array; the buffer is empty afterwards.
    mutating func array() -> [T] {
        let moved = filled
        let result = [T](unsafeUninitializedCapacity: moved) { destination, initialized in
            if let target = destination.baseAddress {
                target.moveInitialize(from: base, count: moved)
            }
            initialized = moved
        }
        filled = 0
        return result
    }

    /// The values moved out into `groupCount` arrays: the value appended `i`-th goes into array
    /// `owners[i]`, each array in the order appended; the buffer is empty afterwards. `owners` holds one
    /// group in `0..<groupCount` for each value (checked: anything else moves nothing and traps, a
    /// mistake in Bindery, never in data).
    mutating func grouped(by owners: [Int], groupCount: Int) -> [[T]] {
        precondition(owners.count == filled && owners.allSatisfy { (0..<groupCount).contains($0) })
        // A counting sort of the positions by group: `order` lists the positions of group 0, then
        // of group 1, …, each in the order appended.
        var starts = [Int](repeating: 0, count: groupCount + 1)
        for owner in owners { starts[owner + 1] += 1 }
        for group in 0..<groupCount { starts[group + 1] += starts[group] }
        var next = starts
        var order = [Int](repeating: 0, count: filled)
        for (position, owner) in owners.enumerated() {
            order[next[owner]] = position
            next[owner] += 1
        }
        // Every position is in `order` exactly once, so each value is moved out exactly once.
        var result: [[T]] = []
        result.reserveCapacity(groupCount)
        for group in 0..<groupCount {
            let range = starts[group]..<starts[group + 1]
            result.append(
                [T](unsafeUninitializedCapacity: range.count) { destination, initialized in
                    if let target = destination.baseAddress {
                        for (offset, position) in order[range].enumerated() {
                            (target + offset).initialize(to: (base + position).move())
                        }
                    }
                    initialized = range.count
                })
        }
        filled = 0
        return result
    }

    /// How many values the buffer holds.
    var count: Int { filled }

    /// Moves the values out in order, handing each to `body`, and leaves the buffer empty; when `body`
    /// throws, the values not handed over yet are deinitialized.
    mutating func drain(_ body: (T) throws -> Void) rethrows {
        let moved = filled
        filled = 0
        var index = 0
        defer { (base + index).deinitialize(count: moved - index) }
        while index < moved {
            let value = (base + index).move()
            index += 1
            try body(value)
        }
    }

    /// Hands a copy of each value, in order, to `body` (the first `filled` are initialized); the buffer
    /// is unchanged.
    func forEach(_ body: (T) throws -> Void) rethrows {
        for index in 0..<filled {
            try body(base[index])
        }
    }

    /// Deinitializes every value; the buffer is empty afterwards and keeps its memory.
    mutating func removeAll() {
        base.deinitialize(count: filled)
        filled = 0
    }

    /// Frees the buffer, deinitializing any values not moved out.
    mutating func deallocate() {
        base.deinitialize(count: filled)
        base.deallocate()
        filled = 0
    }
}
