/// The files of one test folder: the hub, each copy's database, oracle, phase and event files.
struct WorkerFiles: Sendable {
    let folder: String

    var hub: String { folder + "/hub.sqlite" }
    var replay: String { folder + "/replay.sqlite" }

    func database(_ copy: Int) -> String { folder + "/copy-\(copy).sqlite" }
    /// The oracle: intents, acknowledgements and recoveries of the copy's write transactions.
    func oracle(_ copy: Int) -> String { folder + "/oracle-\(copy).jsonl" }
    /// The copy's current step, which the driver reads to aim its kills.
    func phase(_ copy: Int) -> String { folder + "/phase-\(copy)" }
    /// The copy's pushes, pulls and partitions, one a line.
    func events(_ copy: Int) -> String { folder + "/events-\(copy)" }
}
