/// Memory for one record, kept from call to call: where `find` and `upsert` put the record they
/// decode while a statement is lent, so that the lend returns no generic `T?` (which costs a look-up of
/// `Optional<T>`'s metadata on every call, callgrind: about 330 instructions; a slot allocated for each
/// call costs some 230).
///
/// Safety: the memory is allocated for the layout of the first type put (a record type's state, which
/// owns the slot, only ever puts its own type), and again, when empty, for another layout. The slot
/// knows whether it holds a value: ``put(_:)`` initializes it, ``take(_:)`` moves the value out and
/// ``discard(_:)`` deinitializes it, each only in that state, so no value is read uninitialized,
/// overwritten or leaked. A use nested inside another (an `init(from:)` that finds a record of its own
/// type) puts and takes its value before the outer one puts its own: the outer one finds it empty.
final class RecordSlot {
    private var memory: UnsafeMutableRawPointer?
    private var byteCount = 0
    private var alignment = 0
    /// Whether the memory holds a value.
    private(set) var isFull = false

    deinit {
        // Every user takes or discards its value before the slot can go (see the type's comment).
        memory?.deallocate()
    }

    /// Puts `value` in the slot, which must be empty; returns false, and puts nothing, when it is not.
    @inline(__always)
    @discardableResult
    func put<T>(_ value: T) -> Bool {
        guard !isFull else { return false }
        let size = max(MemoryLayout<T>.size, 1)
        let align = MemoryLayout<T>.alignment
        if memory == nil || byteCount != size || alignment != align {
            allocate(byteCount: size, alignment: align)
        }
        guard let memory else { return false }
        // Bound and initialized as a typed pointer, which the compiler specializes: the raw pointer's
        // `initializeMemory(as:repeating:count:)` is a call into the runtime (callgrind, issue 38:
        // `find(_:id:)`, 36 instructions a call).
        memory.bindMemory(to: T.self, capacity: 1).initialize(to: value)
        isFull = true
        return true
    }

    /// Moves the value out of the slot, which is then empty; nil when it holds none.
    @inline(__always)
    func take<T>(_ type: T.Type) -> T? {
        guard isFull, let memory else { return nil }
        isFull = false
        return memory.assumingMemoryBound(to: T.self).move()
    }

    /// Deinitializes the value in the slot, if any (a use that ended by throwing after it put one).
    @inline(__always)
    func discard<T>(_ type: T.Type) {
        guard isFull, let memory else { return }
        isFull = false
        memory.assumingMemoryBound(to: T.self).deinitialize(count: 1)
    }

    /// Memory for a value of `byteCount` bytes aligned to `alignment`, in place of any before.
    @inline(never)
    private func allocate(byteCount: Int, alignment: Int) {
        memory?.deallocate()
        memory = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: alignment)
        self.byteCount = byteCount
        self.alignment = alignment
    }
}
