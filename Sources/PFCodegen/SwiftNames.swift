/// Swift identifiers made from source names: camelCase, never a keyword unescaped, never two
/// alike in one scope.
public enum SwiftNames {
    /// Swift's reserved words, which must be escaped with backticks where they name a property.
    public static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
        "_", "some", "any", "consume", "copy", "borrowing", "consuming", "package", "macro",
    ]

    /// Names a generated type must not take: they would hide the types generated code uses.
    public static let reservedTypeNames: Set<String> = [
        "Bool", "Int", "Int64", "UInt64", "Double", "String", "Date", "Data", "URL", "UUID", "Array", "Dictionary",
        "Optional", "Set", "Codable", "Decoder", "Encoder", "CodingKey", "CodingKeys", "Error", "Type", "Protocol",
        "Self", "Any", "Foundation", "PFArchive", "PFValue", "ParseValue", "ParsePointer", "ParseFile", "ParseGeoPoint",
        "ParsePolygon", "ParseACL", "ParseModel", "ParseReference", "ParseKeyMap", "ParseClassDispatch",
        "ParseTransformers", "ArchiveCoding", "KeyedArchiver", "KeyedUnarchiver", "ArchiveClassRegistry",
        "Sendable", "Equatable", "Hashable", "Encodable", "Decodable", "Float", "Character", "Void", "Never", "Result",
        "GeneratedModels",
    ]

    /// Property names that cannot follow `self.` as a stored property's (`self.init` is the
    /// initializer, `self.self` the instance): such a key's property gets `Field` appended.
    static let reservedMemberNames: Set<String> = ["init", "self", "Self", "Type", "Protocol", "deinit", "subscript", "super"]

    /// The words of a name: split at underscores, dots, other punctuation and case changes.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for c in name {
            if !(c.isLetter || c.isNumber) || !c.isASCII {
                if !current.isEmpty { words.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let p = previous, c.isUppercase, p.isLowercase || p.isNumber {
                words.append(current)
                current = ""
            }
            current.append(c)
            previous = c
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// A lowerCamelCase property name for a key (`player_name` → `playerName`,
    /// `_rperm` → `rperm`, `2fa` → `field2fa`, `init` → `initField`), escaped when it is a keyword.
    /// - Parameter key: the source key.
    /// - Returns: the name, without backticks.
    public static func propertyName(_ key: String) -> String {
        let parts = words(key)
        guard let first = parts.first else { return "field" }
        var name = first.allSatisfy(\.isUppercase) && parts.count == 1 && first.count > 1
            ? first.lowercased() : lowerFirst(first)
        for part in parts.dropFirst() { name += upperFirst(part) }
        if let c = name.first, c.isNumber { name = "field" + name }
        if reservedMemberNames.contains(name) { name += "Field" }
        return name
    }

    /// An UpperCamelCase type name for a class (`_User` → `User`, `MyApp.Employee` →
    /// `MyAppEmployee`, `game-score` → `GameScore`), never one of ``reservedTypeNames``.
    /// - Parameter className: the source class name.
    /// - Returns: the name.
    public static func typeName(_ className: String) -> String {
        var name = words(className).map(upperFirst).joined()
        if name.isEmpty { name = "Model" }
        if let c = name.first, c.isNumber { name = "Model" + name }
        if reservedTypeNames.contains(name) || keywords.contains(name) { name += "Model" }
        return name
    }

    /// An enum case name for a string value (`Silver Medal` → `silverMedal`).
    public static func caseName(_ value: String) -> String {
        let name = propertyName(value)
        return name
    }

    /// The name as it is written in code: backticked when it is a keyword.
    public static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `name`, or `name2`, `name3`, … : the first not in `taken`, which it joins.
    public static func unique(_ name: String, in taken: inout Set<String>) -> String {
        var candidate = name
        var n = 2
        while taken.contains(candidate) {
            candidate = "\(name)\(n)"
            n += 1
        }
        taken.insert(candidate)
        return candidate
    }

    static func upperFirst(_ s: String) -> String { s.prefix(1).uppercased() + s.dropFirst() }
    static func lowerFirst(_ s: String) -> String {
        // A leading acronym is lowered whole: `URLString` → `urlString`.
        let chars = Array(s)
        var i = 0
        while i < chars.count, chars[i].isUppercase { i += 1 }
        if i <= 1 { return s.prefix(1).lowercased() + s.dropFirst() }
        if i == chars.count { return s.lowercased() }
        return String(chars[..<(i - 1)]).lowercased() + String(chars[(i - 1)...])
    }

    /// A string literal for Swift source.
    public static func literal(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Text for a doc comment: one line, no control characters.
    static func docText(_ s: String) -> String {
        String(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
    }
}
