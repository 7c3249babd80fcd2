import Foundation
import PFCore

/// Reads a typedstream without knowing any class: the stream is self-describing (every group
/// carries its type encodings), so nothing has to be instantiated to read it, and the secure
/// coder runs later over the result.
///
/// The one reader, generic over where the object table goes (``TypedStreamEntryTable``): a
/// ``TypedStreamDocument``'s entries (``TypedStreamWholeTable``), a compact index that keeps
/// no values (``TypedStreamIndex``, a first pass that checks the whole stream), or the index
/// again while one object's groups are read back from the bytes (``TypedStreamReplayTable``,
/// which steps over the literal objects nested in it).
struct TypedStreamReader<Table: TypedStreamEntryTable> {
    var scanner: TypedStreamScanner
    var sharedStrings: [[UInt8]] = []
    /// How many shared strings are defined at this point of the stream: `sharedStrings.count`
    /// except while replaying, when the table already holds the whole stream's.
    var definedStrings = 0
    /// Parsed encodings per shared-string index, so each type string is parsed once.
    var parsedEncodings: [Int: [TypeEncoding]] = [:]
    var entries: Table
    var nodes = 0
    var depth = 0
    var limits: PFLimits { scanner.limits }

    init(bytes: UnsafeRawBufferPointer, limits: PFLimits, table: Table) {
        scanner = TypedStreamScanner(bytes: bytes, limits: limits)
        entries = table
    }

    func error(_ failure: TypedStreamFailure, at offset: Int? = nil) -> PFError {
        TypedStreamScanner.error(failure, at: offset ?? scanner.offset)
    }

    // MARK: - Header

    mutating func readHeader() throws(PFError) -> TypedStreamHeader {
        let version = try scanner.byte("the header")
        guard version == 4 else {
            throw error(.streamerVersion(version), at: 0)
        }
        let signatureLength = try scanner.byte("the header")
        guard signatureLength == 11 else {
            throw error(.signatureLength(signatureLength), at: 1)
        }
        let signature = try scanner.take(11, "the signature")
        if signature == TypedStreamTag.littleEndianSignature {
            scanner.bigEndian = false
        } else if signature == TypedStreamTag.bigEndianSignature {
            scanner.bigEndian = true
        } else {
            throw error(.signature(String(decoding: signature, as: UTF8.self)), at: 2)
        }
        let system = try scanner.unsigned("the system version")
        return TypedStreamHeader(streamerVersion: 4, bigEndian: scanner.bigEndian, systemVersion: Int(truncatingIfNeeded: system))
    }

    /// Reads the root groups to the end of the stream.
    mutating func readRoots() throws(PFError) -> [TypedStreamGroup] {
        var roots: [TypedStreamGroup] = []
        guard !scanner.atEnd else { throw error(.noValues) }
        while !scanner.atEnd {
            let at = scanner.offset
            let head = try scanner.byte("a group")
            roots.append(try readGroup(head: head, at: at))
        }
        return roots
    }

    // MARK: - Budgets

    mutating func count(_ n: Int = 1) throws(PFError) {
        nodes += n
        guard nodes <= limits.maxNodes else {
            throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: .typedstream, offset: scanner.offset)
        }
    }

    mutating func enter(at offset: Int) throws(PFError) {
        depth += 1
        guard depth <= limits.maxDepth else { throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: .typedstream, offset: offset) }
    }

    // MARK: - Shared strings and references

    /// Reads a shared string: NIL, NEW + literal (appended to the table), or a reference.
    /// Returns the string and its index in the shared-string table.
    mutating func sharedString(head: UInt8, at: Int, _ what: String) throws(PFError) -> (bytes: [UInt8], index: Int)? {
        switch head {
        case TypedStreamTag.null: return nil
        case TypedStreamTag.new:
            let innerAt = scanner.offset
            let innerHead = try scanner.byte(what)
            guard let string = try scanner.unsharedString(head: innerHead, at: innerAt, what) else {
                throw error(.nilSharedString(what: what), at: innerAt)
            }
            try count()
            if definedStrings == sharedStrings.count {
                sharedStrings.append(string)
                entries.defineString(string, at: at)
            }
            definedStrings += 1
            return (string, definedStrings - 1)
        default:
            let index = try referenceIndex(head: head, at: at, what)
            guard index < definedStrings else {
                throw error(.sharedStringReference(what: what, index: index, defined: definedStrings), at: at)
            }
            return (sharedStrings[index], index)
        }
    }

    /// Decodes a back-reference number into a zero-based index.
    mutating func referenceIndex(head: UInt8, at: Int, _ what: String) throws(PFError) -> Int {
        let number = try scanner.signed(head: head, at: at, what)
        let (index, overflow) = number.subtractingReportingOverflow(TypedStreamTag.firstReference)
        guard !overflow, index >= 0, index <= Int64(Int32.max) else {
            throw error(.referenceNumber(number), at: at)
        }
        return Int(index)
    }

    mutating func tableReference(head: UInt8, at: Int, kind: TypedStreamEntryKind) throws(PFError) -> Int {
        let index = try referenceIndex(head: head, at: at, "a reference to a \(kind.rawValue)")
        guard index < entries.count else {
            throw error(.referenceOutOfRange(kind: kind.rawValue, index: index, entries: entries.count), at: at)
        }
        let found = entries.kind(index)
        guard found == kind else {
            throw error(.referenceKind(index: index, expected: kind.rawValue, found: found.rawValue), at: at)
        }
        return index
    }

    // MARK: - Groups

    mutating func readGroup(head: UInt8, at: Int) throws(PFError) -> TypedStreamGroup {
        guard let (text, index) = try sharedString(head: head, at: at, "a type-encoding string") else {
            throw error(.nilTypeEncoding, at: at)
        }
        let encodings: [TypeEncoding]
        if let cached = parsedEncodings[index] {
            encodings = cached
        } else {
            encodings = try TypeEncoding.parseList(text, limits: limits, offset: at)
            parsedEncodings[index] = encodings
        }
        var values: [TypedStreamValue] = []
        for encoding in encodings { values.append(try readValue(encoding)) }
        return TypedStreamGroup(encodings: encodings, values: values, offset: at)
    }

    // MARK: - Values

    mutating func readValue(_ encoding: TypeEncoding) throws(PFError) -> TypedStreamValue {
        try count()
        switch encoding {
        case .scalar(let c):
            return try readScalar(c)
        case .array(let n, let element):
            let at = scanner.offset
            if case .scalar(let c) = element, c == UInt8(ascii: "c") || c == UInt8(ascii: "C") {
                guard n <= limits.maxStringBytes else {
                    throw PFLimits.exceeded("maxStringBytes", limits.maxStringBytes, format: .typedstream, offset: at)
                }
                guard n <= scanner.remaining else {
                    throw error(.byteArrayTooLong(count: n, remaining: scanner.remaining), at: at)
                }
                return .byteArray(try scanner.take(n, "a byte array"))
            }
            guard element.consumesInput else {
                throw error(.zeroSizeArray(count: n, element: "\(element)"), at: at)
            }
            guard n <= scanner.remaining else {
                throw error(.arrayTooLong(count: n, remaining: scanner.remaining), at: at)
            }
            try enter(at: at)
            var out: [TypedStreamValue] = []
            for _ in 0..<n { out.append(try readValue(element)) }
            depth -= 1
            return .array(out)
        case .structure(let name, let fields):
            try enter(at: scanner.offset)
            var out: [TypedStreamValue] = []
            for field in fields { out.append(try readValue(field)) }
            depth -= 1
            return .structure(name: name, fields: out)
        }
    }

    mutating func readScalar(_ c: UInt8) throws(PFError) -> TypedStreamValue {
        let at = scanner.offset
        switch c {
        case UInt8(ascii: "c"): return .int(Int64(Int8(bitPattern: try scanner.byte("a char"))))
        case UInt8(ascii: "C"): return .uint(UInt64(try scanner.byte("an unsigned char")))
        case UInt8(ascii: "B"):
            let b = try scanner.byte("a bool")
            guard b <= 1 else { throw error(.boolByte(b), at: at) }
            return .bool(b == 1)
        case UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"):
            return .int(try scanner.signed("an integer"))
        case UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"):
            return .uint(try scanner.unsigned("an unsigned integer"))
        case UInt8(ascii: "f"): return .float(try scanner.float("a float"))
        case UInt8(ascii: "d"): return .double(try scanner.double("a double"))
        case UInt8(ascii: "+"):
            let head = try scanner.byte("a byte string")
            return try scanner.unsharedString(head: head, at: at, "a byte string").map { .bytes($0) } ?? .null
        case UInt8(ascii: "%"), UInt8(ascii: ":"):
            let head = try scanner.byte("a shared string")
            let string = try sharedString(head: head, at: at, "a shared string")?.bytes
            return c == UInt8(ascii: "%") ? .atom(string) : .selector(string)
        case UInt8(ascii: "*"): return try readCString()
        case UInt8(ascii: "#"):
            let head = try scanner.byte("a class")
            return try readClass(head: head, at: at).map { .class($0) } ?? .null
        case UInt8(ascii: "@"): return try readObject()
        default: return .ignored  // '!': nothing stored
        }
    }

    mutating func readCString() throws(PFError) -> TypedStreamValue {
        let at = scanner.offset
        let head = try scanner.byte("a C string")
        switch head {
        case TypedStreamTag.null: return .null
        case TypedStreamTag.new:
            let innerAt = scanner.offset
            let innerHead = try scanner.byte("a C string")
            guard let (string, sharedIndex) = try sharedString(head: innerHead, at: innerAt, "a C string") else {
                throw error(.nilCString, at: innerAt)
            }
            guard !string.contains(0) else { throw error(.zeroInCString, at: innerAt) }
            try count()
            entries.appendCString(string, sharedIndex: sharedIndex, at: at)
            return .cString(string)
        default:
            let index = try tableReference(head: head, at: at, kind: .cString)
            return .cString(entries.cString(index))
        }
    }

    /// Reads a class: a chain of NEW name/version entries ended by NIL (a root class) or a
    /// reference to a class defined before this chain began. Returns its entry index.
    mutating func readClass(head firstHead: UInt8, at firstAt: Int) throws(PFError) -> Int? {
        var head = firstHead
        var at = firstAt
        let chainStart = entries.count
        var chain: [Int] = []
        while head == TypedStreamTag.new {
            guard chain.count < limits.maxDepth else {
                throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: .typedstream, offset: at)
            }
            let nameAt = scanner.offset
            let nameHead = try scanner.byte("a class name")
            guard let (name, _) = try sharedString(head: nameHead, at: nameAt, "a class name") else {
                throw error(.nilClassName, at: nameAt)
            }
            let version = try scanner.signed("a class version")
            try count()
            chain.append(
                entries.appendClass(
                    TypedStreamClass(name: String(decoding: name, as: UTF8.self), version: Int(truncatingIfNeeded: version), superclass: nil), at: at))
            at = scanner.offset
            head = try scanner.byte("a superclass")
        }
        var terminator: Int?
        if head != TypedStreamTag.null {
            let index = try tableReference(head: head, at: at, kind: .class)
            guard index < chainStart else {
                throw error(.superclassCycle(index: index), at: at)
            }
            terminator = index
        }
        for (position, index) in chain.enumerated() {
            entries.setSuperclass(index, position + 1 < chain.count ? chain[position + 1] : terminator)
        }
        return chain.first ?? terminator
    }

    mutating func readObject() throws(PFError) -> TypedStreamValue {
        let at = scanner.offset
        let head = try scanner.byte("an object")
        switch head {
        case TypedStreamTag.null: return .null
        case TypedStreamTag.new:
            if let skipped = entries.skipObject(at: at) {
                // Replaying an object: a literal nested in it is stepped over, as read before.
                scanner.offset = skipped.end
                definedStrings = skipped.definedStrings
                return .object(skipped.index)
            }
            try enter(at: at)
            // The object's number is taken before its class is read, as NSArchiver numbers it.
            try count()
            let index = entries.appendObject(at: at)
            let classAt = scanner.offset
            let classHead = try scanner.byte("the class of an object")
            guard let classIndex = try readClass(head: classHead, at: classAt) else {
                throw error(.nilClass, at: classAt)
            }
            var groups: [TypedStreamGroup] = []
            while true {
                let groupAt = scanner.offset
                let groupHead = try scanner.byte("an object's values or END (0x86)")
                if groupHead == TypedStreamTag.endOfObject { break }
                groups.append(try readGroup(head: groupHead, at: groupAt))
            }
            entries.finishObject(index, TypedStreamObject(classIndex: classIndex, groups: groups, offset: at), end: scanner.offset)
            depth -= 1
            return .object(index)
        default:
            return .object(try tableReference(head: head, at: at, kind: .object))
        }
    }
}

extension TypedStreamReader<TypedStreamWholeTable> {
    /// Reads a document from bytes.
    static func read(_ data: Data, limits: PFLimits, headerOnly: Bool = false) throws(PFError) -> TypedStreamDocument {
        guard data.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: .typedstream, offset: 0)
        }
        return try data.withBytes { buffer throws(PFError) -> TypedStreamDocument in
            var reader = TypedStreamReader(bytes: buffer, limits: limits, table: TypedStreamWholeTable())
            let header = try reader.readHeader()
            if headerOnly { return TypedStreamDocument(header: header, entries: [], roots: []) }
            let roots = try reader.readRoots()
            return TypedStreamDocument(header: header, entries: reader.entries.entries, roots: roots)
        }
    }
}
