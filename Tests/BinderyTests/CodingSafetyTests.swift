import Foundation
import Testing

@testable import Bindery

/// The safe APIs that hold the Coding layer's unsafe code (issue 38): each refuses what would break its
/// invariant, with an answer or an error, never a wrong value or a crash.
@Suite struct CodingSafetyTests {
    // MARK: ExactCast

    @Test func anExactCastGivesAValueAsItsOwnType() throws {
        #expect(ExactCast.cast(42, to: Int.self) == 42)
        #expect(ExactCast.cast("text", to: String.self) == "text")
        #expect(ExactCast.cast([1, 2], to: [Int].self) == [1, 2])
        #expect(try ExactCast.decoded(Date(timeIntervalSince1970: 5), as: Date.self) == Date(timeIntervalSince1970: 5))
    }

    @Test func anExactCastToAnotherTypeIsNilNotAReinterpretation() {
        // Same size, so a missing check would reinterpret the bits instead of trapping.
        #expect(ExactCast.cast(Int64(1), to: Double.self) == nil)
        #expect(ExactCast.cast(Int(1), to: Int64.self) == nil)
        #expect(ExactCast.cast(UInt8(1), to: Bool.self) == nil)
    }

    @Test func anExactCastToAnotherTypeThrowsWhereADecodedValueIsExpected() {
        #expect(throws: DecodingError.self) { try ExactCast.decoded(Int64(1), as: Double.self) }
    }

    // MARK: RowGenerations

    @Test func aStampIsCurrentOnlyUntilItsCounterMovesOn() {
        let counters = RowGenerations.Counters.take()
        #expect(!counters.isInRow)
        counters.advanceRow()
        #expect(counters.isInRow)
        let row = counters.rowStamp
        let kept = counters.keptStamp
        #expect(row.isCurrent && kept.isCurrent)
        #expect(!row.refused.isCurrent)
        counters.advanceRow()
        #expect(!row.isCurrent && kept.isCurrent && !counters.isInRow)
        counters.advanceKept()
        #expect(!kept.isCurrent)
        // Given back, the counters move on: a stamp taken before never reads as current again.
        let last = counters.stamp(reused: true)
        counters.giveBack()
        #expect(!last.isCurrent)
    }

    // MARK: ContainerBox

    struct Keyed: Decodable {
        enum CodingKeys: CodingKey { case id }
        let id: Int
    }

    @Test func aBoxedKeyedContainerIsFoundToBeOneReference() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (id INTEGER); INSERT INTO t VALUES (1), (2), (3);")
        // A decoded row keeps the reused container only while it is not shared: three rows decode through it.
        #expect(try conn.fetchAll(Keyed.self, sql: "SELECT id FROM t ORDER BY id").map(\.id) == [1, 2, 3])
        let encoder = RowEncoderCore(options: CodingOptions())
        let container = encoder.container(keyedBy: Keyed.CodingKeys.self)
        #expect(ContainerBox(container).reference != nil)
    }

    @Test func aContainerOfAnyOtherLayoutIsNeverCheckedForSharing() {
        // A word of plain data has a reference's size and alignment, but no count to read.
        #expect(ContainerBox(Int(12)).reference == nil)
        #expect(ContainerBox(UnsafeRawPointer(bitPattern: 64)).reference == nil)
        #expect(ContainerBox((1 as UInt32, 2 as UInt32)).reference == nil)
        #expect(ContainerBox<Void>.isUnshared(nil) == false)
    }

    @Test func aContainerSlotHandsItsContainerBackForItsOwnKeyTypeOnly() {
        enum OtherKeys: CodingKey { case id }
        let encoder = RowEncoderCore(options: CodingOptions())
        var slot = ContainerSlot<EncodingContainers>()
        #expect(slot.isEmpty)
        slot.keep(encoder.container(keyedBy: Keyed.CodingKeys.self), tags: KeyTagTable())
        #expect(!slot.isEmpty && slot.tags != nil)
        // Another key type gets nothing, not the kept container reinterpreted.
        let other = slot.reuse(keyedBy: OtherKeys.self)
        #expect(other == nil)
        // Handed out and not held elsewhere: not kept.
        let reused = slot.reuse(keyedBy: Keyed.CodingKeys.self) != nil
        #expect(reused)
        var kept = slot.wasKept()
        #expect(!kept)
        // Handed out and held by a value: kept.
        let held = slot.reuse(keyedBy: Keyed.CodingKeys.self)?.value()
        kept = slot.wasKept()
        #expect(kept)
        withExtendedLifetime(held) {}
        // Not handed out since: nothing to check.
        kept = slot.wasKept()
        #expect(!kept)
        slot.drop()
        #expect(slot.isEmpty && slot.tags == nil)
        let dropped = slot.reuse(keyedBy: Keyed.CodingKeys.self)
        #expect(dropped == nil)
    }

    // MARK: KeyTagTable and SchemaProbe: plain data known from its size

    enum Tagged: CodingKey { case a, b }
    struct Named: CodingKey {
        var stringValue: String
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
    enum Backed: String, CodingKey { case a, b }

    @Test func onlyKeysOfOneByteAreLookedUpByTag() {
        #expect(KeyTagTable.isTaggable(Tagged.self))
        #expect(KeyTagTable.isTaggable(Backed.self))
        #expect(!KeyTagTable.isTaggable(Named.self))
        #expect(!KeyTagTable.isTaggable(IndexKey.self))
        #expect(KeyTagTable.tag(of: Tagged.b).index == 1)
    }

    @Test func aTagTableRemembersAnIndexPerKeyAndStartsUnknown() {
        enum Tagged: CodingKey { case a, b, c }
        let table = KeyTagTable()
        let (a, b, c) = (KeyTagTable.tag(of: Tagged.a), KeyTagTable.tag(of: Tagged.b), KeyTagTable.tag(of: Tagged.c))
        #expect(a.index == 0 && b.index == 1 && c.index == 2)
        #expect(table.entries[a] == KeyTagTable.unknown)
        table.entries[b] = 7
        #expect(table.entries[b] == 7)
        #expect(table.entries[a] == KeyTagTable.unknown && table.entries[c] == KeyTagTable.unknown)
    }

    enum Small: UInt8 { case first = 7, second }
    struct Pair { var flag: Bool; var small: Int8 }

    @Test func onlySmallTypesGetAZeroValue() {
        #expect(SchemaProbe.zeroValue(of: Small.self) == .first)
        #expect(SchemaProbe.zeroValue(of: Pair.self).map { !$0.flag && $0.small == 0 } == true)
        #expect(SchemaProbe.zeroValue(of: String.self) == nil)
        #expect(SchemaProbe.zeroValue(of: Int.self) == nil)
        #expect(SchemaProbe.zeroValue(of: NSObject.self) == nil)
        #expect(SchemaProbe.zeroValue(of: Never.self) == nil)
    }

    // MARK: SlotParameterMap

    @Test func aSlotParameterMapNumbersTheColumnsThenTheKeys() {
        let map = SlotParameterMap(columns: [true, false, true], keySlots: [4, 1])
        #expect(map.parameters == [1, 4, 2, 0, 3])
        #expect(map.count == 5)
        #expect(SlotParameterMap(columns: [], keySlots: []).count == 0)
    }
}
