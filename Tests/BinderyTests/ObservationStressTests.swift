import Foundation
import Testing

@testable import Bindery

/// Observations under many quick writes: values may be skipped, the final state never.
@Suite(.timeLimit(.minutes(2)))
struct ObservationStressTests {
    typealias Support = ObservationTestSupport
    typealias Storage = ObservationTestSupport.Storage

    private static func count(_ conn: Connection) throws -> Int {
        try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM students") ?? -1
    }

    @Test(arguments: Storage.allCases)
    func aThousandQuickWritesNeverLeaveTheStreamBehind(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            let writes = 1000
            var counts = db.observe { conn in try Self.count(conn) }.makeAsyncIterator()
            #expect(try await counts.next() == 0)

            let writer = Task {
                for index in 0..<writes {
                    try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("s\(index)"))")
                    }
                }
            }
            var seen: [Int] = []
            while seen.last != writes {
                guard let count = try await counts.next() else { break }
                seen.append(count)
            }
            try await writer.value
            #expect(seen.last == writes)
            #expect(seen == seen.sorted())
            #expect(seen.count <= writes)
            // The observation keeps up after the burst. A run that began while the last writes
            // committed may give the final count twice, and nothing else.
            try await db.write { conn in try conn.execute("INSERT INTO courses(title) VALUES (\("Math"))") }
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("last"))") }
            var next = try await counts.next()
            if next == writes {
                next = try await counts.next()
            }
            #expect(next == writes + 1)
        }
    }

    @Test(arguments: Storage.allCases)
    func manyWritersAndManyObserversAllReachTheFinalState(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            let writers = 8
            let writesEach = 100
            let total = writers * writesEach
            try await withThrowingTaskGroup(of: Void.self) { group in
                for observer in 0..<6 {
                    let observation = db.observe { conn in try Self.count(conn) }
                    group.addTask {
                        var values =
                            observer.isMultiple(of: 2)
                            ? observation.makeAsyncIterator() : observation.removeDuplicates().makeAsyncIterator()
                        var last = -1
                        while let count = try await values.next() {
                            #expect(count >= last)
                            last = count
                            if count == total {
                                break
                            }
                        }
                        #expect(last == total)
                    }
                }
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<writesEach {
                            if index.isMultiple(of: 10) {
                                // A rolled-back write and a write elsewhere between the real ones.
                                try? await db.write { conn in
                                    try conn.execute("INSERT INTO students(name) VALUES (\("ghost"))")
                                    throw Support.Boom()
                                }
                                try await db.write { conn in
                                    try conn.execute("INSERT INTO courses(title) VALUES (\("c\(writer)"))")
                                }
                            }
                            try await db.write { conn in
                                try conn.execute("INSERT INTO students(name) VALUES (\("w\(writer)-\(index)"))")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await Support.waitForNoObservation(in: db)
        }
    }

    @Test func cancellingManyObservationsWhileWritesRunReleasesThemAll() async throws {
        try await Support.withDatabase(.file) { db in
            let runs = Support.Counter()
            let writer = Task {
                for index in 0..<300 {
                    try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("s\(index)"))")
                    }
                }
            }
            var consumers: [Task<Void, any Error>] = []
            for _ in 0..<20 {
                consumers.append(
                    Task {
                        for try await _ in db.observe({ conn in
                            runs.increment()
                            return try Self.count(conn)
                        }) {}
                    })
            }
            // Let every observation run at least once, then end them all while the writes go on.
            while runs.value < 20 {
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            for consumer in consumers {
                consumer.cancel()
            }
            for consumer in consumers {
                _ = await consumer.result
            }
            try await Support.waitForNoObservation(in: db)
            let runsAfterCancel = runs.value
            try await writer.value
            #expect(runs.value == runsAfterCancel)
        }
    }
}
