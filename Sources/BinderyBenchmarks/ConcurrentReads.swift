import Bindery
import Foundation

/// The `Database` actor: what a read through it costs beside a plain `Connection`, and whether its
/// reader connections run in parallel.
enum ConcurrentReads {
    static func run(_ benchmark: Benchmark) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reads.sqlite").path

        let db = try Database(path: path)
        try await db.writeWithoutTransaction { conn in
            try conn.execute(script: IntegerRecords.schema)
        }
        try await db.insert(contentsOf: (0..<IntegerRecords.count).map(TenIntegers.init))
        let conn = try Connection(path: path, options: .init(readOnly: true))

        await benchmark.compareAsync(
            "db.fetchAll through the actor vs Connection.fetchAll", goal: 1.1, baselineName: "Connection",
            bindery: "Database",
            baseline: {
                _ = try? conn.fetchAll(TenIntegers.self)
            },
            bindery: {
                _ = try? await db.fetchAll(TenIntegers.self)
            })

        let parallel = await benchmark.compareAsync(
            "4 concurrent reads vs the same 4 one after another", goal: nil, baselineName: "one by one",
            bindery: "concurrent",
            baseline: {
                for _ in 0..<4 {
                    _ = try? await db.read { conn in try conn.fetchAll(TenIntegers.self) }
                }
            },
            bindery: {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            _ = try? await db.read { conn in try conn.fetchAll(TenIntegers.self) }
                        }
                    }
                }
            })
        if parallel > 0 {
            print("  (on 2 cores, parallel readers show as a ratio near 0.5; 1.0 would mean they ran one at a time)")
        }
        try await db.close()
    }
}
