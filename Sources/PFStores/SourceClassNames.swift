import Foundation
import PFParse

/// The class names a source's tables are read under: a table's own name when Parse allows it
/// as a class name (and it does not start with `_`, which Parse keeps for its own classes),
/// otherwise a valid one — marks replaced by `_`, leading `_` dropped, `T` before a leading
/// digit, then the source's suffix (`_sqlite`, `_realm`) appended, with `_2`, `_3`… if that is
/// taken. The same tables always give the same names, so a source and a store imported from
/// it read alike, and every destination can hold them.
enum SourceClassNames {
    /// Table name → class name, for every table.
    /// - Parameters:
    ///   - tables: the table names, in the source's order.
    ///   - suffix: what marks a made name (`_sqlite`).
    static func make(for tables: [String], suffix: String) -> [String: String] {
        var taken = Set(tables.filter { !$0.hasPrefix("_") && ParseRules.classNameProblem($0) == nil })
        var names: [String: String] = [:]
        for table in tables {
            if taken.contains(table) { names[table] = table; continue }
            var base = String(table.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_") ? Character(scalar) : "_"
            })
            while base.hasPrefix("_") { base.removeFirst() }
            if base.first.map({ !$0.isLetter }) ?? true { base = "T" + base }
            base += suffix
            var name = base
            var n = 2
            while taken.contains(name) || ParseRules.classNameProblem(name) != nil {
                name = "\(base)_\(n)"
                n += 1
            }
            taken.insert(name)
            names[table] = name
        }
        return names
    }
}
