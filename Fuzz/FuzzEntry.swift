// The one libFuzzer entry point of the fuzzing binary: scripts/fuzz builds the library and every
// harness into one executable (one optimized build instead of one per harness) and picks the harness
// for each run with the environment variable BINDERY_FUZZ_TARGET.

import Foundation

/// A harness: one input in, 0 out (libFuzzer's convention).
typealias FuzzHarness = @Sendable (UnsafePointer<UInt8>?, Int) -> CInt

/// The harnesses by the names scripts/fuzz gives them.
let fuzzHarnesses: [String: FuzzHarness] = [
    "changeset": changesetFuzz,
    "row-decoder": rowDecoderFuzz,
    "search-pattern": searchPatternFuzz,
    "sql": sqlFuzz,
    "sqlite-date": sqliteDateFuzz,
]

/// The harness BINDERY_FUZZ_TARGET names; a missing or unknown name stops the run with a message
/// instead of fuzzing nothing.
let selectedHarness: FuzzHarness = {
    let name = ProcessInfo.processInfo.environment["BINDERY_FUZZ_TARGET"] ?? ""
    guard let harness = fuzzHarnesses[name] else {
        let known = fuzzHarnesses.keys.sorted().joined(separator: ", ")
        FileHandle.standardError.write(Data("BINDERY_FUZZ_TARGET must be one of: \(known) (it is \"\(name)\")\n".utf8))
        exit(2)
    }
    return harness
}()

/// The libFuzzer entry point: runs the selected harness on one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedHarness(data, size)
}
