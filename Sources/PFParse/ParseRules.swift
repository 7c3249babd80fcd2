import PFCore

/// Parse's naming rules for classes and keys, as parse-server's `SchemaController` applies them.
///
/// - Key and class names match `^[A-Za-z][A-Za-z0-9_]*$`.
/// - `objectId`, `createdAt`, `updatedAt` and `ACL` are default columns of every class and
///   cannot be used as field names; `className`, `length` and `__type` are reserved, and so is
///   any key containing `$` or `.`.
/// - A class name is a developer class (the key pattern, so it cannot start with `_`), one of
///   the ``systemClasses``, or a join class `_Join:<field>:<OwnerClass>`.
public enum ParseRules {
    /// Parse's system classes.
    public static let systemClasses: Set<String> = [
        "_User", "_Installation", "_Role", "_Session", "_Product", "_PushStatus", "_JobStatus", "_JobSchedule",
        "_Audience", "_Idempotency", "_Hooks", "_GlobalConfig", "_GraphQLConfig",
    ]

    /// The columns every class has: `objectId`, `createdAt`, `updatedAt`, `ACL`.
    public static let defaultColumns: [String] = ["objectId", "createdAt", "updatedAt", "ACL"]

    /// Names that can never be field names, besides the default columns.
    public static let reservedKeys: Set<String> = ["className", "length", "__type"]

    // MARK: - Keys

    /// Whether a name matches `^[A-Za-z][A-Za-z0-9_]*$`.
    /// - Parameter name: a key or class name.
    /// - Returns: `true` when it matches.
    public static func matchesNamePattern(_ name: String) -> Bool {
        var name = name
        return name.withUTF8(matchesNamePattern)
    }

    /// ``matchesNamePattern(_:)`` over UTF-8 bytes.
    static func matchesNamePattern(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var first = true
        for byte in bytes {
            let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if first {
                guard isLetter else { return false }
                first = false
            } else {
                guard isLetter || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F else { return false }
            }
        }
        return !first
    }

    /// Why a field name is invalid, or `nil` when it is valid.
    /// - Parameters:
    ///   - key: the field name.
    ///   - className: the class, for the `_Hooks` exception on `className`.
    /// - Returns: a phrase for an error message, or `nil`.
    public static func fieldNameProblem(_ key: String, className: String? = nil) -> String? {
        // Nearly every key matches the pattern (so holds no '$' or '.') and is none of the
        // fixed names (default columns and reserved keys, of 3, 6, 8 and 9 bytes): one pass
        // over the bytes and at most three comparisons answer.
        if matchesNamePattern(key) {
            let fixed: Bool
            switch key.utf8.count {
            case 3: fixed = key == "ACL"
            case 6: fixed = key == "length"
            case 8: fixed = key == "objectId"
            case 9: fixed = key == "createdAt" || key == "updatedAt" || key == "className"
            default: fixed = false
            }
            if !fixed { return nil }
        }
        if defaultColumns.contains(key) {
            return "'\(key)' is a default column of every class and cannot be set as a field"
        }
        if key == "className", className == "_Hooks" { return nil }
        if reservedKeys.contains(key) { return "'\(key)' is a reserved key" }
        if hasReservedCharacter(key) {
            return "'\(key)' contains '$' or '.', which Parse reserves"
        }
        if !matchesNamePattern(key) {
            return "'\(key)' is not a valid key name; expected letters, digits and '_', starting with a letter"
        }
        return nil
    }

    /// Checks a field name.
    /// - Parameters:
    ///   - key: the field name.
    ///   - className: the class it belongs to.
    /// - Throws: ``PFError`` with Parse code 105 (InvalidFieldName).
    public static func checkFieldName(_ key: String, className: String? = nil) throws(PFError) {
        if let problem = fieldNameProblem(key, className: className) {
            throw PFError(
                parse: ParseFailure.badFieldName(problem: problem), path: PFCodingPath.root.appending(key: key),
                context: ParseContext(className: className))
        }
    }

    /// Whether a key holds `$` or `.`.
    static func hasReservedCharacter(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { bytes in bytes.contains { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: ".") } }
    }

    /// Why a key inside a nested object is invalid (`$` or `.` in it), or `nil`.
    /// - Parameter key: a key of a plain object value.
    /// - Returns: a phrase for an error message, or `nil`.
    public static func nestedKeyProblem(_ key: String) -> String? {
        if hasReservedCharacter(key) {
            return "nested key '\(key)' contains '$' or '.', which Parse reserves"
        }
        return nil
    }

    // MARK: - Classes

    /// Whether a name is a join class, `_Join:<field>:<OwnerClass>`.
    /// - Parameter name: a class name.
    /// - Returns: `true` for a well-formed join class name.
    public static func isJoinClassName(_ name: String) -> Bool {
        joinClassParts(name) != nil
    }

    /// The relation field and owner class of a join class name.
    /// - Parameter name: a class name such as `_Join:users:_Role`.
    /// - Returns: `(field, ownerClass)`, or `nil` when it is not a join class name.
    public static func joinClassParts(_ name: String) -> (field: String, ownerClass: String)? {
        guard name.hasPrefix("_Join:") else { return nil }
        let parts = name.dropFirst(6).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        func ok(_ s: Substring) -> Bool {
            s.utf8.allSatisfy { b in
                (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F
            }
        }
        guard ok(parts[0]), ok(parts[1]) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// Why a class name is invalid, or `nil` when it is valid.
    /// - Parameter name: the class name.
    /// - Returns: a phrase for an error message, or `nil`.
    public static func classNameProblem(_ name: String) -> String? {
        if systemClasses.contains(name) || isJoinClassName(name) { return nil }
        if name.hasPrefix("_") {
            return "'\(name)' starts with '_', which is reserved for system classes (_User, _Role, _Installation, _Session, …) and _Join:<field>:<Class>"
        }
        if !matchesNamePattern(name) {
            return "'\(name)' is not a valid class name; expected letters, digits and '_', starting with a letter"
        }
        return nil
    }

    /// Checks a class name.
    /// - Parameter name: the class name.
    /// - Throws: ``PFError`` with Parse code 103 (InvalidClassName).
    public static func checkClassName(_ name: String) throws(PFError) {
        if let problem = classNameProblem(name) {
            throw PFError(parse: ParseFailure.badClassName(problem: problem))
        }
    }
}
