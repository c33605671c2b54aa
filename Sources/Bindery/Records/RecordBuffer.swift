/// A growing buffer of values of a generic type, moved into an array once at the end: appending to a
/// `[T]` of a generic `T` one value at a time looks up the array's metadata on every call.
///
/// Not copyable in spirit: one owner appends, takes ``array()`` and calls ``deallocate()`` once.
///
/// Safety: the first `count` values of the memory at `base` are initialized, the rest not; `append`
/// initializes the next one only after making room, `array()` moves the initialized ones out and sets
/// `count` to 0, and ``deallocate()`` deinitializes what is left before freeing the memory.
struct RecordBuffer<T> {
    private var base: UnsafeMutablePointer<T>
    private var capacity: Int
    private var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        self.base = .allocate(capacity: self.capacity)
    }

    /// Appends `value`, doubling the buffer when it is full.
    @inline(__always)
    mutating func append(_ value: T) {
        if count == capacity {
            grow()
        }
        (base + count).initialize(to: value)
        count += 1
    }

    /// Appends the value `make` returns, initialized in place (no copy of a value of a generic type);
    /// nothing is appended when it throws.
    @inline(__always)
    mutating func append(_ make: () throws -> T) rethrows {
        if count == capacity {
            grow()
        }
        (base + count).initialize(to: try make())
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<T>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// The values appended, moved out into an array; the buffer is empty afterwards.
    mutating func array() -> [T] {
        let moved = count
        let result = [T](unsafeUninitializedCapacity: moved) { destination, initialized in
            if let target = destination.baseAddress {
                target.moveInitialize(from: base, count: moved)
            }
            initialized = moved
        }
        count = 0
        return result
    }

    /// Frees the buffer, deinitializing any values not moved out.
    mutating func deallocate() {
        base.deinitialize(count: count)
        base.deallocate()
        count = 0
    }
}
