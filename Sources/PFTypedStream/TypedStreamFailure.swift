import PFCore

/// Every failure PFTypedStream reports, with its class and its message in one place: the
/// stream reader, type encodings, the classic unarchiver and the archiver.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: TypedStreamFailure.self)`. `what` names the part of the stream being
/// read (`the header`, `a byte array`); types are spelled as type encodings (`i`, `{CGPoint=dd}`)
/// or Swift type names, values as the messages show them.
public enum TypedStreamFailure: PFFailure, Hashable {
    // Stream bytes.
    /// The input ends inside `what`: `need` more bytes were expected, `remaining` were left.
    case truncated(what: String, need: Int, remaining: Int)
    /// A tag byte (NEW, NIL, END, FLOAT or a reserved one) where `expected` should be.
    case unexpectedTag(UInt8, expected: String)
    /// A byte string (`what`) longer than the rest of the input.
    case stringTooLong(what: String, length: UInt64, remaining: Int)
    /// A streamer version other than 4.
    case streamerVersion(UInt8)
    /// A signature length other than 11.
    case signatureLength(UInt8)
    /// A signature other than `streamtyped` or `typedstream`.
    case signature(String)
    /// A header and nothing after it.
    case noValues
    /// A shared string (`what`) that is a literal nil.
    case nilSharedString(what: String)
    /// A shared string (`what`) referring past the `defined` strings.
    case sharedStringReference(what: String, index: Int, defined: Int)
    /// A reference number below the first back-reference.
    case referenceNumber(Int64)
    /// A reference to a `kind` past the object table's `entries`.
    case referenceOutOfRange(kind: String, index: Int, entries: Int)
    /// A reference to an entry of another kind.
    case referenceKind(index: Int, expected: String, found: String)
    /// A nil type-encoding string.
    case nilTypeEncoding
    /// A byte array longer than the rest of the input.
    case byteArrayTooLong(count: Int, remaining: Int)
    /// An array of values that occupy no bytes.
    case zeroSizeArray(count: Int, element: String)
    /// An array with more elements than bytes left.
    case arrayTooLong(count: Int, remaining: Int)
    /// A bool byte other than 0 or 1.
    case boolByte(UInt8)
    /// A literal C string that is nil.
    case nilCString
    /// A C string with a zero byte.
    case zeroInCString
    /// A nil class name.
    case nilClassName
    /// A class chain that refers back to its own class.
    case superclassCycle(index: Int)
    /// An object with a nil class.
    case nilClass
    // Type encodings.
    /// A type-encoding string (`text`, shortened) that is wrong: ``TypeEncodingProblem`` says how.
    case typeEncoding(text: String, TypeEncodingProblem)
    /// A type encoding that holds `count` types where one was expected.
    case notOneType(text: String, count: Int)
    // Classic unarchiving.
    /// A class the registry does not allow.
    case classNotAllowed(String)
    /// A nil root object where `expected` was asked for.
    case nilRoot(expected: String)
    /// No more values in the object (or `the stream`), where `expected` (a group type) was asked for.
    case noMoreValues(in: String, expected: String?)
    /// A group of another type.
    case groupMismatch(expected: String, found: String)
    /// A group other than a signed integer group where `expected` was asked for.
    case expectedSignedGroup(expected: String, found: String)
    /// A group other than an unsigned integer group where `expected` was asked for.
    case expectedUnsignedGroup(expected: String, found: String)
    /// A value (rendered) of another kind than `expected`.
    case expectedValue(expected: String, found: String)
    /// A group other than a double.
    case expectedDouble(found: String)
    /// A value other than a float.
    case expectedFloat
    /// An integer (rendered) that does not fit the Swift `type`.
    case doesNotFit(value: String, type: String)
    /// A BOOL value other than 0 or 1.
    case boolValue(Int64)
    /// A data length outside 0…`maximum`.
    case dataLength(Int64, maximum: Int)
    /// A data object without its `length` bytes.
    case expectedBytes(Int64)
    /// A C string that is not UTF-8.
    case cStringNotUTF8
    /// An object of another type or class (`found`) than `expected`.
    case objectType(expected: String, found: String, index: Int)
    /// A table entry that is not an object.
    case notAnObject(index: Int)
    /// An object of a class outside `expected`.
    case objectClass(expected: [String], found: String, index: Int)
    /// An object that refers back to itself while it is being decoded.
    case selfReference(index: Int, className: String)
    /// A reader that did not consume all of an object's value groups.
    case unconsumedGroups(className: String, read: Int, total: Int)
    /// An NSNumber without its type.
    case numberWithoutType
    /// An NSNumber (rendered) that does not fit the Swift `type`.
    case numberDoesNotFit(value: String, type: String)
    /// An NSNumber (rendered) that is not a boolean.
    case numberNotBoolean(String)
    /// An NSNumber (rendered) that is not a number.
    case numberNotNumber(String)
    /// NSString bytes that are nil or not UTF-8.
    case stringBytes
    /// An NSURL without a valid string.
    case urlWithoutString
    /// An NSArray or NSSet with a negative element count.
    case negativeElementCount(Int)
    /// An NSDictionary with a negative entry count.
    case negativeEntryCount(Int)
    /// A nil element in an NSArray.
    case nilElement
    /// A nil key or value in an NSDictionary.
    case nilKeyOrValue
    /// An NSValue without its type.
    case valueWithoutType
    /// An attributed string without its string.
    case attributedStringWithoutString
    /// A malformed attribute run.
    case malformedAttributeRun
    /// Nil attributes in an attributed string.
    case nilAttributes
    /// Attribute runs that do not cover the string (`total` against `length` UTF-16 units).
    case attributeRuns(total: Int, length: Int)
    // Archiving.
    /// A `$ref` (rendered) that names no earlier `$id`.
    case undefinedReference(String)
    /// A `$classes` entry of kind `kind`.
    case classesEntry(kind: String)
    /// `$classes` that do not start with the object's `$class`.
    case classesStart(String)
    /// A group that is not `{"types": string, "values": array}`.
    case malformedGroup
    /// A group whose `types` and `values` counts differ.
    case groupCount(types: String, typeCount: Int, valueCount: Int)
    /// A tree value of kind `kind` that does not fit `encoding`.
    case valueKind(kind: String, encoding: String)
    /// Data longer than a typedstream length.
    case dataTooLong(Int)
    /// A C string with U+0000.
    case nulInCString
    /// A different number of types and values.
    case typeCount(types: Int, values: Int)
    /// A stream value (rendered) that does not fit `type`.
    case valueType(value: String, type: String)
    /// An array longer than Int32.max.
    case arrayTooLarge(Int)
    /// A dictionary larger than Int32.max.
    case dictionaryTooLarge(Int)
    /// Attribute runs that do not cover the string being written.
    case unwritableAttributeRuns(total: Int, length: Int)
    /// A generic object, which refers to its stream's object table.
    case genericObject
    /// A keyed-archive UID.
    case uid(UInt64)
    /// The archiver failed with an error that is not a ``PFCore/PFError`` (`description`).
    case archiverFailed(String)

    /// How a type-encoding string is wrong.
    public enum TypeEncodingProblem: Sendable, Hashable, CustomStringConvertible {
        /// The string is empty.
        case empty
        /// The string ends inside a type.
        case endsEarly
        /// `[` without a length.
        case arrayWithoutLength
        /// `[N type` without `]`.
        case arrayNotClosed
        /// `{` without `}`.
        case structNotClosed
        /// A type character typedstreams do not carry.
        case unknownType(String)

        public var description: String {
            switch self {
            case .empty: "empty type-encoding string; expected at least one type"
            case .endsEarly: "type encoding ends early"
            case .arrayWithoutLength: "array without a length; expected [N type]"
            case .arrayNotClosed: "array not closed; expected ']'"
            case .structNotClosed: "struct not closed; expected '}'"
            case .unknownType(let c): "type '\(c)' is not one typedstream carries; expected one of cCsSiIlLqQfdB*+%:#@! or [N…] {…}"
            }
        }
    }

    public var code: PFError.Code {
        switch self {
        case .truncated, .stringTooLong, .noValues, .byteArrayTooLong, .arrayTooLong: .truncated
        case .unexpectedTag, .signatureLength, .signature, .nilSharedString, .nilTypeEncoding, .nilCString, .nilClassName,
            .nilClass, .notOneType:
            .syntax
        case .typeEncoding(_, .unknownType): .unsupported
        case .typeEncoding: .syntax
        case .streamerVersion, .zeroSizeArray, .genericObject: .unsupported
        case .classNotAllowed: .disallowed
        case .dataTooLong, .nulInCString, .arrayTooLarge, .dictionaryTooLarge, .unwritableAttributeRuns, .uid,
            .archiverFailed:
            .unrepresentable
        case .typeCount, .valueType: .usage
        default: .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .truncated(let what, let need, let remaining):
            "input ends inside \(what); expected \(need) more byte\(need == 1 ? "" : "s"), \(remaining) left"
        case .unexpectedTag(let head, let expected): "unexpected \(Self.tagName(head)); expected \(expected)"
        case .stringTooLong(let what, let length, let remaining): "\(what) claims \(length) bytes but only \(remaining) remain"
        case .streamerVersion(3): "old NeXTSTEP streamer version 3 is not supported; expected 4"
        case .streamerVersion(let version): "streamer version \(version) is unknown; expected 4"
        case .signatureLength(let length): "signature length \(length); expected 11 (\"streamtyped\")"
        case .signature(let text): "signature \"\(text)\"; expected \"streamtyped\" or \"typedstream\""
        case .noValues: "the stream has a header but no values; expected a type-encoding string"
        case .nilSharedString(let what): "a literal shared string cannot be nil; expected the length of \(what)"
        case .sharedStringReference(let what, let index, let defined):
            "\(what) refers to shared string #\(index), but only \(defined) are defined"
        case .referenceNumber(let number): "reference number \(number) is out of range; expected a back-reference (0x92 or above)"
        case .referenceOutOfRange(let kind, let index, let entries):
            "reference to \(kind) #\(index), but the object table has \(entries) entries"
        case .referenceKind(let index, let expected, let found): "reference to entry #\(index) expected a \(expected), found a \(found)"
        case .nilTypeEncoding: "nil type-encoding string; expected the types of the next values"
        case .byteArrayTooLong(let count, let remaining): "byte array claims \(count) bytes but only \(remaining) remain"
        case .zeroSizeArray(let count, let element): "array of \(count) values of type \(element) that occupy no bytes"
        case .arrayTooLong(let count, let remaining): "array claims \(count) elements but only \(remaining) bytes remain"
        case .boolByte(let b): "bool byte \(b); expected 0 or 1"
        case .nilCString: "a literal C string cannot be nil"
        case .zeroInCString: "C string contains a zero byte"
        case .nilClassName: "nil class name; expected the name of a class"
        case .superclassCycle(let index):
            "class chain refers back to its own class #\(index) (a superclass cycle); expected NIL or an earlier class"
        case .nilClass: "object with a nil class; expected a class"
        case .typeEncoding(let text, let problem): "\(problem) in type encoding \"\(text)\""
        case .notOneType(let text, let count): "type encoding \"\(text)\" holds \(count) types; expected one"
        case .classNotAllowed(let name): "class \(name) is not allowed; register a type for it in the ClassicClassRegistry to decode it"
        case .nilRoot(let expected): "the root object is nil; expected \(expected)"
        case .noMoreValues(let place, let expected?): "no more values in \(place); expected a group of type \(expected)"
        case .noMoreValues(let place, nil): "no more values in \(place)"
        case .groupMismatch(let expected, let found): "expected a group of type \(expected), found \(found)"
        case .expectedSignedGroup(let expected, let found): "expected \(expected) (a signed integer group), found \(found)"
        case .expectedUnsignedGroup(let expected, let found): "expected \(expected) (an unsigned integer group), found \(found)"
        case .expectedValue(let expected, let found): "expected \(expected), found \(found)"
        case .expectedDouble(let found): "expected a double, found a group of type \(found)"
        case .expectedFloat: "expected a float"
        case .doesNotFit(let value, let type): "\(value) does not fit \(type)"
        case .boolValue(let v): "BOOL value \(v); expected 0 or 1"
        case .dataLength(let length, let maximum): "data length \(length); expected 0…\(maximum)"
        case .expectedBytes(let length): "expected \(length) bytes"
        case .cStringNotUTF8: "C string is not UTF-8"
        case .objectType(let expected, let found, let index): "expected \(expected), found \(found) (object #\(index))"
        case .notAnObject(let index): "entry #\(index) is not an object"
        case .objectClass(let expected, let found, let index):
            "expected an object of class \(expected.sorted().joined(separator: " or ")), found \(found) (object #\(index))"
        case .selfReference(let index, let className):
            "object #\(index) (\(className)) refers back to itself while it is being decoded; decode that field with decodeReference(_:assign:)"
        case .unconsumedGroups(let className, let read, let total):
            "\(className) read \(read) of its \(total) value groups; the reader must consume exactly what the writer wrote"
        case .numberWithoutType: "NSNumber without a type"
        case .numberDoesNotFit(let value, let type): "NSNumber \(value) does not fit \(type)"
        case .numberNotBoolean(let value): "NSNumber \(value) is not a boolean"
        case .numberNotNumber(let value): "NSNumber \(value) is not a number"
        case .stringBytes: "NSString bytes are nil or not UTF-8"
        case .urlWithoutString: "NSURL without a valid string"
        case .negativeElementCount(let count): "negative element count \(count)"
        case .negativeEntryCount(let count): "negative entry count \(count)"
        case .nilElement: "nil element in an NSArray"
        case .nilKeyOrValue: "nil key or value in an NSDictionary"
        case .valueWithoutType: "NSValue without a type"
        case .attributedStringWithoutString: "attributed string without a string"
        case .malformedAttributeRun: "malformed attribute run"
        case .nilAttributes: "nil attributes"
        case .attributeRuns(let total, let length), .unwritableAttributeRuns(let total, let length):
            "attribute runs cover \(total) UTF-16 units; the string has \(length)"
        case .undefinedReference(let reference): "$ref \(reference) names no earlier $id"
        case .classesEntry(let kind): "$classes holds \(kind), expected class names"
        case .classesStart(let name): "$classes must start with $class \"\(name)\""
        case .malformedGroup: "a group must be {\"types\": string, \"values\": array}"
        case .groupCount(let types, let typeCount, let valueCount): "group \"\(types)\" has \(typeCount) types but \(valueCount) values"
        case .valueKind(let kind, let encoding): "\(kind) does not fit type \(encoding)"
        case .dataTooLong(let count): "data of \(count) bytes is longer than a typedstream length (Int32.max)"
        case .nulInCString: "a C string cannot contain U+0000"
        case .typeCount(let types, let values): "\(types) types for \(values) values; give one type per value"
        case .valueType(let value, let type): "value \(value) does not fit type \(type)"
        case .arrayTooLarge(let count): "an array of \(count) elements exceeds Int32.max"
        case .dictionaryTooLarge(let count): "a dictionary of \(count) entries exceeds Int32.max"
        case .genericObject:
            "a generic object refers to its stream's object table and cannot be re-archived; convert it with TypedStream.decodeValue instead"
        case .uid(let u): "a keyed-archive UID (\(u)) has no meaning in a typedstream"
        case .archiverFailed(let description): description
        }
    }

    /// A tag byte as messages name it.
    static func tagName(_ head: UInt8) -> String {
        switch head {
        case TypedStreamTag.new: "NEW (0x84)"
        case TypedStreamTag.null: "NIL (0x85)"
        case TypedStreamTag.endOfObject: "END (0x86)"
        case TypedStreamTag.floatingPoint: "FLOAT (0x83)"
        default: "reserved tag 0x\(String(head, radix: 16, uppercase: true))"
        }
    }
}
