/// Prepared statements of one connection, kept by SQL text and evicted least recently used first.
///
/// Texts are told apart by their bytes, as SQLite reads them: `SELECT 'café'` written composed and
/// decomposed are two statements (two string literals, or two tables `"café"`), which Swift's `String`
/// equality holds equal.
///
/// A statement is lent out by ``statement(for:)`` and comes back with ``release(_:)``, which resets it
/// and clears its bindings. A statement that is still lent out (an open cursor, say) is never lent a
/// second time: a fresh, uncached statement is prepared instead, so that nested use is safe. The cache
/// never holds more than its capacity: when every statement it holds is lent out, a new one is
/// prepared uncached and finalized when it comes back.
final class StatementCache {
    /// The most statements kept at once.
    let capacity: Int
    /// How many times this cache called `sqlite3_prepare`, cached or not; tests read it to prove that
    /// a statement run many times is prepared once.
    private(set) var prepareCount = 0
    private var statements: [ExactText: Statement] = [:]
    /// The statement lent out last: the same SQL asked for again (a record type's INSERT run row after
    /// row, say) is found by comparing strings, which share their storage then, without hashing them
    /// (and by their bytes: ``ExactText/same(_:knownIsASCII:_:)``).
    private var last: Statement? {
        didSet { lastLent = last.map(Lent.init) }
    }
    /// ``last``, to lend without counting a reference.
    private var lastLent: Lent<Statement>?
    /// Statements lent out that the cache does not hold (prepared uncached, or dropped by
    /// ``removeAll()`` while lent): kept here until they come back, so that every statement lent by
    /// ``statement(for:)`` lives until its ``release(_:)`` whatever happens meanwhile.
    private var lentUnheld: [Statement] = []
    private var clock: UInt64 = 0
    private let database: OpaquePointer
    /// The connection's status, shared with every statement.
    private let status: ConnectionStatus

    init(database: OpaquePointer, status: ConnectionStatus, capacity: Int = 128) {
        self.database = database
        self.status = status
        self.capacity = max(capacity, 1)
    }

    /// How many statements the cache holds now.
    var count: Int { statements.count }

    /// A statement for `sql`, prepared once and reused; marked in use until ``release(_:)``, and lent
    /// without counting a reference (``Lent``): the cache keeps it alive until then, even when it drops
    /// it meanwhile (``removeAll()``).
    ///
    /// The statement lent out last is checked inline, in the caller; any other is found out of line.
    @inline(__always)
    func statement(for sql: String) throws -> Lent<Statement> {
        clock &+= 1
        if let lastLent,
            lastLent.with({ last in
                guard !last.isInUse, last.isHeldByCache, ExactText.same(last.sql, knownIsASCII: last.sqlIsASCII, sql)
                else { return false }
                last.isInUse = true
                last.lastUse = clock
                return true
            })
        {
            return lastLent
        }
        return try otherStatement(for: sql)
    }

    /// ``statement(for:)`` when `sql` is not the SQL of the statement lent out last, or that one is in use.
    @inline(never)
    private func otherStatement(for sql: String) throws -> Lent<Statement> {
        if let cached = statements[ExactText(sql)] {
            last = cached
            if !cached.isInUse {
                cached.isInUse = true
                cached.lastUse = clock
                return Lent(cached)
            }
            prepareCount += 1
            let fresh = try Statement(database: database, status: status, sql: sql, persistent: false)
            fresh.isInUse = true
            return lendUnheld(fresh)
        }
        // With every cached statement lent out, none can make room: the statement is not cached.
        guard statements.count < capacity || evictOne() else {
            return lendUnheld(try uncachedStatement(for: sql))
        }
        prepareCount += 1
        let statement = try Statement(database: database, status: status, sql: sql, persistent: true)
        statement.isInUse = true
        statement.lastUse = clock
        statement.isHeldByCache = true
        statements[ExactText(sql)] = statement
        last = statement
        return Lent(statement)
    }

    /// How many statements lent out the cache holds only until they come back (see ``lentUnheld``).
    var lentUnheldCount: Int { lentUnheld.count }

    /// `statement`, which the cache does not hold, lent: kept in ``lentUnheld`` until it comes back.
    private func lendUnheld(_ statement: Statement) -> Lent<Statement> {
        lentUnheld.append(statement)
        return Lent(statement)
    }

    /// A statement that is not cached, for the caller to hold.
    private func uncachedStatement(for sql: String) throws -> Statement {
        prepareCount += 1
        let statement = try Statement(database: database, status: status, sql: sql, persistent: false)
        statement.isInUse = true
        return statement
    }

    /// Gives a statement back: it is reset and its bindings cleared; an uncached one is finalized.
    @inline(__always)
    func release(_ statement: Statement) {
        guard !statement.isFinalized else {
            forgetUnheld(statement)
            return
        }
        statement.resetAndClear()
        statement.isInUse = false
        if !statement.isCached || !statement.isHeldByCache {
            statement.finalize()
            forgetUnheld(statement)
        }
    }

    /// Drops the cache's hold on `statement`, lent while the cache did not hold it, now that it is back.
    private func forgetUnheld(_ statement: Statement) {
        if let index = lentUnheld.lastIndex(where: { $0 === statement }) {
            lentUnheld.remove(at: index)
        }
    }

    /// Finalizes every statement that is not lent out and forgets them all; statements in use are
    /// finalized when they come back, and held until then.
    func removeAll() {
        for statement in statements.values {
            statement.isHeldByCache = false
            if statement.isInUse {
                lentUnheld.append(statement)
            } else {
                statement.finalize()
            }
        }
        statements.removeAll()
        last = nil
    }

    /// Finalizes the least recently used statement that is not lent out; false when all are lent.
    private func evictOne() -> Bool {
        var oldest: Statement?
        for statement in statements.values where !statement.isInUse {
            if oldest.map({ statement.lastUse < $0.lastUse }) ?? true {
                oldest = statement
            }
        }
        if let oldest {
            statements[ExactText(oldest.sql)] = nil
            oldest.isHeldByCache = false
            oldest.finalize()
            if last === oldest {
                last = nil
            }
        }
        return oldest != nil
    }
}
