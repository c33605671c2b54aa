import Foundation
import Testing

@testable import Bindery

/// `RowGenerations.Held` (the decoder or encoder a kept container or `Encoder` reaches, lent without
/// counting) and `ExactCast.Place` (a value's place and type for one call): each refuses what would
/// break its invariant, with nil or an error, never a freed object or a value viewed as another type.
@Suite struct HeldAndPlaceTests {
    final class Target {
        var reads = 0
    }

    // MARK: Held

    @Test func aHeldObjectIsReachedOnlyWhileItsStampIsCurrent() {
        let counters = RowGenerations.Counters.take()
        defer { counters.giveBack() }
        let target = Target()
        counters.advanceRow()
        let held = RowGenerations.Held(target, stamp: counters.rowStamp)
        #expect(held.isCurrent)
        #expect(held.object === target)
        let read = held.with(
            { object -> Int in
                object.reads += 1
                return object.reads
            }, expired: { -1 })
        #expect(read == 1)
        counters.advanceRow()  // the row ends
        #expect(!held.isCurrent)
        #expect(held.object == nil)
        #expect(held.with({ $0.reads }, expired: { -1 }) == -1)
        #expect(target.reads == 1)
    }

    @Test func aHeldObjectIsNeverReachedOnceItsOwnerGaveTheCountersBack() {
        // What a decoder's deinit does: the counters move on before the decoder is freed, so a container
        // kept past it never reaches the freed memory.
        let counters = RowGenerations.Counters.take()
        counters.advanceRow()
        var target: Target? = Target()
        let held = RowGenerations.Held(target!, stamp: counters.rowStamp)
        counters.giveBack()
        target = nil
        #expect(held.object == nil)
        #expect(held.with({ _ in true }, expired: { false }) == false)
    }

    /// Where a record's `encode(to:)` keeps its encoder; one test uses it.
    final class Keeper: @unchecked Sendable {
        // @unchecked Sendable is safe: only the one test that encodes `KeepsItsEncoder` reads and
        // writes it, on its own thread.
        var encoder: (any Encoder)?
    }

    struct KeepsItsEncoder: Record {
        static let tableName = "kept"
        static let keeper = Keeper()
        enum CodingKeys: String, CodingKey { case id, name }
        var id: Int64?
        var name: String

        func encode(to encoder: any Encoder) throws {
            Self.keeper.encoder = encoder
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
        }
    }

    @Test func anEncoderKeptPastItsRecordHandsOutContainersThatThrow() throws {
        let conn = try Connection(path: ":memory:")
        try conn.execute(script: "CREATE TABLE kept (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        _ = try conn.insert(KeepsItsEncoder(id: nil, name: "Ana"))
        let kept = try #require(KeepsItsEncoder.keeper.encoder)
        var container = kept.container(keyedBy: KeepsItsEncoder.CodingKeys.self)
        #expect(throws: EncodingError.self) { try container.encode("Bo", forKey: .name) }
        #expect(kept.userInfo.isEmpty)
        _ = try conn.insert(KeepsItsEncoder(id: nil, name: "Cy"))
        #expect(try conn.fetchAll(KeepsItsEncoder.self).map(\.name) == ["Ana", "Cy"])
    }

    // MARK: Place

    @Test func aPlaceIsReadAsItsOwnTypeOnly() {
        var text = "where it lies"
        ExactCast.Place.with(&text) { place in
            #expect(place.read(as: String.self) { $0.count } == 13)
            #expect(place.read(as: Int.self) { $0 } == nil)
            #expect(place.read(as: Substring.self) { $0.count } == nil)
        }
        ExactCast.Place.with(borrowing: Int64(7)) { place in
            // Same size and layout: a missing check would read the bits as a Double.
            #expect(place.read(as: Double.self) { $0 } == nil)
            #expect(place.read(as: Int64.self) { $0 } == 7)
        }
    }

    struct Numbers: Equatable {
        var values: [Int]
    }

    @Test func aPlaceChangesTheValueWhereItLiesAndRefusesABorrowedOne() {
        var numbers = Numbers(values: [1, 2])
        let changed: Int? = ExactCast.Place.with(&numbers) { place in
            place.modify(as: Numbers.self) {
                $0.values.append(3)
                return $0.values.count
            }
        }
        #expect(changed == 3)
        #expect(numbers.values == [1, 2, 3])
        let wrongType: Void? = ExactCast.Place.with(&numbers) { place in place.modify(as: [Int].self) { _ in } }
        #expect(wrongType == nil)
        let borrowed: Void? = ExactCast.Place.with(borrowing: numbers) { place in
            place.modify(as: Numbers.self) { $0.values.removeAll() }
        }
        #expect(borrowed == nil)
        #expect(numbers.values == [1, 2, 3])
    }

    @Test func thePlaceOfAnArrayIsTheArrayNotItsFirstElement() {
        var numbers = [1, 2]
        let count: Int? = ExactCast.Place.with(&numbers) { place in
            place.modify(as: [Int].self) {
                $0.append(3)
                return $0.count
            }
        }
        #expect(count == 3)
        #expect(numbers == [1, 2, 3])
        #expect(ExactCast.Place.with(&numbers) { $0.read(as: Int.self) { $0 } } == nil)
    }
}
