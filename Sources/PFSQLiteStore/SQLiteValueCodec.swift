internal import GRDB
import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

/// Turns field values into column values and back (see Docs/Stores.md, "SQLite").
enum SQLiteValueCodec {
    static let writer = JSONWriter()
    static let reader = JSONReader()

    // MARK: Writing

    /// Integer milliseconds since 1970 of a date.
    static func milliseconds(_ date: Date, key: String) throws(PFError) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        // 2^53: every millisecond count below it is exact in a Double, both ways.
        guard ms.isFinite, abs(ms) <= 9_007_199_254_740_992 else {
            throw unrepresentable("the date \(date)", key)
        }
        return Int64(ms)
    }

    static func unrepresentable(_ what: String, _ key: String) -> PFError {
        PFError(SQLiteStoreFailure.unrepresentable(key: key, what: what), format: SQLiteStore.format)
    }

    // MARK: Reading

    /// Reads one column value back into a field value.
    static func fieldValue(_ value: DatabaseValue, _ field: FieldLayout, where place: () -> String) throws(PFError) -> ParseValue? {
        switch (field.storage, value.storage) {
        case (_, .null): return nil
        case (.text, .string(let s)): return .string(s)
        case (.number, .int64(let i)): return .int(i)
        case (.number, .double(let d)): return .double(d)
        case (.boolean, .int64(let i)) where i == 0 || i == 1: return .bool(i == 1)
        case (.date, .int64(let ms)): return .date(Date(timeIntervalSince1970: Double(ms) / 1000))
        case (.pointer, .string(let id)):
            guard let target = field.field.targetClass else {
                throw malformed(place(), "the Pointer field has no targetClass in _SCHEMA")
            }
            return .pointer(ParsePointer(className: target, objectId: id))
        case (.relation, .string(let c)): return .relation(className: c)
        case (.bytes, .blob(let d)): return .bytes(d)
        case (.json, .string(let text)):
            let decoded = try parseValue(json: text, where: place)
            switch (field.field.type, decoded) {
            case (.object, .object), (.array, .array), (.file, .file), (.geoPoint, .geoPoint), (.polygon, .polygon):
                return decoded
            case (.object, _), (.array, _), (.file, _), (.geoPoint, _), (.polygon, _):
                throw malformed(place(), "expected the JSON of a \(field.field.type), found \(decoded.fieldType?.rawValue ?? "null")")
            default:
                // An ACL field's JSON, or a type Parse did not define when pfarchive was
                // written: kept as read.
                return decoded
            }
        default:
            throw malformed(place(), "expected \(expectation(field.storage)), found \(describe(value))")
        }
    }

    static func parseValue(json text: String, where place: () -> String) throws(PFError) -> ParseValue {
        do {
            return try ParseValue(rest: try reader.read(Data(text.utf8)), checkingNames: false)
        } catch {
            throw malformed(place(), "expected Parse REST JSON: \(error.description)")
        }
    }

    /// The `_extra` column: a JSON object of the fields that do not fit their column.
    static func extraFields(_ text: String, where place: () -> String) throws(PFError) -> OrderedDictionary<String, ParseValue> {
        let tree: PFValue
        do {
            tree = try reader.read(Data(text.utf8))
        } catch {
            throw malformed(place(), "expected a JSON object of fields: \(error.description)")
        }
        guard case .dictionary(let members) = tree else { throw malformed(place(), "expected a JSON object of fields") }
        var out = OrderedDictionary<String, ParseValue>()
        for (key, member) in members {
            do {
                out[key] = try ParseValue(rest: member, checkingNames: false)
            } catch {
                throw malformed(place() + ", key \(key)", error.description)
            }
        }
        return out
    }

    static func malformed(_ place: String, _ message: String) -> PFError {
        PFError(SQLiteStoreFailure.malformed(place: place, problem: message), format: SQLiteStore.format)
    }

    static func expectation(_ storage: ColumnStorage) -> String {
        switch storage {
        case .text: "TEXT"
        case .number: "an INTEGER or REAL number"
        case .boolean: "INTEGER 0 or 1"
        case .date: "INTEGER milliseconds since 1970"
        case .pointer: "a TEXT objectId"
        case .relation: "a TEXT class name"
        case .bytes: "a BLOB"
        case .json: "TEXT JSON"
        }
    }

    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let i): "INTEGER \(i)"
        case .double(let d): "REAL \(d)"
        case .string: "TEXT"
        case .blob(let d): "a BLOB of \(d.count) bytes"
        }
    }
}
