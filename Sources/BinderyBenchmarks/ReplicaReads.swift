import Bindery
import Foundation
import NorthwindFixture

/// A read replica (`Database.replica(of:)`): Northwind's `Orders` fetched through Litestream's VFS from a
/// `file://` replica, beside the same fetch from the local file. It needs `litestream` and the VFS
/// extension: `BINDERY_LITESTREAM` and `BINDERY_LITESTREAM_VFS`, or the ones `scripts/install-litestream`
/// puts in `.build/litestream-venv` (run from the package's folder); without them the line is skipped.
enum ReplicaReads {
    static func run(_ benchmark: Benchmark, path: String) async throws {
        let name = "Northwind Orders: read replica vs local file"
        if let only = benchmark.only, !name.contains(only) {
            return
        }
        guard let litestream = tool("BINDERY_LITESTREAM", "bin/litestream"),
            let vfs = tool("BINDERY_LITESTREAM_VFS", "lib/python3*/site-packages/litestream_vfs/litestream-vfs.so")
        else {
            print("\(name): skipped (no litestream or litestream-vfs: run scripts/install-litestream)")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let primary = directory.appendingPathComponent("northwind.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: primary)
        let configuration = directory.appendingPathComponent("litestream.yml").path
        let replica = "file://\(directory.path)/replica"
        try Data("dbs:\n  - path: \(primary)\n    replica:\n      url: \(replica)\n".utf8)
            .write(to: URL(fileURLWithPath: configuration))

        // Litestream replicates WAL databases: the copy is switched to WAL, then synced once.
        let local = try Database(path: primary, options: .init(checkpointing: .leftToReplicator))
        let status = try Tool.run(litestream, ["replicate", "-once", "-config", configuration]).status
        guard status == 0 else {
            throw BenchmarkError.mismatch("litestream replicate -once exited with \(status)")
        }
        let remote = try await Database.replica(of: replica, extensionPath: vfs)
        var localCount = 0
        var replicaCount = 0
        await benchmark.compareAsync(
            "Northwind Orders: read replica vs local file", goal: nil, baselineName: "local",
            bindery: "replica",
            baseline: {
                localCount = (try? await local.fetchAll(Order.self, sql: "SELECT * FROM Orders").count) ?? -1
            },
            bindery: {
                replicaCount = (try? await remote.fetchAll(Order.self, sql: "SELECT * FROM Orders").count) ?? -1
            })
        guard localCount == 16_704, replicaCount == localCount else {
            throw BenchmarkError.mismatch("Orders: the replica read \(replicaCount) rows, the local file \(localCount)")
        }
        try await remote.close()
        try await local.close()
    }

    /// The path that the environment variable `variable` names, or the first match of `pattern` in
    /// `.build/litestream-venv` of the current folder; nil when there is none.
    static func tool(_ variable: String, _ pattern: String) -> String? {
        if let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty {
            return FileManager.default.fileExists(atPath: path) ? path : nil
        }
        var candidates = [FileManager.default.currentDirectoryPath + "/.build/litestream-venv"]
        for component in pattern.split(separator: "/") {
            candidates = candidates.flatMap { folder -> [String] in
                guard component.hasSuffix("*") else { return [folder + "/" + component] }
                let prefix = component.dropLast()
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                return names.filter { $0.hasPrefix(prefix) }.sorted().map { folder + "/" + $0 }
            }
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }
}
