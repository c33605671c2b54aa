/// What a layer above sets up on a ``Database``'s writer connection when the database opens, before
/// any job runs on it: sync's change capture (``Database/Options/sync``). Kept in
/// ``Database/Options``, so that a database opened with the same options is set up the same way.
protocol DatabaseWriterExtension: Sendable {
    /// Sets up `writer`; an error fails the opening of the database. `fromTemplate` says that the
    /// database file was just made by copying ``Database/Options/templatePath``: what the template
    /// holds of this extension was the template's, and is now that of one more database.
    func install(on writer: Connection, fromTemplate: Bool) throws
}
