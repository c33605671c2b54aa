extension Database {
    /// Observes the result of `query`: an `AsyncSequence` whose first value is the current result,
    /// and which gives a fresh one after every committed write that changed a table the query read.
    ///
    /// ```swift
    /// let task = Task {
    ///     for try await names in db.observe({ conn in
    ///         try conn.fetchAll(String.self, sql: "SELECT name FROM students ORDER BY name")
    ///     }) {
    ///         print(names)
    ///     }
    /// }
    /// try await db.insert(Student(id: nil, name: "Ana", year: 2024))   // prints the new names
    /// task.cancel()                                                      // ends the observation
    /// ```
    ///
    /// - The query runs like a ``read(_:)``: on a reader connection in WAL mode, in one transaction.
    ///   SQLite itself reports the tables it reads (views and joins included) each time it runs, so a
    ///   query that reads other tables next time is observed on those.
    /// - Writes that change only other tables, and writes that roll back, give nothing. A write that
    ///   changed a table the query read may give the same result again; ``DatabaseObservation/removeDuplicates()``
    ///   skips those.
    /// - Values are not queued: when writes come faster than they are consumed, intermediate results
    ///   are skipped, but the latest state always comes.
    /// - Iteration ends when the loop ends (`break`, `return`, the task cancelled), releasing everything;
    ///   an error thrown by the query ends it with that error.
    /// - Only writes through this `Database` are seen. Changes made by another `Database` on the same
    ///   file, another process, or a `Connection` opened directly are not: call
    ///   ``notifyExternalChange()`` after them. On a read replica, the transactions that arrive from
    ///   the replica are seen (see ``replica(of:extensionPath:pollInterval:options:)``).
    /// - After ``close()``, a run ends the observation with ``DatabaseError/closed``; an observation
    ///   waiting for a change waits until its task ends.
    public nonisolated func observe<T: Sendable>(
        _ query: @escaping @Sendable (Connection) throws -> T
    ) -> DatabaseObservation<T> {
        DatabaseObservation(database: self, query: query, isDuplicate: nil)
    }

    /// Runs the query of every observation of this database again, for changes it cannot see: made
    /// by another `Database` on the same file, by another process, or by a `Connection` opened
    /// directly.
    ///
    /// ```swift
    /// try otherProcessImport(path: db.path)
    /// db.notifyExternalChange()
    /// ```
    public nonisolated func notifyExternalChange() {
        observationRegistry.notifyAll()
    }
}

extension ObservationRegistry {
    /// Tells the observations which tables the transactions committed on `writer` changed; called on
    /// the writer's executor after every job that ran on it.
    func writerDidRun(_ writer: Connection) {
        didCommit(writer.takeCommittedChanges())
    }
}
