/// The results of a query, fresh after every committed write that changed a table it read: an
/// `AsyncSequence` made by ``Database/observe(_:)->DatabaseObservation<T>``.
///
/// ```swift
/// for try await count in db.observe({ conn in try conn.count(Student.self) }) {
///     print("students:", count)    // the current count at once, then after each change
/// }
/// ```
///
/// Each iteration starts an observation of its own, and ends it when the loop ends: by `break`, by
/// the end of the task that iterates, or by an error the query throws, which the loop rethrows.
///
/// When writes come faster than the consumer takes values, intermediate values are skipped, never
/// the latest: after the last write, the next value is the result as of that write (or later).
public struct DatabaseObservation<Element: Sendable>: AsyncSequence, Sendable {
    /// The error type: whatever the query throws, or ``DatabaseError/closed`` when the database closed.
    public typealias Failure = any Error

    let database: Database
    let query: @Sendable (Connection) throws -> Element
    let isDuplicate: (@Sendable (Element, Element) -> Bool)?

    /// Starts the observation: the query runs at once on a reader, and again after each write that
    /// changes a table it read.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            base: ObservationDriver.start(database: database, query: query).makeAsyncIterator(),
            isDuplicate: isDuplicate)
    }

    /// Skips every value that `isDuplicate` finds equal to the value before it.
    ///
    /// ```swift
    /// let names = db.observe { conn in try conn.fetchAll(Student.self) }
    ///     .removeDuplicates { $0.map(\.name) == $1.map(\.name) }
    /// ```
    public func removeDuplicates(
        by isDuplicate: @escaping @Sendable (Element, Element) -> Bool
    ) -> DatabaseObservation<Element> {
        let previous = self.isDuplicate
        return DatabaseObservation(database: database, query: query) { earlier, later in
            (previous?(earlier, later) ?? false) || isDuplicate(earlier, later)
        }
    }

    /// Gives the observation's values, one at a time; see ``DatabaseObservation``.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncThrowingStream<Element, any Error>.Iterator
        private let isDuplicate: (@Sendable (Element, Element) -> Bool)?
        private var last: Element?
        private var isFinished = false

        init(
            base: AsyncThrowingStream<Element, any Error>.Iterator,
            isDuplicate: (@Sendable (Element, Element) -> Bool)?
        ) {
            self.base = base
            self.isDuplicate = isDuplicate
        }

        /// The next result: the first one at once, the others after writes that changed what the
        /// query read. Nil when the iterating task was cancelled; throws what the query threw.
        public mutating func next() async throws -> Element? {
            guard !isFinished else { return nil }
            // After an error, iteration ends: the next call returns nil rather than the error again.
            isFinished = true
            while let value = try await base.next() {
                // Values are compared here, on the consuming side, so that a value skipped because
                // the consumer was slow never hides a change.
                if let isDuplicate {
                    if let last, isDuplicate(last, value) {
                        continue
                    }
                    last = value
                }
                isFinished = false
                return value
            }
            return nil
        }
    }
}

extension DatabaseObservation where Element: Equatable {
    /// Skips every value equal to the value before it, so that a write that changed a table the query
    /// read, but not its result, gives nothing.
    ///
    /// ```swift
    /// for try await count in db.observe({ try $0.count(Student.self) }).removeDuplicates() {
    ///     print(count)    // only when the count changes
    /// }
    /// ```
    public func removeDuplicates() -> DatabaseObservation<Element> {
        removeDuplicates(by: ==)
    }
}

/// Runs an observation's query, on a task of its own, each time the registry says that it must.
enum ObservationDriver {
    /// Registers an observation of `query` on `database` and returns the stream of its results. The
    /// stream keeps only its newest value while the consumer is busy. When the consumer goes (the
    /// iterator is released, or its task cancelled), the query run in progress is cancelled and the
    /// observation unregistered.
    static func start<Element: Sendable>(
        database: Database, query: @escaping @Sendable (Connection) throws -> Element
    ) -> AsyncThrowingStream<Element, any Error> {
        let registry = database.observationRegistry
        let (values, output) = AsyncThrowingStream.makeStream(
            of: Element.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let (triggers, trigger) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = registry.register(trigger: trigger)
        let driver = Task {
            // Unregistering when the driver ends (rather than when the consumer goes) means that an
            // observation counted by the registry may still run its query, and one not counted never
            // will again.
            defer { registry.unregister(id) }
            for await _ in triggers {
                guard !Task.isCancelled else { break }
                do {
                    let (value, region) = try await database.read { conn in
                        // Inside the read transaction but before its first read: the snapshot is taken
                        // after this, so it holds every change reported before. Changes reported from
                        // now on may or may not be in it, and make the query run again.
                        registry.runWillStart(id)
                        return try conn.recordingReads(query)
                    }
                    registry.runDidEnd(id, region: region)
                    output.yield(value)
                } catch {
                    output.finish(throwing: error)
                    return
                }
            }
            output.finish()
        }
        // Cancelling the driver ends its wait for a trigger, or interrupts its query run; reads check
        // for cancellation before they start, so the query does not run again.
        output.onTermination = { _ in driver.cancel() }
        return values
    }
}
