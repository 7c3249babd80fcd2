import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStores
import PostgresNIO

// MARK: - Reading rows

/// Turns the rows of one class table into ``ParseObject``s.
struct RowReader {
    enum Role {
        case objectId, createdAt, updatedAt, readers, writers, password
        case field(String, ParseSchema.Field?)
    }

    struct Selected {
        var column: String
        var kind: ColumnKind
        var role: Role
    }

    let layout: ClassLayout
    let location: String
    /// The columns read, in table order.
    let selected: [Selected]
    /// Relation fields every object carries, as parse-server adds them.
    let relations: [(String, String)]

    init(layout: ClassLayout, location: String) {
        self.layout = layout
        self.location = location
        var selected: [Selected] = []
        for (column, kind) in layout.columns {
            let role: Role
            switch column {
            case "objectId": role = .objectId
            case "createdAt": role = .createdAt
            case "updatedAt": role = .updatedAt
            case "_rperm": role = .readers
            case "_wperm": role = .writers
            case ClassLayout.passwordColumn where layout.isUser: role = .password
            default:
                // parse-server's private columns (_email_verify_token, …) are not Parse fields.
                if column.hasPrefix("_") || ParseRules.fieldNameProblem(column, className: layout.className) != nil { continue }
                if let field = layout.fields[column], field.type == .relation { continue }
                role = .field(column, layout.fields[column])
            }
            selected.append(Selected(column: column, kind: kind, role: role))
        }
        self.selected = selected
        self.relations = layout.fields.compactMap { name, field in
            field.type == .relation ? field.targetClass.map { (name, $0) } : nil
        }
    }

    func fail(_ objectId: String?, _ column: String, _ problem: String) -> PFError {
        PFError(
            PostgresStoreFailure.badColumnValue(location: "\(location)", className: layout.className, objectId: objectId, column: column, problem: problem),
            format: StoreFormat.name)
    }

    /// Reads one row.
    func object(from row: PostgresRow) throws(PFError) -> ParseObject {
        var objectId: String?
        var createdAt: Date?
        var updatedAt: Date?
        var readers: [String]?
        var writers: [String]?
        var fields = OrderedDictionary<String, ParseValue>()
        for (cell, column) in zip(row, selected) {
            guard cell.bytes != nil else { continue }
            do {
                switch column.role {
                case .objectId: objectId = try cell.decode(String.self)
                case .createdAt: createdAt = ParseDate.rounded(try cell.decode(Date.self))
                case .updatedAt: updatedAt = ParseDate.rounded(try cell.decode(Date.self))
                case .readers: readers = try cell.decode([String].self)
                case .writers: writers = try cell.decode([String].self)
                case .password: fields[ClassLayout.passwordField] = .string(try cell.decode(String.self))
                case .field(let name, let field):
                    fields[name] = try value(cell, kind: column.kind, field: field, name: name, objectId: objectId)
                }
            } catch let error as PFError {
                throw error
            } catch {
                throw fail(objectId, column.column, "cannot be read as \(column.kind.sqlType) (\(error))")
            }
        }
        for (name, target) in relations { fields[name] = .relation(className: target) }
        var acl: ParseACL?
        if readers != nil || writers != nil {
            var entries = OrderedDictionary<String, ParseACL.Access>()
            for key in readers ?? [] { entries[key, default: ParseACL.Access()].read = true }
            for key in writers ?? [] { entries[key, default: ParseACL.Access()].write = true }
            acl = ParseACL(entries)
        }
        return try ParseObject(
            className: layout.className, objectId: objectId, createdAt: createdAt, updatedAt: updatedAt, acl: acl,
            fields: fields)
    }

    private func value(
        _ cell: PostgresCell, kind: ColumnKind, field: ParseSchema.Field?, name: String, objectId: String?
    ) throws -> ParseValue {
        switch kind {
        case .text, .varchar120:
            let text = try cell.decode(String.self)
            switch field?.type {
            case .pointer?:
                guard let target = field?.targetClass else { throw fail(objectId, name, "is a Pointer without a targetClass in _SCHEMA") }
                return .pointer(ParsePointer(className: target, objectId: text))
            case .file?: return .file(ParseFile(name: text))
            default: return .string(text)
            }
        case .double:
            return Self.number(try cell.decode(Double.self), kind: layout.numberKinds[name])
        case .boolean: return .bool(try cell.decode(Bool.self))
        case .timestamp: return .date(ParseDate.rounded(try cell.decode(Date.self)))
        case .jsonb:
            let json = try PostgresJSON.value(try cell.decode(String.self), what: "\(location): \(layout.className) '\(objectId ?? "")' field \(name)")
            do {
                return try ParseValue(rest: json)
            } catch {
                throw fail(objectId, name, error.message)
            }
        case .point:
            let points = try Self.points(try cell.decode(String.self))
            guard points.count == 1 else { throw fail(objectId, name, "is not a point") }
            return .geoPoint(points[0])
        case .polygon:
            let points = try Self.points(try cell.decode(String.self))
            guard !points.isEmpty else { throw fail(objectId, name, "is an empty polygon") }
            return .polygon(ParsePolygon(coordinates: points))
        case .textArray:
            return .array(try cell.decode([String].self).map { .string($0) })
        }
    }

    /// A `double precision` value as a Parse Number: an integer when the field only ever held
    /// integers, a double when it only held doubles, and otherwise an integer exactly when the
    /// value is integral and within ±2^53.
    static func number(_ d: Double, kind: NumberKind?) -> ParseValue {
        switch kind {
        case .integer:
            if let i = Int64(exactly: d) { return .int(i) }
            return .double(d)
        case .double:
            return .double(d)
        case .mixed, nil:
            if abs(d) <= 9_007_199_254_740_992, let i = Int64(exactly: d) { return .int(i) }
            return .double(d)
        }
    }

    /// The points of PostgreSQL's `point` / `polygon` text, `(x,y)` / `((x1,y1),…)`, as
    /// GeoPoints (x is the longitude, as parse-server writes them).
    static func points(_ text: String) throws(PFError) -> [ParseGeoPoint] {
        let numbers = text.split(whereSeparator: { "(), ".contains($0) })
        guard numbers.count % 2 == 0 else {
            throw PFError(PostgresStoreFailure.notAGeometry(text), format: StoreFormat.name)
        }
        var out: [ParseGeoPoint] = []
        var i = numbers.startIndex
        while i < numbers.endIndex {
            guard let x = Double(numbers[i]), let y = Double(numbers[i + 1]) else {
                throw PFError(PostgresStoreFailure.notAGeometry(text), format: StoreFormat.name)
            }
            out.append(ParseGeoPoint(latitude: y, longitude: x))
            i += 2
        }
        return out
    }
}
