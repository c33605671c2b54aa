// libFuzzer target: the changeset reader (`Changeset(parsing:)`, `ChangesetReader`), which reads
// bytes that come from other copies through a hub, on any bytes, with properties:
// - it throws SyncError.malformedChangeset or reads a changeset; it never traps or reads out of bounds;
// - a changeset it reads writes back (`serialized()`) to bytes that read to the same changeset, and
//   writing those again gives the same bytes;
// - skipping changes (`skipChange`, which the pull's checks use) walks the same tables and changes
//   as reading them;
// - its undo (`Changeset.inverse(of:)`, made from its bytes) reads with the same changes, and
//   inverting twice gives the changeset back.

import Foundation

/// The harness (run through `fuzzOneInput` in FuzzEntry.swift): one input is a changeset's bytes.
public func changesetFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: size > 0 ? data : nil, count: size > 0 ? size : 0))
    let changeset: Changeset
    do {
        changeset = try Changeset(parsing: bytes)
    } catch {
        return 0
    }
    let written = changeset.serialized()
    guard let again = try? Changeset(parsing: written) else {
        require(false, "a changeset read from \(bytes.count) bytes wrote bytes it cannot read")
        return 0
    }
    require(again.serialized() == written, "writing a changeset read back from its own bytes changed them")
    require(again.changeCount == changeset.changeCount, "the change count differs after a round trip")
    do {
        // The undo a pull applies, made from the bytes: it reads, it has the same changes, and made
        // again from its own bytes it gives the changeset back (without the tables that had no change,
        // which it leaves out).
        let inverse = try Changeset.inverse(of: written)
        let twice = try Changeset.inverse(of: inverse)
        require(try Changeset(parsing: inverse).changeCount == changeset.changeCount, "the undo lost changes")
        require(try Changeset.inverse(of: twice) == inverse, "inverting the undo twice changed it")
        if changeset.tables.allSatisfy({ !$0.changes.isEmpty }) {
            require(twice == written, "inverting twice did not give the changeset back")
        } else {
            require(try Changeset(parsing: twice).changeCount == changeset.changeCount, "inverting twice lost changes")
        }
    } catch {
        require(false, "inverting a changeset that reads threw \(error)")
    }

    var reader = ChangesetReader(bytes: bytes)
    var tables = 0
    var changes = 0
    do {
        while let header = try reader.nextTable() {
            tables += 1
            while try reader.skipChange(columnCount: header.primaryKey.count) {
                changes += 1
            }
        }
    } catch {
        require(false, "skipping the changes of a changeset that reads threw \(error)")
    }
    require(tables == changeset.tables.count, "skipping saw \(tables) tables, reading \(changeset.tables.count)")
    require(changes == changeset.changeCount, "skipping saw \(changes) changes, reading \(changeset.changeCount)")
    return 0
}
