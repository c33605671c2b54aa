import CSQLite
import Foundation

/// Binding values to a statement's parameters.
extension Statement {
    /// Binds `value` to the 1-based parameter `index`.
    func bind(_ value: SQLiteValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let int): try bind(int, at: index)
        case .real(let double): try bind(double, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let data): try bind(data, at: index)
        }
    }

    /// Binds `value` with the integer and real cases inlined: record inserts and updates bind through it.
    @inline(__always)
    func bindFast(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
        case .real(let double): code = sqlite3_bind_double(handle, index, double)
        default: return try bind(value, at: index)
        }
        if code != SQLITE_OK {
            try check(code, index: index)
        }
    }

    /// Binds NULL.
    @inline(__always)
    func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index), index: index)
    }

    /// Binds an INTEGER.
    @inline(__always)
    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value), index: index)
    }

    /// Binds a REAL.
    @inline(__always)
    func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value), index: index)
    }

    /// Binds TEXT; the bytes are copied, NUL bytes included.
    @inline(__always)
    func bind(_ value: String, at index: Int32) throws {
        holdsCopies = true
        try check(SQLiteMemory.bindText(value, to: handle, at: index), index: index)
    }

    /// Binds a BLOB; an empty `Data` is an empty blob, not NULL.
    @inline(__always)
    func bind(_ value: Data, at index: Int32) throws {
        holdsCopies = true
        try check(SQLiteMemory.bindBlob(value, to: handle, at: index), index: index)
    }

    @inline(__always)
    func check(_ code: Int32, index: Int32) throws {
        guard code != SQLITE_OK else { return }
        throw SQLiteError(database: database, resultCode: code, sql: sql).withParameter(index)
    }

    /// The name of the 1-based parameter `index` (with its `:`, `@` or `$` prefix), or nil for `?`.
    func parameterName(at index: Int32) -> String? {
        guard let name = sqlite3_bind_parameter_name(handle, index) else { return nil }
        return String(cString: name)
    }

    /// Binds positional arguments after checking that they match the parameters one for one.
    func bind(arguments: [SQLiteValue]) throws {
        guard status.isClear else {
            throw status.error(sql: sql)
        }
        guard arguments.count == Int(parameterCount) else {
            throw SQLiteError(
                code: .range,
                message:
                    "the statement has \(parameterCount) parameter(s) but \(arguments.count) argument(s) were given",
                sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds named arguments; each key may be written with or without its prefix (`name` or `:name`).
    /// Every parameter must be named and given, and every key must name a parameter.
    ///
    /// Keys are matched to parameter names by their UTF-8 bytes, as SQLite tells parameters apart:
    /// `:café` written composed and decomposed are two parameters, and a key spelt one way does not
    /// bind the other (Swift's `String` equality would hold them equal).
    func bind(namedArguments arguments: [String: SQLiteValue]) throws {
        guard status.isClear else {
            throw status.error(sql: sql)
        }
        var keys: [ExactText: String] = [:]
        for key in arguments.keys {
            keys[ExactText(key)] = key
        }
        var used = Set<ExactText>()
        for index in 1...max(parameterCount, 1) where index <= parameterCount {
            guard let name = parameterName(at: index) else {
                throw SQLiteError(
                    code: .range, message: "parameter \(index) is positional; named arguments need named parameters",
                    sql: sql)
            }
            let spelt = ExactText(name)
            let bare = ExactText(String(name.dropFirst()))
            let key: ExactText
            if keys[spelt] != nil {
                key = spelt
            } else if keys[bare] != nil {
                key = bare
            } else {
                throw SQLiteError(code: .range, message: "no argument given for parameter \(name)", sql: sql)
            }
            used.insert(key)
            // Checked above: the key is present.
            try bind(keys[key].flatMap { arguments[$0] } ?? .null, at: index)
        }
        let unknown = keys.filter { !used.contains($0.key) }.map(\.value)
        if !unknown.isEmpty {
            throw SQLiteError(
                code: .range, message: "no parameter named \(unknown.sorted().joined(separator: ", "))", sql: sql)
        }
    }
}

extension SQLiteError {
    /// The same error with the parameter index in its message.
    fileprivate func withParameter(_ index: Int32) -> SQLiteError {
        SQLiteError(
            code: code, extendedCode: extendedCode, message: "\(message) (binding parameter \(index))", sql: sql,
            arguments: arguments)
    }
}
