import Foundation
import PFCore

/// Decodes a typedstream into Swift values in the order they were written, with secure
/// decoding: only classes in the ``ClassicClassRegistry`` are instantiated, every group's
/// type is checked against what the caller asks for, and every reference was bounds-checked
/// when the stream was read.
///
/// ```swift
/// let point = try ClassicUnarchiver.unarchivedObject(ofType: Point3.self, from: data,
///                                                    registry: ClassicClassRegistry([Point3.self]))
/// ```
public final class ClassicUnarchiver {
    struct Frame {
        var groups: [TypedStreamGroup]
        var next = 0
        var objectIndex: Int?
        var className: String
        var endOffset: Int
    }

    /// The stream, read without instantiating anything.
    public let document: TypedStreamDocument
    /// The classes that may be instantiated.
    public let registry: ClassicClassRegistry
    let limits: PFLimits
    var frames: [Frame]
    var cache: [Int: Any] = [:]
    var inProgress: Set<Int> = []
    var deferred: [() throws -> Void] = []
    var decodedInstances: [any ClassicArchiveCoding] = []
    /// How often each object is reached from the roots, counted once when a tree is first
    /// read (``PFCore/PFValue/classicRead(from:objectAt:)``).
    lazy var referenceCounts: TypedStreamReferenceCounts = TypedStreamValueConverter<TypedStreamDocument>.referenceCounts(document, limits: limits)

    /// Makes an unarchiver over a document, positioned at its first root group.
    /// - Parameters:
    ///   - document: the stream.
    ///   - registry: the classes that may be instantiated.
    ///   - limits: `maxDepth` bounds nested `init(from:)` calls.
    public init(document: TypedStreamDocument, registry: ClassicClassRegistry = ClassicClassRegistry(), limits: PFLimits = .default) {
        self.document = document
        self.registry = registry
        self.limits = limits
        frames = [Frame(groups: document.roots, className: "(root)", endOffset: document.roots.last?.offset ?? 0)]
    }

    /// Decodes the root object of a stream (its first group, which must be `@`).
    /// - Parameters:
    ///   - type: the expected type.
    ///   - data: the typedstream.
    ///   - registry: the classes that may be instantiated.
    ///   - limits: budgets.
    /// - Returns: the root value.
    /// - Throws: ``PFError`` — `syntax`/`truncated`/`invalidValue` for a malformed stream or a
    ///   type mismatch (with the byte offset), `disallowed` for a class outside the registry,
    ///   `limitExceeded` for budgets — or any error an ``ClassicArchiveCoding/init(from:)`` throws.
    public static func unarchivedObject<T: ClassicRepresentable>(
        ofType type: T.Type, from data: Data, registry: ClassicClassRegistry = ClassicClassRegistry(), limits: PFLimits = .default
    ) throws -> T {
        let document = try TypedStreamReader.read(data, limits: limits)
        let unarchiver = ClassicUnarchiver(document: document, registry: registry, limits: limits)
        guard let value = try unarchiver.decode(type) else {
            throw PFError(TypedStreamFailure.nilRoot(expected: "\(T.self)"), format: .typedstream, offset: document.roots.first?.offset ?? 0)
        }
        try unarchiver.finish()
        return value
    }

    /// Runs deferred references, then every decode hook.
    /// - Throws: what the closures and hooks throw.
    public func finish() throws {
        while !deferred.isEmpty {
            let batch = deferred
            deferred = []
            for assign in batch { try assign() }
        }
        for instance in decodedInstances { try instance.classicDidDecode() }
        decodedInstances.removeAll()
    }

    /// Always `false`: this coder is order-dependent.
    public var allowsKeyedCoding: Bool { false }

    /// The system version from the stream's header.
    public var systemVersion: Int { document.header.systemVersion }

    /// The version the stream records for a class (`-[NSCoder versionForClassName:]`).
    /// - Parameter name: the class name.
    /// - Returns: the version of the first class of that name in the stream, or `nil`.
    public func version(forClassName name: String) -> Int? {
        for entry in document.entries {
            if case .class(let c) = entry, c.name == name { return c.version }
        }
        return nil
    }

    // MARK: - Groups

    /// Whether the object being decoded has groups left.
    public var hasMoreValues: Bool {
        guard let frame = frames.last else { return false }
        return frame.next < frame.groups.count
    }

    /// The encodings of the next group, without consuming it.
    public var nextEncodings: [TypeEncoding]? {
        guard let frame = frames.last, frame.next < frame.groups.count else { return nil }
        return frame.groups[frame.next].encodings
    }

    func failure(_ failure: TypedStreamFailure, offset: Int? = nil) -> PFError {
        let frame = frames.last
        let at: Int
        if let offset {
            at = offset
        } else if let frame, frame.next < frame.groups.count {
            at = frame.groups[frame.next].offset
        } else {
            at = frame?.endOffset ?? 0
        }
        var path = PFKeyPath.root
        for f in frames.dropFirst() { path = path.appending(key: "\(f.className)#\(f.objectIndex ?? 0)") }
        return PFError(failure, format: .typedstream, offset: at, path: path)
    }

    /// Consumes the next group, which must have exactly these encodings.
    /// - Parameter types: the expected encodings (struct names are not compared when the
    ///   stream's is `?` or absent).
    /// - Returns: the values.
    /// - Throws: ``PFError`` `invalidValue` naming the expected and found types and the offset.
    public func decodeValues(ofTypes types: [TypeEncoding]) throws(PFError) -> [TypedStreamValue] {
        guard let last = frames.indices.last, frames[last].next < frames[last].groups.count else {
            throw failure(.noMoreValues(in: frames.last?.className ?? "the stream", expected: types.map(\.description).joined()))
        }
        let group = frames[last].groups[frames[last].next]
        guard group.encodings.count == types.count, zip(group.encodings, types).allSatisfy({ Self.matches($0, $1) }) else {
            throw failure(.groupMismatch(expected: types.map(\.description).joined(), found: group.encodingString))
        }
        frames[last].next += 1
        return resolvingClasses(group).values
    }

    static func matches(_ found: TypeEncoding, _ expected: TypeEncoding) -> Bool {
        switch (found, expected) {
        case (.structure(let n1, let f1), .structure(let n2, let f2)):
            return (n1 == nil || n1 == "?" || n2 == nil || n1 == n2) && f1.count == f2.count && zip(f1, f2).allSatisfy { matches($0, $1) }
        case (.array(let c1, let e1), .array(let c2, let e2)): return c1 == c2 && matches(e1, e2)
        default: return found == expected
        }
    }

    /// Consumes the next group, which must hold one value of this type.
    /// - Parameter type: the expected encoding.
    /// - Returns: the value.
    /// - Throws: ``PFError`` `invalidValue` when the group has another type.
    public func decodeValue(ofType type: TypeEncoding) throws(PFError) -> TypedStreamValue {
        let values = try decodeValues(ofTypes: [type])
        return values.first ?? .null
    }

    /// Consumes the next group whatever its types (for generic readers).
    /// - Returns: the group.
    /// - Throws: ``PFError`` `invalidValue` when the object has no groups left.
    public func decodeNextGroup() throws(PFError) -> TypedStreamGroup {
        guard let last = frames.indices.last, frames[last].next < frames[last].groups.count else {
            throw failure(.noMoreValues(in: frames.last?.className ?? "the stream", expected: nil))
        }
        frames[last].next += 1
        return resolvingClasses(frames[last].groups[frames[last].next - 1])
    }

    /// Consumes the next group whatever its types, with every value resolved so it means
    /// something outside this stream: class values (`#`) as their chains
    /// (``TypedStreamValue/classChain(_:)``) and objects (`@`) as their value trees
    /// (``TypedStreamValue/tree(_:)``, an object shared elsewhere in the stream with its
    /// `$id`), read as ``ClassicExactValue`` reads them so they are written back as the same
    /// classes and number encodings. What a generated class keeps for a group it has no Swift type for, and writes
    /// back with ``ClassicArchiver/encodeValues(ofTypes:_:)``; ``decodeNextGroup()`` leaves
    /// objects as indices into this stream's table, for a reader that decodes them itself.
    /// - Returns: the group.
    /// - Throws: ``PFError`` `invalidValue` when the object has no groups left, or what
    ///   reading an object's tree throws (`limitExceeded`).
    public func decodeDetachedGroup() throws -> TypedStreamGroup {
        var group = try decodeNextGroup()
        guard group.encodings.contains(where: \.holdsObject) else { return group }
        func resolve(_ value: TypedStreamValue) throws -> TypedStreamValue {
            switch value {
            case .object(let index): return .tree(try ClassicExactValue.classicRead(from: self, objectAt: index).tree)
            case .array(let items): return .array(try items.map(resolve))
            case .structure(let name, let fields): return .structure(name: name, fields: try fields.map(resolve))
            default: return value
            }
        }
        group.values = try group.values.map(resolve)
        return group
    }

    /// A group with its class values (`#`) resolved to their chains
    /// (``TypedStreamValue/classChain(_:)``): an index into this stream's table means nothing
    /// to a caller that writes the group into another stream.
    func resolvingClasses(_ group: TypedStreamGroup) -> TypedStreamGroup {
        // Most groups hold no class; they go back as they are, without copying.
        guard group.encodings.contains(where: \.holdsClass) else { return group }
        func resolve(_ value: TypedStreamValue) -> TypedStreamValue {
            switch value {
            case .class(let index):
                return .classChain(document.classChain(index).map { ClassicClassVersion($0.name, version: $0.version) })
            case .array(let items): return .array(items.map(resolve))
            case .structure(let name, let fields): return .structure(name: name, fields: fields.map(resolve))
            default: return value
            }
        }
        var out = group
        out.values = group.values.map(resolve)
        return out
    }

    // MARK: - Scalars

    func decodeSigned(_ name: String) throws(PFError) -> (Int64, Int) {
        let group = try decodeNextGroup()
        guard group.encodings.count == 1, let e = group.encodings.first, e.isSignedInteger || e == .scalar(UInt8(ascii: "B")),
            let v = group.values.first
        else { throw failure(.expectedSignedGroup(expected: name, found: group.encodingString), offset: group.offset) }
        switch v {
        case .int(let i): return (i, group.offset)
        case .bool(let b): return (b ? 1 : 0, group.offset)
        default: throw failure(.expectedValue(expected: name, found: "\(v)"), offset: group.offset)
        }
    }

    func decodeUnsigned(_ name: String) throws(PFError) -> (UInt64, Int) {
        let group = try decodeNextGroup()
        guard group.encodings.count == 1, let e = group.encodings.first, e.isUnsignedInteger, case .uint(let u)? = group.values.first else {
            throw failure(.expectedUnsignedGroup(expected: name, found: group.encodingString), offset: group.offset)
        }
        return (u, group.offset)
    }

    func narrow<T: FixedWidthInteger>(_ type: T.Type) throws(PFError) -> T {
        if T.isSigned {
            let (v, at) = try decodeSigned("\(T.self)")
            guard let out = T(exactly: v) else { throw failure(.doesNotFit(value: "\(v)", type: "\(T.self)"), offset: at) }
            return out
        }
        let (v, at) = try decodeUnsigned("\(T.self)")
        guard let out = T(exactly: v) else { throw failure(.doesNotFit(value: "\(v)", type: "\(T.self)"), offset: at) }
        return out
    }

    /// Decodes a signed integer group of any width (`c s i l q`) that fits `Int8`.
    public func decode(_ type: Int8.Type) throws(PFError) -> Int8 { try narrow(type) }
    /// Decodes a signed integer group that fits `Int16`.
    public func decode(_ type: Int16.Type) throws(PFError) -> Int16 { try narrow(type) }
    /// Decodes a signed integer group that fits `Int32`.
    public func decode(_ type: Int32.Type) throws(PFError) -> Int32 { try narrow(type) }
    /// Decodes a signed integer group.
    public func decode(_ type: Int64.Type) throws(PFError) -> Int64 { try narrow(type) }
    /// Decodes a signed integer group that fits `Int`.
    public func decode(_ type: Int.Type) throws(PFError) -> Int { try narrow(type) }
    /// Decodes an unsigned integer group (`C S I L Q`) that fits `UInt8`.
    public func decode(_ type: UInt8.Type) throws(PFError) -> UInt8 { try narrow(type) }
    /// Decodes an unsigned integer group that fits `UInt16`.
    public func decode(_ type: UInt16.Type) throws(PFError) -> UInt16 { try narrow(type) }
    /// Decodes an unsigned integer group that fits `UInt32`.
    public func decode(_ type: UInt32.Type) throws(PFError) -> UInt32 { try narrow(type) }
    /// Decodes an unsigned integer group.
    public func decode(_ type: UInt64.Type) throws(PFError) -> UInt64 { try narrow(type) }
    /// Decodes an unsigned integer group that fits `UInt`.
    public func decode(_ type: UInt.Type) throws(PFError) -> UInt { try narrow(type) }

    /// Decodes a `BOOL` (`c` 0 or 1) or C99 `bool` (`B`).
    /// - Throws: ``PFError`` `invalidValue` for another type or a char other than 0 and 1.
    public func decode(_ type: Bool.Type) throws(PFError) -> Bool {
        let (v, at) = try decodeSigned("a BOOL")
        guard v == 0 || v == 1 else { throw failure(.boolValue(v), offset: at) }
        return v == 1
    }

    /// Decodes a double group (`d`; a float group `f` is widened).
    /// - Throws: ``PFError`` `invalidValue` for another type.
    public func decode(_ type: Double.Type) throws(PFError) -> Double {
        let group = try decodeNextGroup()
        switch (group.encodings.first, group.values.first) {
        case (.scalar(UInt8(ascii: "d"))?, .double(let d)?): return d
        case (.scalar(UInt8(ascii: "f"))?, .float(let f)?): return Double(f)
        default: throw failure(.expectedDouble(found: group.encodingString), offset: group.offset)
        }
    }

    /// Decodes a float group (`f`).
    /// - Throws: ``PFError`` `invalidValue` for another type.
    public func decode(_ type: Float.Type) throws(PFError) -> Float {
        guard case .float(let f) = try decodeValue(ofType: .float) else { throw failure(.expectedFloat) }
        return f
    }

    /// Decodes raw bytes with a length (type `+`).
    /// - Returns: the bytes, or `nil` when NIL was written.
    /// - Throws: ``PFError`` `invalidValue` for another type.
    public func decodeBytes() throws(PFError) -> Data? {
        switch try decodeValue(ofType: .bytes) {
        case .bytes(let b): return Data(b)
        default: return nil
        }
    }

    /// Decodes a data object (`-[NSCoder decodeDataObject]`): an `i` length group, then a
    /// `[Nc]` group of that length.
    /// - Throws: ``PFError`` `invalidValue` for a negative length or a mismatched array.
    public func decodeDataObject() throws(PFError) -> Data {
        let (length, at) = try decodeSigned("a data length")
        guard length >= 0, length <= Int64(limits.maxStringBytes) else {
            throw failure(.dataLength(length, maximum: limits.maxStringBytes), offset: at)
        }
        guard case .byteArray(let bytes) = try decodeValue(ofType: .byteArray(Int(length))) else {
            throw failure(.expectedBytes(length))
        }
        return Data(bytes)
    }

    /// Decodes a C string (type `*`).
    /// - Returns: the string, or `nil` when NIL was written.
    /// - Throws: ``PFError`` `invalidValue` for another type or bytes that are not UTF-8.
    public func decodeCString() throws(PFError) -> String? {
        switch try decodeValue(ofType: .cString) {
        case .cString(let s):
            guard let string = String(validating: s, as: UTF8.self) else { throw failure(.cStringNotUTF8) }
            return string
        default: return nil
        }
    }

    // MARK: - Objects

    /// Decodes the next object group (`@`) as `T`; `nil` when NIL was written.
    /// - Parameter type: the expected type.
    /// - Returns: the value, shared with earlier decodes of the same object.
    /// - Throws: ``PFError`` `invalidValue` for another type (or an object still being
    ///   decoded: a cycle, which ``decodeReference(_:assign:)`` handles), `disallowed` for a
    ///   class outside the registry.
    public func decode<T: ClassicRepresentable>(_ type: T.Type) throws -> T? {
        switch try decodeValue(ofType: .object) {
        case .object(let index): return try decodeObject(type, at: index)
        default: return nil
        }
    }

    /// Consumes the next object group now and decodes it once every object exists:
    /// `assign` runs in phase two. Use it for back-pointers and cycles.
    /// - Parameters:
    ///   - type: the expected type.
    ///   - assign: receives the object (or `nil`).
    /// - Throws: ``PFError`` `invalidValue` when the next group is not an object.
    public func decodeReference<T: ClassicRepresentable>(_ type: T.Type, assign: @escaping (T?) throws -> Void) throws {
        let value = try decodeValue(ofType: .object)
        deferred.append { [unowned self] in
            guard case .object(let index) = value else { return try assign(nil) }
            try assign(try self.decodeObject(T.self, at: index))
        }
    }

    /// Decodes the object at an index of the object table as `T`, from the cache when
    /// already decoded.
    /// - Throws: ``PFError`` as ``decode(_:)``.
    public func decodeObject<T: ClassicRepresentable>(_ type: T.Type, at index: Int) throws -> T {
        if let cached = cache[index] {
            if let value = cached as? T { return value }
            if Swift.type(of: cached) is AnyClass {
                throw failure(.objectType(expected: "\(T.self)", found: "\(Swift.type(of: cached))", index: index))
            }
        }
        let value = try T.classicRead(from: self, objectAt: index)
        if cache[index] == nil { cache[index] = value }
        return value
    }

    /// The class chain of the object at an index, most derived first.
    public func classChain(ofObject index: Int) -> [TypedStreamClass] { document.classChain(ofObject: index) }

    /// Runs `body` with the unarchiver positioned at the first group of the object at
    /// `index`, and checks that `body` consumed every group: the way Foundation values and
    /// ``ClassicArchiveCoding`` types read their contents.
    /// - Parameters:
    ///   - index: the object's entry.
    ///   - expecting: class names accepted for the object (empty: any).
    ///   - body: reads the groups; receives the class chain.
    /// - Returns: what `body` returns.
    /// - Throws: ``PFError`` `invalidValue` when the object is of another class, when `body`
    ///   leaves groups unread, or for a cycle; `limitExceeded` past `maxDepth`.
    public func withObject<R>(at index: Int, expecting: Set<String> = [], _ body: ([TypedStreamClass]) throws -> R) throws -> R {
        guard let object = document.objectEntry(index) else {
            throw failure(.notAnObject(index: index))
        }
        let chain = document.classChain(object.classIndex)
        let name = chain.first?.name ?? "?"
        guard expecting.isEmpty || expecting.contains(name) else {
            throw failure(.objectClass(expected: expecting.sorted(), found: name, index: index), offset: object.offset)
        }
        guard !inProgress.contains(index) else {
            throw failure(.selfReference(index: index, className: name), offset: object.offset)
        }
        guard frames.count <= limits.maxDepth else {
            throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: .typedstream, offset: object.offset)
        }
        inProgress.insert(index)
        let end = object.groups.last?.offset ?? object.offset
        frames.append(Frame(groups: object.groups, objectIndex: index, className: name, endOffset: end))
        defer {
            frames.removeLast()
            inProgress.remove(index)
        }
        let result = try body(chain)
        if let frame = frames.last, frame.next < frame.groups.count {
            throw failure(.unconsumedGroups(className: name, read: frame.next, total: frame.groups.count))
        }
        return result
    }

    /// Instantiates a registered class for the object at `index`: the secure-decoding gate.
    func instantiate<T: ClassicArchiveCoding>(_ type: T.Type, at index: Int) throws -> T {
        guard let object = document.objectEntry(index) else { throw failure(.notAnObject(index: index)) }
        let name = document.classEntry(object.classIndex)?.name ?? "?"
        guard let registered = registry.type(forClassName: name) else {
            throw PFError(TypedStreamFailure.classNotAllowed(name), format: .typedstream, offset: object.offset)
        }
        guard let concrete = registered as? T.Type else {
            throw failure(.objectType(expected: T.classicClassName, found: name, index: index), offset: object.offset)
        }
        let value = try withObject(at: index) { _ in try concrete.init(from: self) }
        if Swift.type(of: value) is AnyClass { decodedInstances.append(value) }
        return value
    }
}
