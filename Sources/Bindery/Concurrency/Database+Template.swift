import Foundation

/// Starting a database from a template file.
extension Database {
    /// Copies the database file at `template` to `path`, where no file exists yet, so that a crash or
    /// an error never leaves a partial file at `path`: the copy goes to a temporary file beside
    /// `path`, is checked to be a SQLite database and flushed to disk, and is then renamed into place.
    ///
    /// A template that is not a SQLite database throws ``SQLiteError`` with code
    /// ``SQLiteError/Code/notADatabase`` and leaves nothing behind; a missing template throws code
    /// ``SQLiteError/Code/cannotOpen``, naming the template and its path. When another process created the
    /// file at `path` in the meantime, that file is kept and the copy discarded.
    static func installTemplate(_ template: String, at path: String) throws {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        guard files.fileExists(atPath: template, isDirectory: &isFolder), !isFolder.boolValue else {
            throw SQLiteError(
                code: .cannotOpen,
                message: "the template database \(template) (Database.Options.templatePath) "
                    + (isFolder.boolValue ? "is a folder, not a file" : "does not exist")
                    + "; nothing was created at \(path)")
        }
        let destination = URL(fileURLWithPath: path)
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).template").path
        defer {
            // The temporary file is gone after the rename; whatever is left here is a failed copy.
            for suffix in ["", "-journal", "-wal", "-shm"] where files.fileExists(atPath: temporary + suffix) {
                try? files.removeItem(atPath: temporary + suffix)
            }
        }
        try files.copyItem(atPath: template, toPath: temporary)
        try checkDatabase(at: temporary, template: template)
        do {
            try files.moveItem(atPath: temporary, toPath: path)
        } catch {
            // A file that another process put at `path` in the meantime is kept.
            guard files.fileExists(atPath: path) else { throw error }
        }
    }

    /// Throws unless the file at `path` is a SQLite database whose schema can be read; then flushes
    /// it to disk.
    private static func checkDatabase(at path: String, template: String) throws {
        // The first 16 bytes of every SQLite database file. (A local array, not a static `Data`: the
        // leak checker cannot see a global `Data`'s storage through its packed representation, and
        // reported it as leaked.)
        let header = Array("SQLite format 3\0".utf8)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        guard let read = try handle.read(upToCount: header.count), read.elementsEqual(header) else {
            throw SQLiteError(code: .notADatabase, message: "the template \(template) is not a SQLite database")
        }
        // Opening reads `sqlite_schema`, which fails on a damaged file.
        let connection = try Connection(path: path, options: Connection.Options(foreignKeys: false))
        connection.close()
        try handle.synchronize()
    }
}
