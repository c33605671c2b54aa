import Foundation

/// A message of the sync protocol: JSON with a `version` field, `Data` fields as base64 (see
/// <doc:SyncProtocol>). Reading one turns every failure into a ``SyncError``.
protocol SyncMessage: Codable, Sendable, Equatable {
    /// The protocol version the message was written for.
    var version: Int { get }
    /// What the message is, for error messages: "push request", "pull response" …
    static var messageName: String { get }
}

/// The protocol version this Bindery writes and reads.
let syncProtocolVersion = 1

extension SyncMessage {
    /// Reads a message from its JSON. JSON that is not a message of this kind throws
    /// ``SyncError/malformedMessage(reason:)`` naming the field; a message of another protocol
    /// version throws ``SyncError/unsupportedProtocolVersion(_:)``, whatever its other fields hold.
    static func decode(_ data: Data) throws(SyncError) -> Self {
        let decoder = JSONDecoder()
        // One parse when the message reads (a pull response may hold megabytes of changesets); the
        // version alone is read only to say why one does not.
        let message: Self
        do {
            message = try decoder.decode(Self.self, from: data)
        } catch {
            let version: Int
            do {
                version = try decoder.decode(SyncMessageVersion.self, from: data).version
            } catch let versionError {
                throw SyncError.malformedMessage(reason: "\(messageName): \(SyncMessageFailure.describe(versionError))")
            }
            guard version == syncProtocolVersion else {
                throw SyncError.unsupportedProtocolVersion(version)
            }
            throw SyncError.malformedMessage(reason: "\(messageName): \(SyncMessageFailure.describe(error))")
        }
        guard message.version == syncProtocolVersion else {
            throw SyncError.unsupportedProtocolVersion(message.version)
        }
        return message
    }

    /// The message as JSON, with its keys sorted.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Throws ``SyncError/unsupportedProtocolVersion(_:)`` unless the message is of this protocol
    /// version: for messages built in Swift, which ``decode(_:)`` did not check.
    func checkVersion() throws(SyncError) {
        guard version == syncProtocolVersion else {
            throw SyncError.unsupportedProtocolVersion(version)
        }
    }
}

/// The one field every message has, read first so that a message of another version is refused as
/// such, not as malformed.
private struct SyncMessageVersion: Decodable {
    let version: Int
}

/// The words for a failure to read a message.
private enum SyncMessageFailure {
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else {
            return String(describing: error)
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field '\(path(context.codingPath + [key]))'"
        case .typeMismatch(let type, let context):
            return "field '\(path(context.codingPath))' is not \(kind(type)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "field '\(path(context.codingPath))' is null, \(kind(type)) is needed"
        case .dataCorrupted(let context):
            // Foundation also reports a number that does not fit its field (1.5 for an integer)
            // without a coding path, as JSON that is not valid.
            if context.codingPath.isEmpty {
                return "cannot be read: \(context.debugDescription)"
            }
            return "field '\(path(context.codingPath))': \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text.isEmpty ? "(the message)" : text
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Data.Type: return "base64 text"
        case is Int.Type, is Int64.Type: return "an integer"
        default: return "a \(type)"
        }
    }
}

/// One changeset a copy pushes: its own sequence number, the schema version it was made at, and
/// the changeset's bytes (base64 in JSON).
struct SyncOutgoingChangeset: Codable, Sendable, Equatable {
    /// The copy's own sequence number of the changeset; a push lists them in ascending order.
    var sequence: Int64
    /// The schema version of the copy that made it.
    var schemaVersion: Int
    /// The SQLite changeset, as `sqlite3session_changeset` wrote it.
    var changeset: Data
}

/// `POST push`: a copy's changesets, in its own order.
struct SyncPushRequest: SyncMessage {
    static var messageName: String { "push request" }
    /// The protocol version.
    var version: Int = syncProtocolVersion
    /// The copy's id, unique among the copies of one hub.
    var copy: String
    /// The changesets, by ascending ``SyncOutgoingChangeset/sequence``.
    var changesets: [SyncOutgoingChangeset]
}

/// The answer to a push: the hub sequence of each changeset pushed, in the order of the request,
/// whether this push stored it or an earlier one did, and the hub's head after the push.
struct SyncPushResponse: SyncMessage {
    static var messageName: String { "push response" }
    /// The protocol version.
    var version: Int = syncProtocolVersion
    /// The hub sequence of each changeset of the request, in the same order.
    var sequences: [Int64]
    /// The highest hub sequence stored, 0 when the hub is empty.
    var head: Int64
}

/// `POST pull`: the entries after a hub sequence, at most `limit` of them.
struct SyncPullRequest: SyncMessage {
    static var messageName: String { "pull request" }
    /// The protocol version.
    var version: Int = syncProtocolVersion
    /// The hub sequence the copy has applied up to: entries above it are returned.
    var after: Int64
    /// The most entries to return; the hub clamps it to 1…10,000, and also stops at about 32 MiB.
    var limit: Int
}

/// The answer to a pull: entries in hub order, and the hub's head, from one snapshot of the hub.
struct SyncPullResponse: SyncMessage {
    static var messageName: String { "pull response" }
    /// The protocol version.
    var version: Int = syncProtocolVersion
    /// The entries after the request's `after`, by ascending hub sequence.
    var changesets: [SyncLogEntry]
    /// The highest hub sequence stored when the pull read the log, 0 when the hub is empty.
    var head: Int64
}

/// One entry of the hub's log: a changeset, where it came from, and its place in the one order.
struct SyncLogEntry: Codable, Sendable, Equatable {
    /// The hub sequence: the entry's place in the order every copy applies.
    var sequence: Int64
    /// The id of the copy that pushed it.
    var copy: String
    /// That copy's own sequence number of the changeset.
    var copySequence: Int64
    /// The schema version of the copy that made it.
    var schemaVersion: Int
    /// The SQLite changeset.
    var changeset: Data
}
