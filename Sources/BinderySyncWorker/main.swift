// bindery-sync-worker: the copy process of `scripts/sync-test`.
//
//   bindery-sync-worker init FOLDER COPIES              creates the hub file and the copies' databases
//   bindery-sync-worker run FOLDER COPY RUN SEED SECONDS
//                                                       runs the random workload on copy COPY (launch
//                                                       number RUN) for SECONDS, syncing through the hub
//                                                       file, until done or killed
//   bindery-sync-worker settle FOLDER COPY RUN sync|pull
//                                                       one final sync() or pull() of the copy
//   bindery-sync-worker check FOLDER COPIES             the final check; prints the figures
//
// The folder holds hub.sqlite, copy-N.sqlite, and per copy an oracle (oracle-N.jsonl), a phase file
// (phase-N: open, recover, write, push, pull, idle, done) and an event log (events-N). See
// scripts/sync-test.

import Bindery
import Foundation

/// Writes a line to standard error.
func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Runs the command line; exits 1 with a message on any failure.
func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
        switch (arguments.first ?? "", arguments.count) {
        case ("init", 3):
            let files = WorkerFiles(folder: arguments[1])
            guard let copies = Int(arguments[2]), copies > 0 else {
                throw WorkerFailure("COPIES must be a positive integer, not \(arguments[2])")
            }
            let hub = try await SyncHub(path: files.hub)
            try await hub.close()
            for copy in 0..<copies {
                let process = try await CopyProcess.open(files: files, copy: copy, run: 0)
                try await process.close()
            }
        case ("run", 6):
            guard let copy = Int(arguments[2]), let run = Int(arguments[3]), let seed = UInt64(arguments[4]),
                let seconds = Double(arguments[5])
            else {
                throw WorkerFailure("COPY and RUN must be integers, SEED an unsigned integer, SECONDS a number")
            }
            let process = try await CopyProcess.open(files: WorkerFiles(folder: arguments[1]), copy: copy, run: run)
            try await process.runWorkload(seed: seed, seconds: seconds)
            try await process.close()
        case ("settle", 5):
            guard let copy = Int(arguments[2]), let run = Int(arguments[3]), ["sync", "pull"].contains(arguments[4])
            else {
                throw WorkerFailure("COPY and RUN must be integers, the step sync or pull")
            }
            let process = try await CopyProcess.open(files: WorkerFiles(folder: arguments[1]), copy: copy, run: run)
            if arguments[4] == "sync" {
                try await process.sync()
            } else {
                try await process.pull()
            }
            try await process.close()
        case ("check", 3):
            guard let copies = Int(arguments[2]), copies > 0 else {
                throw WorkerFailure("COPIES must be a positive integer, not \(arguments[2])")
            }
            let failures = try await SyncChecker(files: WorkerFiles(folder: arguments[1]), copies: copies).run()
            if !failures.isEmpty {
                for failure in failures.prefix(50) {
                    complain("FAIL: " + failure)
                }
                if failures.count > 50 {
                    complain("… and \(failures.count - 50) more failures")
                }
                exit(1)
            }
        default:
            throw WorkerFailure(
                "usage: bindery-sync-worker init FOLDER COPIES | run FOLDER COPY RUN SEED SECONDS | "
                    + "settle FOLDER COPY RUN sync|pull | check FOLDER COPIES")
        }
    } catch {
        complain("bindery-sync-worker: \(error)")
        exit(1)
    }
}

await main()
