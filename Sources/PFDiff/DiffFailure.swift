import PFCore

/// Every failure PFDiff reports (JSON Pointer, JSON Patch, field paths and the store diff's
/// spill files), with its class and message in one place.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: DiffFailure.self)`.
public indirect enum DiffFailure: PFFailure, Hashable {
    // JSON Pointer (RFC 6901).
    /// A pointer that does not start with `/`.
    case pointerNoSlash(String)
    /// A pointer with a `~` not followed by 0 or 1.
    case pointerBadTilde(String)
    // Reading a JSON Patch (RFC 6902).
    /// The patch is not an array; `kind` is what it is.
    case patchNotArray(kind: PFValue.Kind)
    /// Entry `index` is not an object.
    case entryNotObject(index: Int)
    /// Entry `index` has no `op`.
    case entryNoOp(index: Int)
    /// Entry `index` names an unknown `op`.
    case entryUnknownOp(index: Int, op: String)
    /// Entry `index` has no `path` string.
    case entryNoPath(index: Int)
    /// Entry `index` has a malformed pointer.
    case entryBadPointer(index: Int, DiffFailure)
    /// Entry `index` (a move or copy) has no `from` string.
    case entryNeedsFrom(index: Int, op: String)
    /// Entry `index` (an add, replace or test) has no `value`.
    case entryNeedsValue(index: Int, op: String)
    // Applying a JSON Patch.
    /// Operation `index` (`op` at `pointer`) failed.
    case operationFailed(index: Int, op: String, pointer: String, DiffFailure)
    /// No value at the path to replace.
    case noValueToReplace
    /// A move into one of the moved value's own children.
    case moveIntoChild(from: String)
    /// No value at the `from` pointer.
    case noValueAtFrom(String)
    /// No value at the path to test.
    case noValueToTest
    /// A `test` found another value.
    case testFailed(found: String, expected: String)
    /// No member on the way to the target.
    case noMemberOnTheWay(String)
    /// No index on the way to the target.
    case noIndexOnTheWay(String, count: Int)
    /// A step leads into a scalar.
    case leadsIntoScalar(String, kind: PFValue.Kind)
    /// An index out of range for adding.
    case addIndexOutOfRange(String, count: Int)
    /// An index out of range.
    case indexOutOfRange(String, count: Int)
    /// The target's parent is a scalar.
    case parentNotContainer(kind: PFValue.Kind)
    /// A remove of the whole document.
    case removeRoot
    /// No member to remove.
    case noMemberToRemove(String)
    // Diff options and the store diff.
    /// A field path that is not a key path.
    case badFieldPath(String)
    /// The spill directory could not be made.
    case spillDirectory(path: String, reason: String)
    /// A spill file could not be written.
    case spillWrite(path: String, reason: String)
    /// A spill file could not be read.
    case spillRead(path: String, reason: String)
    /// A spill file ends inside a record.
    case spillCutShort(path: String)
    /// A spilled row record is not 40 bytes or does not decode.
    case spilledRowDamaged
    /// A row too large to record for comparison.
    case rowTooLarge(bytes: Int)
    /// An object too large to record for comparison.
    case objectTooLarge(bytes: Int)
    /// A read of B's rows on another thread stopped early (A failed, or B holds more rows
    /// than are kept in memory); caught inside the comparison, never reported.
    case rowPassStopped
    /// A class file of A changed while the two exports were compared.
    case fileChangedDuringComparison(path: String)
    // Reading a patched store document.
    /// The document is not a dictionary of classes.
    case patchedStoreNotDictionary
    /// `_SCHEMA` is not a dictionary of classes.
    case patchedSchemaNotDictionary
    /// A class in `_SCHEMA` is not a dictionary of fields.
    case patchedSchemaClassNotDictionary
    /// A field's type in `_SCHEMA` is not a string.
    case patchedFieldTypeNotString
    /// A class is not a dictionary of objects or join rows.
    case patchedClassNotDictionary
    /// A join row is not `"<owningId>,<relatedId>": true`.
    case patchedJoinRow
    /// An object is not a dictionary of fields.
    case patchedObjectNotDictionary

    public var code: PFError.Code {
        switch self {
        case .pointerNoSlash, .pointerBadTilde: .syntax
        case .badFieldPath: .usage
        case .spillDirectory, .spillWrite, .spillRead, .spillCutShort, .spilledRowDamaged, .fileChangedDuringComparison: .io
        case .rowTooLarge, .objectTooLarge: .limitExceeded
        default: .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .pointerNoSlash(let text): "'\(text)' does not start with '/'"
        case .pointerBadTilde(let text): "'\(text)' has a '~' not followed by 0 or 1"
        case .patchNotArray(let kind):
            "a patch is an array of operations, not \(kind == .dictionary ? "an object" : "a \(kind.rawValue)")"
        case .entryNotObject(let index): "operation \(index): not an object"
        case .entryNoOp(let index): "operation \(index): no \"op\""
        case .entryUnknownOp(let index, let op): "operation \(index): unknown op \"\(op)\""
        case .entryNoPath(let index): "operation \(index): no \"path\" string"
        case .entryBadPointer(let index, let inner): "operation \(index): \(inner.message)"
        case .entryNeedsFrom(let index, let op): "operation \(index): \(op) needs a \"from\" string"
        case .entryNeedsValue(let index, let op): "operation \(index): \(op) needs a \"value\""
        case .operationFailed(let index, let op, let pointer, let inner):
            "operation \(index) (\(op) \(pointer.isEmpty ? "\"\"" : pointer)): \(inner.message)"
        case .noValueToReplace: "no value at the path to replace"
        case .moveIntoChild(let from): "cannot move a value into one of its own children (from \(from))"
        case .noValueAtFrom(let from): "no value at from \(from)"
        case .noValueToTest: "no value at the path to test"
        case .testFailed(let found, let expected): "test failed: found \(found), expected \(expected)"
        case .noMemberOnTheWay(let key): "no member \"\(key)\" on the way"
        case .noIndexOnTheWay(let token, let count): "no index \(token) on the way (\(count) items)"
        case .leadsIntoScalar(let token, let kind): "\"\(token)\" leads into a \(kind.rawValue), not an object or array"
        case .addIndexOutOfRange(let token, let count): "index \(token) is out of range for adding (\(count) items)"
        case .indexOutOfRange(let token, let count): "index \(token) is out of range (\(count) items)"
        case .parentNotContainer(let kind): "the parent is a \(kind.rawValue), not an object or array"
        case .removeRoot: "cannot remove the whole document"
        case .noMemberToRemove(let key): "no member \"\(key)\" to remove"
        case .badFieldPath(let text):
            "'\(text)' is not a key path (write keys as a.b, indices as [3], any key as *, any index as [*])"
        case .spillDirectory(let path, let reason): "cannot make spill files in \(path): \(reason)"
        case .spillWrite(let path, let reason): "cannot write spill file \(path): \(reason)"
        case .spillRead(let path, let reason): "cannot read spill file \(path): \(reason)"
        case .spillCutShort(let path): "spill file \(path) is cut short"
        case .spilledRowDamaged: "a spilled row record is damaged"
        case .rowTooLarge(let bytes): "a row of \(bytes) bytes is too large to compare"
        case .objectTooLarge(let bytes): "an object of \(bytes) bytes is too large to compare"
        case .rowPassStopped: "the reading of rows stopped"
        case .fileChangedDuringComparison(let path): "\(path) changed while it was compared; compare again"
        case .patchedStoreNotDictionary: "the patched store is not a dictionary of classes"
        case .patchedSchemaNotDictionary: "_SCHEMA is not a dictionary of classes"
        case .patchedSchemaClassNotDictionary: "not a dictionary of fields"
        case .patchedFieldTypeNotString: "a field's type is not a string such as \"Pointer<Team>\""
        case .patchedClassNotDictionary: "not a dictionary of objects or join rows"
        case .patchedJoinRow: "a join row is \"<owningId>,<relatedId>\": true"
        case .patchedObjectNotDictionary: "an object is not a dictionary of fields"
        }
    }
}
