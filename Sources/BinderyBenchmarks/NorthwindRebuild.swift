import Bindery
import Foundation

/// Rebuilding Northwind's `Order Details` to change `UnitPrice` from NUMERIC to REAL: with
/// `Connection.alter(table:)` and with SQLite's generalized procedure written by hand, on a copy of
/// the database, each in a transaction that is rolled back so that every run starts alike.
enum NorthwindRebuild {
    /// The hand-written rebuild: the statements of https://www.sqlite.org/lang_altertable.html#otheralter.
    static let byHand = """
        PRAGMA legacy_alter_table = ON;
        CREATE TABLE "new_Order Details" (
            [OrderID] INTEGER NOT NULL,
            [ProductID] INTEGER NOT NULL,
            [UnitPrice] REAL NOT NULL DEFAULT 0,
            [Quantity] INTEGER NOT NULL DEFAULT 1,
            [Discount] REAL NOT NULL DEFAULT 0,
            PRIMARY KEY ("OrderID", "ProductID"),
            CHECK ([Discount] >= (0) AND [Discount] <= (1)),
            CHECK ([Quantity] > (0)),
            CHECK ([UnitPrice] >= (0)),
            FOREIGN KEY ([OrderID]) REFERENCES [Orders] ([OrderID]) ON DELETE NO ACTION ON UPDATE NO ACTION,
            FOREIGN KEY ([ProductID]) REFERENCES [Products] ([ProductID]) ON DELETE NO ACTION ON UPDATE NO ACTION
        );
        INSERT INTO "new_Order Details" (OrderID, ProductID, UnitPrice, Quantity, Discount)
            SELECT OrderID, ProductID, UnitPrice, Quantity, Discount FROM "Order Details";
        DROP TABLE "Order Details";
        ALTER TABLE "new_Order Details" RENAME TO "Order Details";
        PRAGMA legacy_alter_table = OFF;
        PRAGMA foreign_key_check("Order Details");
        """

    static func run(_ benchmark: Benchmark, path: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-rebuild-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("northwind.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        var options = Connection.Options()
        options.foreignKeys = false  // as in a Migrator migration
        let conn = try Connection(path: copy, options: options)
        defer { conn.close() }
        let rows = try conn.rows("SELECT count(*) FROM \"Order Details\"", arguments: [])[0][0] as Int
        struct Rollback: Error {}
        func rolledBack(_ body: (Connection) throws -> Void) throws {
            do {
                try conn.transaction(.immediate) { conn in
                    try body(conn)
                    throw Rollback()
                }
            } catch is Rollback {}
        }
        var typesByHand = ""
        var typesByBindery = ""
        let types = "SELECT group_concat(type) FROM pragma_table_info('Order Details')"
        try benchmark.compare(
            "rebuild Northwind Order Details (\(rows) rows)", goal: 1.2, baselineName: "SQL by hand",
            baseline: {
                try rolledBack { conn in
                    try conn.execute(script: byHand)
                    typesByHand = try conn.rows(types, arguments: [])[0][0]
                }
            },
            bindery: {
                try rolledBack { conn in
                    try conn.alter(table: "Order Details") { t in
                        t.change(column: "UnitPrice", to: .real).notNull().defaults(to: 0)
                    }
                    typesByBindery = try conn.rows(types, arguments: [])[0][0]
                }
            })
        guard benchmark.only != nil || (typesByHand == typesByBindery && typesByHand.contains("REAL,INTEGER,REAL"))
        else {
            throw BenchmarkError.mismatch("Order Details: by hand \(typesByHand), by Bindery \(typesByBindery)")
        }
    }
}
