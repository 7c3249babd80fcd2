import OrderedCollections
import PFParse

/// Fields whose type the values decide, not a declared column: an SQLite table's columns
/// (SQLite types values) and a Core Data store's decoded payloads (a Transformable attribute
/// holds whatever was archived into it). A field takes its first non-null value's type; a
/// value of another type goes to the field `<field>_as_<type>` (`payload_as_bytes`), so every
/// destination holds every row under one type per field and nothing is lost.
enum ValueTypedFields {
    /// The fields with each value of another type than its field's learned one moved to
    /// `<field>_as_<type>` at the end (`_` appended while a field of the object, a name in
    /// `taken` (lowercased) or a field learned with another type has that name); `nil` when
    /// nothing moves.
    /// - Parameters:
    ///   - fields: an object's fields.
    ///   - known: the fields learned so far, with their types.
    ///   - taken: lowercased names no moved field may take (the source's own fields).
    ///   - among: the fields that may move (`nil`: every field).
    static func movingConflicts(
        _ fields: OrderedDictionary<String, ParseValue>, known: OrderedDictionary<String, ParseSchema.Field>,
        taken: Set<String>, among: Set<String>? = nil
    ) -> OrderedDictionary<String, ParseValue>? {
        var out = fields
        var moved = false
        for (key, value) in fields where among?.contains(key) ?? true {
            guard let type = value.fieldType, let was = known[key]?.type, was != type else { continue }
            var name = key + "_as_" + type.rawValue.lowercased()
            while out[name] != nil || taken.contains(name.lowercased()) || (known[name].map { $0.type != type } ?? false) { name += "_" }
            out.removeValue(forKey: key)
            out[name] = value
            moved = true
        }
        return moved ? out : nil
    }
}
