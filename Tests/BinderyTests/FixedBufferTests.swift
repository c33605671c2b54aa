import Testing

@testable import Bindery

/// What ``FixedBuffer`` and ``FixedBox`` guarantee: the count asked for, every element initialized
/// and kept, non-trivial elements (strings, arrays) copied, moved and freed without a leak (`scripts/asan
/// FixedBuffer` checks that), and an index out of range refused with a trap, never read.
@Suite struct FixedBufferTests {
    @Test func holdsTheCountAskedForEachElementInitialized() {
        let buffer = FixedBuffer<Int32>.allocate(count: 256, repeating: -2)
        defer { buffer.deallocate() }
        #expect(buffer.count == 256)
        #expect((0..<256).allSatisfy { buffer[$0] == -2 })
    }

    @Test func keepsTheValuesWritten() {
        let buffer = FixedBuffer<Int>.allocate(count: 10, repeating: 0)
        defer { buffer.deallocate() }
        for index in 0..<10 {
            buffer[index] = index * index
        }
        #expect((0..<10).map { buffer[$0] } == (0..<10).map { $0 * $0 })
    }

    @Test func aCopyOfTheValueSharesTheMemory() {
        let buffer = FixedBuffer<String>.allocate(count: 2, repeating: "")
        defer { buffer.deallocate() }
        let lent = buffer
        lent[1] = "written through a copy"
        #expect(buffer[1] == "written through a copy")
    }

    @Test func copiesAnArrayOfStrings() {
        let words = (0..<20).map { "word number \($0), long enough to live on the heap" }
        let buffer = FixedBuffer.allocate(copying: words)
        defer { buffer.deallocate() }
        #expect(buffer.count == 20)
        #expect((0..<20).map { buffer[$0] } == words)
        let empty = FixedBuffer<String>.allocate(copying: [])
        defer { empty.deallocate() }
        #expect(empty.count == 0)
    }

    @Test func replacesStringsInPlace() {
        let buffer = FixedBuffer<String>.allocate(count: 3, repeating: "a first string that lives on the heap")
        defer { buffer.deallocate() }
        for round in 0..<100 {
            buffer[round % 3] = "string \(round), also long enough to live on the heap"
            buffer[round % 3].append("!")
        }
        #expect(buffer[0] == "string 99, also long enough to live on the heap!")
        #expect(buffer[1] == "string 97, also long enough to live on the heap!")
        #expect(buffer[2] == "string 98, also long enough to live on the heap!")
    }

    @Test func growsKeepingItsElementsAndFillingTheNewOnes() {
        var buffer = FixedBuffer<String>.allocate(count: 2, repeating: "")
        defer { buffer.deallocate() }
        buffer[0] = "the first string, on the heap"
        buffer[1] = "the second string, on the heap"
        buffer = buffer.grown(to: 5, filling: "a filler string, on the heap too")
        #expect(buffer.count == 5)
        #expect(buffer[0] == "the first string, on the heap")
        #expect(buffer[1] == "the second string, on the heap")
        #expect((2..<5).allSatisfy { buffer[$0] == "a filler string, on the heap too" })
    }

    @Test func overwritesAnElementThatHoldsNothingToRelease() {
        let buffer = FixedBuffer<SQLiteValue>.allocate(count: 2, repeating: .null)
        defer { buffer.deallocate() }
        buffer.overwrite(at: 0, with: .integer(42))
        buffer.overwrite(at: 1, with: .text("a text value long enough to live on the heap"))
        buffer.overwrite(at: 0, with: .real(1.5))
        #expect(buffer[0] == .real(1.5))
        #expect(buffer[1] == .text("a text value long enough to live on the heap"))
    }

    @Test func aPlaceReadsAndWritesItsElement() {
        let buffer = FixedBuffer<String>.allocate(count: 4, repeating: "a string that lives on the heap")
        defer { buffer.deallocate() }
        let place = buffer.place(at: 2)
        place.element = "written through the place, also on the heap"
        place.element.append("!")
        #expect(buffer[2] == "written through the place, also on the heap!")
        #expect(buffer[1] == "a string that lives on the heap")
        let numbers = FixedBuffer<SQLiteValue>.allocate(count: 2, repeating: .integer(1))
        defer { numbers.deallocate() }
        numbers.place(at: 1).overwrite(with: .real(2.5))
        #expect(numbers[1] == .real(2.5))
    }

    /// `place(ifWithin:)` gives the place of an index in range, and nil for any other (a negative
    /// "none yet" sentinel, the count, the extremes), where `place(at:)` would trap.
    @Test func aPlaceIfWithinIsNilOutsideTheBuffer() {
        let buffer = FixedBuffer<Int>.allocate(count: 3, repeating: 7)
        defer { buffer.deallocate() }
        for index in [-1, 3, 4, Int.min, Int.max] {
            #expect(buffer.place(ifWithin: index) == nil, "index \(index)")
        }
        for index in 0..<3 {
            let place = buffer.place(ifWithin: index)
            #expect(place?.element == 7)
            place?.element = index * 10
        }
        #expect((0..<3).map { buffer[$0] } == [0, 10, 20])
        let empty = FixedBuffer<Int>.allocate(count: 0, repeating: 0)
        defer { empty.deallocate() }
        #expect(empty.place(ifWithin: 0) == nil)
    }

    @Test func aByteTableHolds256ValuesIndexedByAByte() {
        let table = ByteTable<String>.allocate(repeating: "unknown, and long enough to live on the heap")
        defer { table.deallocate() }
        for byte in UInt8.min...UInt8.max where byte % 3 == 0 {
            table[byte] = "byte \(byte), long enough to live on the heap"
        }
        #expect(table[0] == "byte 0, long enough to live on the heap")
        #expect(table[1] == "unknown, and long enough to live on the heap")
        #expect(table[255] == "byte 255, long enough to live on the heap")
        #expect((UInt8.min...UInt8.max).filter { table[$0].hasPrefix("byte") }.count == 86)
    }

    @Test func aBoxKeepsItsValueAndChangesItInPlace() {
        let box = FixedBox<[String]>.allocate([])
        defer { box.deallocate() }
        for number in 0..<50 {
            box.value.append("key \(number), a string that lives on the heap")
        }
        #expect(box.value.count == 50)
        #expect(box.value[49] == "key 49, a string that lives on the heap")
        let lent = box
        lent.value = ["replaced through a copy"]
        #expect(box.value == ["replaced through a copy"])
    }

    @Test func aBoxGivesAStableAddress() {
        let box = FixedBox<UInt32>.allocate(4)
        defer { box.deallocate() }
        let address = box.address
        box.value |= 1
        #expect(box.address == address)
        #expect(address.pointee == 5)
    }

    @Test func refusesAnIndexPastTheEnd() async {
        await #expect(processExitsWith: .failure) {
            let buffer = FixedBuffer<Int>.allocate(count: 4, repeating: 0)
            let index = Int.random(in: 4...4)
            _ = buffer[index]
        }
    }

    @Test func refusesANegativeIndex() async {
        await #expect(processExitsWith: .failure) {
            let buffer = FixedBuffer<String>.allocate(count: 4, repeating: "")
            buffer[Int.random(in: -1 ... -1)] = "never written"
        }
    }

    @Test func refusesAnOverwriteOutOfRange() async {
        await #expect(processExitsWith: .failure) {
            let buffer = FixedBuffer<Int>.allocate(count: 1, repeating: 0)
            buffer.overwrite(at: Int.random(in: 1...1), with: 7)
        }
    }

    @Test func aPlaceOutOfRangeTraps() async {
        await #expect(processExitsWith: .failure) {
            let buffer = FixedBuffer<Int>.allocate(count: 2, repeating: 0)
            buffer.place(at: Int.random(in: 2...2)).element = 7
        }
    }
}
