import Foundation

/// Times workloads and prints how Bindery compares with the raw C API doing the same work.
struct Benchmark {
    /// How many timed runs of each side; the median is reported.
    let runs: Int
    /// Only comparisons whose name contains this text run (all when nil).
    var only: String?

    /// Runs the two sides alternately and prints their medians and ratio; returns the ratio.
    @discardableResult
    func compare(
        _ name: String, goal: Double?, baselineName: String = "C API", binderyName: String = "Bindery",
        baseline: () throws -> Void, bindery: () throws -> Void
    ) rethrows -> Double {
        if let only, !name.contains(only) {
            return 0
        }
        var baseTimes: [Double] = []
        var binderyTimes: [Double] = []
        try baseline()
        try bindery()
        for _ in 0..<runs {
            baseTimes.append(try Benchmark.time(baseline))
            binderyTimes.append(try Benchmark.time(bindery))
        }
        return report(name, goal: goal, baselineName: baselineName, binderyName: binderyName, baseTimes, binderyTimes)
    }

    /// The same as ``compare(_:goal:baselineName:binderyName:baseline:bindery:)`` for asynchronous work.
    @discardableResult
    func compareAsync(
        _ name: String, goal: Double?, baselineName: String, bindery binderyName: String = "Bindery",
        baseline: () async throws -> Void, bindery: () async throws -> Void
    ) async rethrows -> Double {
        if let only, !name.contains(only) {
            return 0
        }
        var baseTimes: [Double] = []
        var binderyTimes: [Double] = []
        try await baseline()
        try await bindery()
        for _ in 0..<runs {
            var start = Benchmark.clock()
            try await baseline()
            baseTimes.append(Double(Benchmark.clock() - start) / 1e9)
            start = Benchmark.clock()
            try await bindery()
            binderyTimes.append(Double(Benchmark.clock() - start) / 1e9)
        }
        return report(
            name, goal: goal, baselineName: baselineName, binderyName: binderyName, baseTimes, binderyTimes)
    }

    /// Prints the medians of both sides and their ratio; returns the ratio.
    private func report(
        _ name: String, goal: Double?, baselineName: String, binderyName: String, _ baseTimes: [Double],
        _ binderyTimes: [Double]
    ) -> Double {
        let base = baseTimes.sorted()[baseTimes.count / 2]
        let ours = binderyTimes.sorted()[binderyTimes.count / 2]
        let ratio = ours / base
        let verdict = goal.map { ratio <= $0 ? "ok, goal ≤ \(format($0, 2))×" : "OVER goal ≤ \(format($0, 2))×" } ?? ""
        print(
            "\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(baselineName) \(format(base * 1000, 2)) ms"
                + "  \(binderyName) \(format(ours * 1000, 2)) ms  ratio \(format(ratio, 2))×  \(verdict)")
        return ratio
    }

    private static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = clock()
        try body()
        return Double(clock() - start) / 1e9
    }

    /// The clock of the timed runs, read where each run starts and ends (nanoseconds). Out of line, so
    /// that callgrind can cut its profile at these two points: `scripts/bench-instructions` counts the
    /// instructions of each side this way.
    @inline(never)
    static func clock() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }
}

/// `value` with `digits` decimals.
func format(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}
