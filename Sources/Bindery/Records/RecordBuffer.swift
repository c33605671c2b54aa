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
