/// SQLite's `file:` URIs (`SQLITE_OPEN_URI`), built from a path and query parameters, every part
/// percent-encoded so that no character of a path or a value (`?`, `#`, `&`, `=`, `%`, a space…) can
/// end it or be read as another parameter. SQLite decodes each `%HH` back to its byte.
enum SQLiteURI {
    /// The URI of the file at `path` (absolute or relative) with `parameters`, in order.
    ///
    /// ```swift
    /// SQLiteURI.file("/data/a b.sqlite", ["immutable": "1"])   // "file:/data/a%20b.sqlite?immutable=1"
    /// ```
    static func file(_ path: String, _ parameters: KeyValuePairs<String, String>) -> String {
        let query = parameters.map { "\(escaped($0.key))=\(escaped($0.value))" }.joined(separator: "&")
        return "file:\(escaped(path))" + (query.isEmpty ? "" : "?\(query)")
    }

    /// `text` with every byte that is not unreserved in a URI (`A-Z a-z 0-9 - . _ ~`, and `/`, which
    /// separates a path's folders) percent-encoded.
    static func escaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += byte < 16 ? "%0\(hex)" : "%\(hex)"
            }
        }
        return result
    }
}
