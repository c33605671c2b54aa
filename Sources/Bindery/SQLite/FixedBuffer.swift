/// Fixed-capacity heap memory whose every element is initialized: the one home of the library's
/// owned memory behind a pointer, for its hot state that must not pay for reference counting or for
/// the exclusivity checks of a class's stored `var`s. ``FixedBox`` is the same for one value, and
/// ``ByteTable`` for 256 values indexed by a byte.
///
/// Why a pointer at all: a class's stored `var` that is written for every field costs an exclusivity
/// check (`swift_beginAccess`) per access, and an array costs a uniqueness check and a retain; memory
/// behind a pointer costs neither. A `FixedBuffer` (or `FixedBox`) is a value holding only that
/// pointer (and its count): copying it counts no reference.
///
/// The safety argument, which every owner relies on:
///
/// - **Who owns it.** Each allocation has one owner, a class instance that makes it in its `init` and
///   frees it (``FixedBuffer/deallocate()``, ``FixedBox/deallocate()``) in its `deinit`, or a value
///   owned by such an instance that does so in its owner's `deinit`. Copies of the value are lent to
///   objects that the owner outlives, or that read it only while the owner is known to hold it (each
///   owner's comment says which); a copy is never used after its owner's `deinit`.
/// - **What is initialized.** All of it, from allocation to deallocation: `allocate` initializes every
///   element, every write replaces an initialized element with another, ``FixedBuffer/grown(to:filling:)``
///   moves every element and initializes the new ones, and `deallocate` deinitializes every element
///   before it frees the memory. So a read never meets uninitialized memory, and nothing leaks (but
///   what an `overwrite` is wrongly told holds nothing to release: a leak, never a fault).
/// - **No index out of range.** The subscript and ``FixedBuffer/overwrite(at:with:)`` trap
///   (`precondition`) on an index outside `0..<count` (one unsigned comparison), and so does
///   ``FixedBuffer/place(at:)``, once, for a caller that then reads and writes the element through
///   the place within one call; ``FixedBuffer/place(ifWithin:)`` makes the same comparison and gives
///   nil rather than trap. A ``ByteTable``'s index is a `UInt8`, below 256 by its type; the box
///   has no index.
/// - **Exclusivity.** The memory is not a Swift variable, so Swift does not check overlapping access
///   to it: each owner is used on one thread at a time (a connection's), and writes an element only
///   between reads, never inside an access to the same element.
///
/// The one exception to "only Swift reads it, on one thread" is ``FixedBox/address``, for a value C
/// code reads and writes by address, atomically, for as long as the box lives (the status word of
/// ``ConnectionStatus``, which Swift then never touches through ``FixedBox/value``).
struct FixedBuffer<Element> {
    /// The first element; `count` of them are initialized, always.
    private let base: UnsafeMutablePointer<Element>
    /// How many elements the buffer holds, all initialized.
    let count: Int

    @inline(__always)
    private init(base: UnsafeMutablePointer<Element>, count: Int) {
        self.base = base
        self.count = count
    }

    /// A new buffer of `count` elements, each initialized to `value`; its owner frees it with
    /// ``deallocate()``.
    static func allocate(count: Int, repeating value: Element) -> FixedBuffer {
        precondition(count >= 0, "a FixedBuffer of a negative count")
        let base = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(count, 1))
        base.initialize(repeating: value, count: count)
        return FixedBuffer(base: base, count: count)
    }

    /// A new buffer holding copies of `elements`, in order; its owner frees it with ``deallocate()``.
    static func allocate(copying elements: [Element]) -> FixedBuffer {
        let count = elements.count
        let base = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(count, 1))
        elements.withUnsafeBufferPointer { source in
            if let start = source.baseAddress {
                base.initialize(from: start, count: count)
            }
        }
        return FixedBuffer(base: base, count: count)
    }

    /// The element at `index`, read and written in place; traps when `index` is not in `0..<count`.
    @inline(__always)
    subscript(index: Int) -> Element {
        unsafeAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "FixedBuffer index out of range")
            return UnsafePointer(base + index)
        }
        nonmutating unsafeMutableAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "FixedBuffer index out of range")
            return base + index
        }
    }

    /// The place of the element at `index`, checked once (it traps outside `0..<count`), for a caller
    /// that reads and writes the element several times in one call: the element's address is computed
    /// once. The place is valid until the buffer is grown or freed: it is never kept beyond the call
    /// that asked for it.
    ///
    /// Measured (callgrind, issue 38, `bulk insert 100,000 records, 10 INTEGER columns`, where
    /// ``EncodedRow``'s per-field `set` reads and writes its slot): through the subscript, each
    /// access checked and its address computed again, +1.11% (9 instructions a field); through an
    /// unchecked place, +0.00%; an unchecked place saved less than the 2% a mechanism must earn, so
    /// the place is checked.
    @inline(__always)
    func place(at index: Int) -> Place {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "FixedBuffer index out of range")
        return Place(pointer: base + index)
    }

    /// The place of the element at `index` when `index` is in `0..<count`, or nil: the same one
    /// comparison as ``place(at:)``, for a caller whose index may be a sentinel (a negative "none yet")
    /// and which takes another path then, rather than trap. Not marked to be inlined: the optimizer
    /// inlines it anyway (callgrind, `insert()` one by one: +0.0002% with the mark removed).
    func place(ifWithin index: Int) -> Place? {
        guard UInt(bitPattern: index) < UInt(bitPattern: count) else { return nil }
        return Place(pointer: base + index)
    }

    /// One element of a buffer, as ``place(at:)`` found it: valid until the buffer is grown or
    /// freed.
    struct Place {
        fileprivate let pointer: UnsafeMutablePointer<Element>

        /// The element, read and written in place.
        @inline(__always)
        var element: Element {
            unsafeAddress { UnsafePointer(pointer) }
            nonmutating unsafeMutableAddress { pointer }
        }

        /// Writes `value` over the element without destroying it first, as
        /// ``FixedBuffer/overwrite(at:with:)`` does (see there).
        @inline(__always)
        func overwrite(with value: Element) {
            pointer.initialize(to: value)
        }
    }

    /// Writes `value` at `index` without destroying the element there first, for an element the caller
    /// knows to hold nothing to release (an enum in a case with no reference): the element type's
    /// destroy would cost a call. Were the caller wrong, what the old element held would leak, never be
    /// used again: a leak, not a fault. Traps when `index` is not in `0..<count`.
    @inline(__always)
    func overwrite(at index: Int, with value: Element) {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "FixedBuffer index out of range")
        (base + index).initialize(to: value)
    }

    /// A buffer of `count` elements (no fewer than this one's) holding this one's elements, moved, then
    /// `value` in each new place. This buffer is freed: only the new one may be used afterwards (its
    /// owner stores it in place of this one).
    func grown(to count: Int, filling value: Element) -> FixedBuffer {
        precondition(count >= self.count, "a FixedBuffer grown to fewer elements")
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(count, 1))
        larger.moveInitialize(from: base, count: self.count)
        (larger + self.count).initialize(repeating: value, count: count - self.count)
        base.deallocate()
        return FixedBuffer(base: larger, count: count)
    }

    /// Deinitializes every element and frees the memory; called once, by the owner's `deinit`.
    func deallocate() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// One value in heap memory of its own, read and written in place: a ``FixedBuffer`` of one element
/// without its count or index, under the same safety argument (see there).
struct FixedBox<Value> {
    /// The value, initialized from allocation to deallocation.
    private let base: UnsafeMutablePointer<Value>

    @inline(__always)
    private init(base: UnsafeMutablePointer<Value>) {
        self.base = base
    }

    /// A new box holding `value`; its owner frees it with ``deallocate()``.
    static func allocate(_ value: Value) -> FixedBox {
        let base = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        base.initialize(to: value)
        return FixedBox(base: base)
    }

    /// The value, read and written in place.
    @inline(__always)
    var value: Value {
        unsafeAddress { UnsafePointer(base) }
        nonmutating unsafeMutableAddress { base }
    }

    /// The value's address, for C code that reads or writes it by address (atomically) for as long as
    /// the box lives: valid until ``deallocate()``. Swift code uses ``value``.
    var address: UnsafeMutablePointer<Value> { base }

    /// Deinitializes the value and frees the memory; called once, by the owner's `deinit`.
    func deallocate() {
        base.deinitialize(count: 1)
        base.deallocate()
    }
}

/// 256 values in heap memory of their own, indexed by a byte, so that no index can be out of range:
/// a ``FixedBuffer`` without its count or its check, under the same safety argument (see there).
struct ByteTable<Element> {
    /// The first of the 256 values, each initialized from allocation to deallocation.
    private let base: UnsafeMutablePointer<Element>

    @inline(__always)
    private init(base: UnsafeMutablePointer<Element>) {
        self.base = base
    }

    /// A new table of 256 values, each `value`; its owner frees it with ``deallocate()``.
    static func allocate(repeating value: Element) -> ByteTable {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: 256)
        base.initialize(repeating: value, count: 256)
        return ByteTable(base: base)
    }

    /// The value at `index`, read and written in place.
    @inline(__always)
    subscript(index: UInt8) -> Element {
        unsafeAddress { UnsafePointer(base + Int(index)) }
        nonmutating unsafeMutableAddress { base + Int(index) }
    }

    /// Deinitializes the 256 values and frees the memory; called once, by the owner's `deinit`.
    func deallocate() {
        base.deinitialize(count: 256)
        base.deallocate()
    }
}
