/// Where each slot of an ``EncodedRow`` goes in a statement: the 1-based parameter it is bound to, or 0
/// for a slot the statement does not take. Built once per shape of row, so that binding a row is one
/// pass over its slots (``EncodedRow/bind(to:parameters:)``), with the key columns in the same pass.
final class SlotParameterMap {
    /// The parameter of each slot; 0 where the slot is not bound.
    let parameters: [Int32]
    /// How many slots `parameters` covers.
    var count: Int { parameters.count }

    /// The slots marked in `columns` bound to consecutive parameters from 1, then the slots `keySlots`
    /// bound to the parameters after them, in key order.
    init(columns: [Bool], keySlots: [Int]) {
        var parameters = [Int32](repeating: 0, count: max(columns.count, (keySlots.max() ?? -1) + 1))
        var next: Int32 = 1
        for (slot, isColumn) in columns.enumerated() where isColumn {
            parameters[slot] = next
            next += 1
        }
        for slot in keySlots {
            parameters[slot] = next
            next += 1
        }
        self.parameters = parameters
    }
}
