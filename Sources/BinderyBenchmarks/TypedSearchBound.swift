import Bindery
import Foundation

/// The worst typed text a search box can receive, a 100 KB paste of words drawn as the corpus draws
/// them, searched in the 100,000-document index of ``FullTextSearch``: how long its bounded pattern
/// takes, ranked with snippets, and how soon a cancel ends it while it runs.
enum TypedSearchBound {
    static let name = "full-text: worst typed text, 100 KB paste"
    static let cancelName = "full-text: cancel of a running search"
    /// What the bound promises (SearchPattern's documentation).
    static let budget = 1.0
    /// What a cancel promises.
    static let cancelBudget = 0.1

    static func run(_ benchmark: Benchmark, conn: Connection) throws {
        if let only = benchmark.only, !name.contains(only), !cancelName.contains(only) {
            return
        }
        let paste = self.paste()
        let words = SearchPattern.terms(in: paste).count
        let patterns: [(String, SearchPattern)] = [
            ("all", try require(SearchPattern.all(paste))), ("any", try require(SearchPattern.any(paste))),
            ("prefix", try require(SearchPattern.prefix(paste))), ("phrase", try require(SearchPattern.phrase(paste))),
        ]
        var times: [String] = []
        var worst = 0.0
        for (kind, pattern) in patterns {
            var samples: [Double] = []
            for _ in 0..<max(1, min(benchmark.runs, 3)) {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try search(pattern, on: conn)
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            let median = samples.sorted()[samples.count / 2]
            worst = max(worst, median)
            times.append("\(kind) \(format(median * 1000, 1)) ms")
        }
        print(
            "\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(paste.utf8.count / 1000) KB, "
                + "\(words) words → \(SearchPattern.maximumTermCount) terms: " + times.joined(separator: ", ")
                + "  \(worst <= budget ? "ok" : "OVER"), bound ≤ \(format(budget * 1000, 0)) ms")

        // The cancel: the slowest of the patterns above, on a reader of a Database over a copy of the
        // index in a temporary file, cancelled once it has run for a while.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bindery-bench-cancel-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("search.sqlite").path
        try conn.backup(to: path)
        let any = try require(SearchPattern.any(paste))
        // A raw pattern of every distinct word of the paste: the unbounded search that ran for minutes.
        let unbounded = SearchPattern(
            raw: Array(Set(SearchPattern.terms(in: paste))).sorted().map { "\"\($0)\"" }.joined(separator: " OR "))
        let cancelled: [(String, SearchPattern)] = [("bounded any", any), ("raw pattern of every word", unbounded)]
        let delays = Delays()
        try runAndWait {
            let db = try Database(path: path)
            for (_, pattern) in cancelled {
                var measured: [Double] = []
                for _ in 0..<3 {
                    let task = Task { try await db.read { conn in try search(pattern, on: conn) } }
                    try await Task.sleep(nanoseconds: 20_000_000)
                    let start = DispatchTime.now().uptimeNanoseconds
                    task.cancel()
                    _ = try? await task.value
                    measured.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                }
                delays.append(measured.sorted())
            }
            try await db.close()
        }
        let measured = delays.all
        let lines = zip(cancelled, measured).map { pattern, delays in
            "\(pattern.0) \(format(delays[1] * 1000, 1)) ms (worst \(format((delays.last ?? 0) * 1000, 1)))"
        }
        let late = measured.first?.last ?? .infinity
        print(
            "\(cancelName.padding(toLength: 52, withPad: " ", startingAt: 0)) ended after the cancel in: "
                + lines.joined(separator: ", ")
                + "  \(late <= cancelBudget ? "ok" : "OVER"), bound ≤ \(format(cancelBudget * 1000, 0)) ms (bounded)")
    }

    /// The delays measured on the concurrency runtime's threads, read back on the main one.
    private final class Delays: @unchecked Sendable {
        // Safe: `values` is only read and written while `lock` is held.
        private let lock = NSLock()
        private var values: [[Double]] = []

        func append(_ delays: [Double]) {
            lock.withLock { values.append(delays) }
        }

        var all: [[Double]] { lock.withLock { values } }
    }

    private static func search(_ pattern: SearchPattern, on conn: Connection) throws -> [SearchHit] {
        let excerpt = SQL.snippet(in: FullTextSearch.searchTable, tokens: 12)
        return try conn.fetchAll(
            SearchHit.self,
            SearchDocument.all().matching(pattern, in: FullTextSearch.searchTable).limit(20)
                .select("id, title, body, \(excerpt) AS excerpt"))
    }

    private static func require(_ pattern: SearchPattern?) throws -> SearchPattern {
        guard let pattern else { throw BenchmarkError.mismatch("the paste built no pattern") }
        return pattern
    }

    /// 100 KB of words drawn from the corpus's vocabulary as its documents draw them (common words
    /// often, rare ones seldom), in sentences.
    static func paste() -> String {
        let documents = FullTextSearch.corpus().prefix(2_000)
        var text = ""
        for document in documents where text.utf8.count < 100_000 {
            text += document.title.capitalized + ". " + document.body + ", "
        }
        return text
    }
}
