import OrderedCollections
import PFCore
import PFParse

/// Checks the classes of a Parse export against a schema (given, or inferred from the data)
/// and lists every violation: wrong types, invalid key and class names, Pointers to the wrong
/// class, malformed special types, GeoPoints out of range, bad ACLs; dangling Pointers are
/// warnings.
public struct ParseValidator: Sendable {
    /// One class's rows, as read from its file.
    public struct ClassRows: Sendable {
        /// The class name (from the file name).
        public var className: String
        /// The raw rows.
        public var rows: [PFValue]
        /// Paths of rows in their file (`results[3]`), for messages.
        public var shape: ParseExport.Shape

        /// Makes a class's rows.
        /// - Parameters:
        ///   - className: the class.
        ///   - rows: the rows.
        ///   - shape: how the file held them.
        public init(className: String, rows: [PFValue], shape: ParseExport.Shape = .results) {
            self.className = className
            self.rows = rows
            self.shape = shape
        }
    }

    /// The result of a validation.
    public struct Report: Sendable {
        /// The schema checked against (given or inferred).
        public var schema: ParseSchema
        /// Every issue, in the order found.
        public var issues: [ParseIssue]
        /// Whether any issue is an error.
        public var hasErrors: Bool { issues.contains { $0.severity == .error } }
    }

    /// The schema to check against; `nil` infers one from the data (the first type seen for a
    /// field wins, as Parse's type lock-in does).
    public var schema: ParseSchema?

    /// Makes a validator.
    /// - Parameter schema: the schema, or `nil` to infer one.
    public init(schema: ParseSchema? = nil) { self.schema = schema }

    /// Validates the classes of an export.
    /// - Parameter classes: the classes.
    /// - Returns: the schema used and the issues.
    public func validate(_ classes: [ClassRows]) -> Report {
        var issues: [ParseIssue] = []
        var inferred = ParseSchema()
        var decoded: [(String, [ParseObject])] = []
        var ids: [String: Set<String>] = [:]

        for file in classes {
            let name = file.className
            if let problem = ParseRules.classNameProblem(name) {
                issues.append(ParseIssue(code: .invalidClassName, className: name, objectId: nil, path: .root, message: problem))
                continue
            }
            if let (field, owner) = ParseRules.joinClassParts(name) {
                issues += validateJoinRows(file, field: field, owner: owner)
                continue
            }
            var objects: [ParseObject] = []
            var classIds = Set<String>()
            for (i, row) in file.rows.enumerated() {
                let rowPath = ParseExport.rowPath(i, shape: file.shape)
                let (object, rowIssues) = ParseValidator.decodeRow(row, className: name, rowPath: rowPath)
                issues += rowIssues
                if let object {
                    objects.append(object)
                    if let id = object.objectId {
                        if !classIds.insert(id).inserted {
                            issues.append(ParseIssue(code: nil, className: name, objectId: id, path: .root,
                                                     message: "duplicate objectId '\(id)' in \(name)"))
                        }
                    }
                }
            }
            ids[name] = classIds
            decoded.append((name, objects))
        }

        // Type lock-in: the first type seen for each field, or the given schema.
        for (name, objects) in decoded {
            var fields = schema?.classes[name] ?? OrderedDictionary<String, ParseSchema.Field>()
            let given = schema?.classes[name] != nil
            if schema != nil, !given {
                issues.append(ParseIssue(.warning, code: nil, className: name, objectId: nil, path: .root,
                                         message: "class \(name) is not in the schema"))
            }
            var reportedUnknown = Set<String>()
            for object in objects {
                for (key, value) in object.fields {
                    guard let actual = ParseSchema.fieldType(of: value) else { continue }
                    guard let expected = fields[key] else {
                        if given {
                            if reportedUnknown.insert(key).inserted {
                                issues.append(ParseIssue(.warning, code: nil, className: name, objectId: object.objectId,
                                                         path: [.key(key)], message: "field '\(key)' is not in the schema"))
                            }
                        } else {
                            fields[key] = actual
                        }
                        continue
                    }
                    if let problem = ParseValidator.mismatch(actual, expected: expected) {
                        issues.append(ParseIssue(code: .incorrectType, className: name, objectId: object.objectId,
                                                 path: [.key(key)], message: problem))
                    }
                }
            }
            inferred.classes[name] = fields
        }

        // Dangling Pointers: only for target classes present in the export.
        for (name, objects) in decoded {
            for object in objects {
                for (key, value) in object.fields {
                    ParseValidator.pointers(in: value, path: PFKeyPath([.key(key)])) { pointer, path in
                        guard let known = ids[pointer.className], !known.contains(pointer.objectId) else { return }
                        issues.append(ParseIssue(.warning, code: .objectNotFound, className: name, objectId: object.objectId,
                                                 path: path, message: "dangling Pointer: \(pointer) is not in the export"))
                    }
                }
            }
        }
        return Report(schema: schema ?? inferred, issues: issues)
    }

    /// A row as an object, collecting every problem in it instead of stopping at the first.
    static func decodeRow(_ row: PFValue, className: String, rowPath: PFKeyPath) -> (ParseObject?, [ParseIssue]) {
        guard case .dictionary(let d) = row else {
            return (nil, [ParseIssue(code: .invalidJSON, className: className, objectId: nil, path: rowPath,
                                     message: "a row must be a JSON object, not \(ParseFailure.describe(row))")])
        }
        let objectId = d["objectId"]?.stringValue
        var issues: [ParseIssue] = []
        var clean = OrderedDictionary<String, PFValue>()
        for (key, value) in d {
            var single: OrderedDictionary<String, PFValue> = [key: value]
            if key == "className" { single = d.filter { $0.key == "className" } }
            do throws(PFError) {
                _ = try ParseObject(decoding: single, className: className, path: .root)
                clean[key] = value
            } catch {
                issues.append(ParseIssue(error, className: className, objectId: objectId))
            }
        }
        // The keys that read cleanly still take part in the type and Pointer checks.
        do throws(PFError) {
            return (try ParseObject(decoding: clean, className: className, path: .root), issues)
        } catch {
            return (nil, issues + [ParseIssue(error, className: className, objectId: objectId)])
        }
    }

    /// Join-table rows: `{"owningId":…,"relatedId":…}` strings (an `objectId` is allowed).
    func validateJoinRows(_ file: ClassRows, field: String, owner: String) -> [ParseIssue] {
        var issues: [ParseIssue] = []
        for (i, row) in file.rows.enumerated() {
            let rowPath = ParseExport.rowPath(i, shape: file.shape)
            for key in ["owningId", "relatedId"] {
                guard case .string? = row[key] else {
                    issues.append(ParseIssue(code: .incorrectType, className: file.className, objectId: row["objectId"]?.stringValue,
                                             path: PFKeyPath(rowPath.components + [.key(key)]),
                                             message: "join row must have a string '\(key)'"))
                    continue
                }
            }
        }
        return issues
    }

    /// Why an actual type does not fit the expected one, or `nil`.
    static func mismatch(_ actual: ParseSchema.Field, expected: ParseSchema.Field) -> String? {
        if actual.type != expected.type {
            return "expected \(expected), found \(actual) (a field's type is locked after its first value)"
        }
        if let target = expected.targetClass, let found = actual.targetClass, target != found {
            return "expected \(expected.type)<\(target)>, found a \(actual.type) to \(found)"
        }
        return nil
    }

    static func pointers(in value: ParseValue, path: PFKeyPath, _ body: (ParsePointer, PFKeyPath) -> Void) {
        switch value {
        case .pointer(let p): body(p, path)
        case .array(let items):
            for (i, item) in items.enumerated() { pointers(in: item, path: path.appending(index: i), body) }
        case .object(let d):
            for (k, v) in d { pointers(in: v, path: path.appending(key: k), body) }
        default: break
        }
    }
}
