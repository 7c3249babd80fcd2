/// The field names a reader of another program's data (an SQLite database, a Realm file) gives
/// one class's columns, unique: a column keeps its name, except that a name a Parse REST object
/// reads specially (``reserved``) gets a suffix (`objectId` → `objectId_sqlite`); a name made
/// here (suffixed, or claimed later with ``claim(_:)``, such as a composite Pointer's
/// `<a>_<b>_ref`) gets `_` appended while any column or earlier field has it. Names are compared
/// without case (`lowercased()`, which folds every script, not only ASCII as SQLite does: a
/// made name avoids more, never less), so no two fields of a row ever land in one place and
/// nothing is lost.
package struct SourceFieldNames: Sendable, Equatable {
    /// The keys a Parse REST object reads as its envelope (`objectId`, timestamps, `ACL`) or
    /// drops (`className`, `__type`): a column so named cannot keep its name.
    package static let reserved: Set<String> = ["objectId", "className", "createdAt", "updatedAt", "ACL", "__type"]

    /// Per column, in order, its field.
    package private(set) var fields: [String] = []
    /// Every name taken (columns and fields), lowercased.
    package private(set) var taken: Set<String>

    /// Names the fields of `columns`, a `reserved` name getting `suffix`. A column whose name
    /// equals an earlier one's as Swift compares strings (canonically: SQLite tells `é` and
    /// `e` + U+0301 apart, a dictionary does not) gets `_` appended too.
    package init(columns: [String], suffix: String, reserved: Set<String> = SourceFieldNames.reserved) {
        taken = Set(columns.map { $0.lowercased() })
        var used: Set<String> = []
        for column in columns {
            let field = reserved.contains(column) ? claim(column + suffix) : used.contains(column) ? claim(column) : column
            used.insert(field)
            fields.append(field)
        }
    }

    /// `base`, or `base` with `_` appended until no column or field has it; then taken.
    package mutating func claim(_ base: String) -> String {
        var name = base
        while taken.contains(name.lowercased()) { name += "_" }
        taken.insert(name.lowercased())
        return name
    }
}
