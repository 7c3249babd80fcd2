import Foundation
import OrderedCollections
import PFCore

// MARK: - Elements

/// The elements of the property-list vocabulary.
enum XMLPlistElement: UInt8, Sendable {
    case plist, dict, key, array, string, integer, real, `true`, `false`, date, data

    /// The element's tag name.
    var name: String {
        switch self {
        case .plist: "plist"
        case .dict: "dict"
        case .key: "key"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .true: "true"
        case .false: "false"
        case .date: "date"
        case .data: "data"
        }
    }

    /// Recognises a tag name (case-sensitive, as XML is).
    static func named(_ name: UnsafeRawBufferPointer) -> XMLPlistElement? {
        guard let first = name.first else { return nil }
        let candidate: XMLPlistElement
        switch (first, name.count) {
        case (UInt8(ascii: "p"), 5): candidate = .plist
        case (UInt8(ascii: "d"), 4):
            guard name.count > 2 else { return nil }
            switch name[2] {
            case UInt8(ascii: "c"): candidate = .dict
            case UInt8(ascii: "t"):
                guard name.count > 3 else { return nil }
                candidate = name[3] == UInt8(ascii: "e") ? .date : .data
            default: return nil
            }
        case (UInt8(ascii: "k"), 3): candidate = .key
        case (UInt8(ascii: "a"), 5): candidate = .array
        case (UInt8(ascii: "s"), 6): candidate = .string
        case (UInt8(ascii: "i"), 7): candidate = .integer
        case (UInt8(ascii: "r"), 4): candidate = .real
        case (UInt8(ascii: "t"), 4): candidate = .true
        case (UInt8(ascii: "f"), 5): candidate = .false
        default: return nil
        }
        return name.elementsEqual(candidate.name.utf8) ? candidate : nil
    }

    static let expectedList = "plist, dict, key, array, string, integer, real, true, false, date or data"
}

/// A start tag just read.
struct XMLPlistStartTag {
    var element: XMLPlistElement
    /// `<name/>`.
    var isEmpty: Bool
    /// Offset of the `<`.
    var offset: Int
}

/// An open `<array>` or `<dict>` on the scanner's stack.
struct XMLPlistFrame {
    var isDictionary: Bool
    var openOffset: Int
    var items: [PFValue] = []
    var members: OrderedDictionary<String, PFValue> = [:]
    /// The key read for the next value of a dictionary.
    var pendingKey: String?
    var keyOffset = 0
    /// Whether this array holds the records of a record-at-a-time read: its elements go to
    /// the reader's callback instead of `items`.
    var streams = false
    /// Elements handed to the callback.
    var streamed = 0
    /// Members counted and not kept, in a check (``XMLPlistScanner/check``).
    var checked = 0
    /// A checked dictionary's keys, hashed, for its repeated-key check.
    var keyHashes: Set<Int> = []
    /// Whether a checked dictionary's first member is `CF$UID` with an integer `N ≥ 0`.
    var uidMember = false

    var element: XMLPlistElement { isDictionary ? .dict : .array }
}

/// A growable byte buffer for text that needed decoding (entities, CDATA, comments inside
/// text). A class so its storage outlives the scanner's mutating calls without copying.
final class XMLPlistScratch {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 1024
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
    }

    deinit { base.deallocate() }

    func reset() { count = 0 }

    /// The bytes appended since the last reset, valid until the next append or reset.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    func append(_ source: UnsafeRawBufferPointer) {
        reserve(source.count)
        if let start = source.baseAddress, !source.isEmpty {
            (base + count).copyMemory(from: start, byteCount: source.count)
        }
        count += source.count
    }

    func append(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    func append(_ scalar: Unicode.Scalar) {
        // Every Unicode.Scalar has a UTF-8 encoding; the optional only exists for the API.
        guard let units = UTF8.encode(scalar) else { return }
        for unit in units { append(unit) }
    }

    // Growth is bounded by the input: decoded text is never longer than its source.
    private func reserve(_ extra: Int) {
        let needed = count + extra
        guard needed > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 1)
        newBase.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}

// MARK: - Scanner

/// The XML property-list scanner: a single pass over the bytes with an explicit stack of
/// open containers (so deep input cannot exhaust the call stack).
///
/// Every read of `bytes[i]` is preceded by a check that `i < count`.
struct XMLPlistScanner {
    static let formatName: PFError.Format = .xmlPlist

    let bytes: UnsafeRawBufferPointer
    let count: Int
    let limits: PFLimits
    var pos = 0
    var nodes = 0
    var stack: [XMLPlistFrame] = []
    let scratch = XMLPlistScratch()
    /// Whether the records' array (the root, or a first `results` member of the root
    /// dictionary) hands its elements to ``readDocument(records:)``'s callback.
    var streamingRecords = false
    /// Set for a check: every check of a read, no values kept (``XMLPlistCheck``).
    var check: XMLPlistCheck?

    init(_ bytes: UnsafeRawBufferPointer, limits: PFLimits) {
        self.bytes = bytes
        self.count = bytes.count
        self.limits = limits
    }

    // MARK: Document

    /// - Parameters:
    ///   - streaming: whether the records' array (see `streamingRecords`) hands each element
    ///     to `records` instead of keeping it; the document's value then holds that array empty.
    ///   - records: receives the records when `streaming`.
    mutating func readDocument(
        streaming: Bool = false, records: (PFValue) throws(PFError) -> Void = { _ throws(PFError) in }
    ) throws(PFError) -> PFValue {
        streamingRecords = streaming
        try readProlog()
        guard pos < count else {
            throw fail(.endsBeforeRoot, at: pos)
        }
        guard bytes[pos] == UInt8(ascii: "<") else { throw unexpectedText(expected: "<plist> or a value") }
        var tag = try readStartTag()
        let inPlist = tag.element == .plist
        if inPlist {
            guard !tag.isEmpty else {
                throw fail(.emptyPlist, at: tag.offset)
            }
            try skipMisc()
            guard pos < count else { throw fail(.endsBeforePlistValue, at: pos) }
            if startsEndTag() {
                throw fail(.plistWithoutValue, at: pos)
            }
            guard bytes[pos] == UInt8(ascii: "<") else { throw unexpectedText(expected: "a value") }
            tag = try readStartTag()
        }
        let value = try readValue(startingWith: tag, records: records)
        if inPlist {
            try skipMisc()
            guard pos < count else { throw fail(.endsBeforePlistEnd, at: pos) }
            if startsEndTag() {
                try readEndTag(.plist, openOffset: 0)
            } else if pos + 1 >= count {
                throw fail(.endsBeforePlistEnd, at: pos)
            } else if bytes[pos] == UInt8(ascii: "<") {
                throw fail(.plistWithSeveralValues, at: pos)
            } else {
                throw unexpectedText(expected: "</plist>")
            }
        }
        try skipMisc()
        if pos < count {
            throw fail(.contentAfterRoot, at: pos)
        }
        return value
    }

    /// Byte order mark, XML declaration, comments, processing instructions and the DOCTYPE.
    mutating func readProlog() throws(PFError) {
        if hasPrefix([0xEF, 0xBB, 0xBF]) {
            pos = 3
        } else if hasPrefix([0xFE, 0xFF]) || hasPrefix([0xFF, 0xFE]) || hasPrefix([0, 0, 0xFE, 0xFF]) {
            throw fail(.utf16ByteOrderMark, at: 0)
        } else if count >= 2, bytes[0] == 0 || bytes[1] == 0 {
            throw fail(.utf16WithoutByteOrderMark, at: 0)
        }
        if hasPrefix(Array("<?xml".utf8), at: pos), pos + 5 < count,
            Self.isWhitespace(bytes[pos + 5]) || bytes[pos + 5] == UInt8(ascii: "?")
        {
            try readXMLDeclaration()
        }
        var sawDoctype = false
        while true {
            try skipMisc()
            guard hasPrefix(Array("<!DOCTYPE".utf8), at: pos) else { return }
            if sawDoctype { throw fail(.secondDoctype, at: pos) }
            sawDoctype = true
            try readDoctype()
        }
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="…"?>`: only UTF-8 is accepted.
    mutating func readXMLDeclaration() throws(PFError) {
        pos += 5
        while true {
            skipWhitespace()
            guard pos < count else { throw fail(.endsInsideXMLDeclaration, at: pos) }
            if bytes[pos] == UInt8(ascii: "?") {
                guard pos + 1 < count else { throw fail(.endsInsideXMLDeclaration, at: pos) }
                guard bytes[pos + 1] == UInt8(ascii: ">") else {
                    throw fail(.xmlDeclarationEndExpected, at: pos)
                }
                pos += 2
                return
            }
            let nameStart = pos
            while pos < count, Self.isNameByte(bytes[pos]) { pos += 1 }
            guard pos > nameStart else {
                throw fail(.xmlDeclarationCharacter, at: pos)
            }
            let name = String(decoding: slice(nameStart, pos), as: UTF8.self)
            let (valueStart, valueEnd) = try readAttributeValue()
            if name == "encoding" {
                let encoding = String(decoding: slice(valueStart, valueEnd), as: UTF8.self)
                guard encoding.lowercased() == "utf-8" else {
                    throw fail(.encoding(encoding), at: valueStart)
                }
            }
        }
    }

    /// `<!DOCTYPE plist PUBLIC "…" "…">`, skipped. An internal subset is skipped too unless it
    /// declares entities, which are refused: they are the vehicle of "billion laughs" attacks.
    mutating func readDoctype() throws(PFError) {
        let start = pos
        pos += 9
        while pos < count {
            let b = bytes[pos]
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                try skipQuoted()
            case UInt8(ascii: "["):
                pos += 1
                try skipInternalSubset()
            case UInt8(ascii: ">"):
                pos += 1
                return
            case UInt8(ascii: "<"):
                throw fail(.lessThanInDoctype, at: pos)
            default:
                pos += 1
            }
        }
        throw fail(.endsInsideDoctype, at: start)
    }

    mutating func skipInternalSubset() throws(PFError) {
        let start = pos
        while pos < count {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                try skipQuoted()
            } else if b == UInt8(ascii: "]") {
                pos += 1
                return
            } else if hasPrefix(Array("<!--".utf8), at: pos) {
                try skipComment()
            } else if hasPrefix(Array("<!ENTITY".utf8), at: pos) {
                throw fail(.entityDeclaration, at: pos)
            } else if b == UInt8(ascii: "%") {
                throw fail(.parameterEntity, at: pos)
            } else {
                pos += 1
            }
        }
        throw fail(.endsInsideInternalSubset, at: start)
    }

    // MARK: Values

    /// Reads the value whose start tag was just read, with an explicit stack for containers.
    mutating func readValue(
        startingWith first: XMLPlistStartTag, records: (PFValue) throws(PFError) -> Void = { _ throws(PFError) in }
    ) throws(PFError) -> PFValue {
        var next: XMLPlistStartTag? = first
        while true {
            if let tag = next {
                next = nil
                if let value = try readElement(tag) {
                    if stack.isEmpty { return value }
                    try deliver(value, records: records)
                }
            }
            // Inside the innermost open container: its next element or its end tag.
            let top = stack.count - 1
            guard top >= 0 else { throw fail(.noOpenContainer, at: pos) }
            try skipMisc()
            let isDictionary = stack[top].isDictionary
            guard pos < count else {
                let open = stack[top].openOffset
                throw fail(.endsInsideElement(element: stack[top].element.name, openedAt: lineColumnText(open)), at: pos)
            }
            guard bytes[pos] == UInt8(ascii: "<") else {
                if isDictionary {
                    throw unexpectedText(expected: stack[top].pendingKey == nil ? "<key> or </dict>" : "a value")
                }
                throw unexpectedText(expected: "a value or </array>")
            }
            if startsEndTag() {
                if isDictionary, let key = stack[top].pendingKey {
                    throw fail(.keyWithoutValue(key), at: pos)
                }
                try readEndTag(stack[top].element, openOffset: stack[top].openOffset)
                let frame = stack.removeLast()
                let value = check == nil ? Self.finish(frame) : checked(frame)
                if stack.isEmpty { return value }
                try deliver(value, records: records)
                continue
            }
            let tag = try readStartTag()
            if isDictionary, stack[top].pendingKey == nil {
                guard tag.element == .key else {
                    throw fail(.keyExpected(found: tag.element.name), at: tag.offset)
                }
                let key = tag.isEmpty ? "" : try readString(.key, openOffset: tag.offset)
                stack[top].pendingKey = key
                stack[top].keyOffset = tag.offset
                continue
            }
            next = tag
        }
    }

    /// Reads one element: a scalar's whole text, or opens a container (returning `nil`).
    mutating func readElement(_ tag: XMLPlistStartTag) throws(PFError) -> PFValue? {
        nodes += 1
        if nodes > limits.maxNodes {
            throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: Self.formatName, offset: tag.offset)
        }
        switch tag.element {
        case .array, .dict:
            if tag.isEmpty { return tag.element == .dict ? .dictionary([:]) : .array([]) }
            guard stack.count < limits.maxDepth else {
                throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: Self.formatName, offset: tag.offset)
            }
            var frame = XMLPlistFrame(isDictionary: tag.element == .dict, openOffset: tag.offset)
            if streamingRecords, tag.element == .array {
                frame.streams = stack.isEmpty
                    || (stack.count == 1 && stack[0].isDictionary && stack[0].members.isEmpty && stack[0].pendingKey == "results")
            }
            stack.append(frame)
            return nil
        case .string:
            return .string(tag.isEmpty ? "" : try readString(.string, openOffset: tag.offset))
        case .integer, .real, .date:
            guard !tag.isEmpty else {
                throw fail(.emptyScalar(element: tag.element.name), at: tag.offset)
            }
            let contentStart = pos
            let text = try readContent(tag.element, openOffset: tag.offset)
            switch tag.element {
            case .integer: return try parseInteger(text, at: contentStart)
            case .real: return try parseReal(text, at: contentStart)
            default: return try parseDate(text, at: contentStart)
            }
        case .data:
            if tag.isEmpty { return .data(Data()) }
            let contentStart = pos
            let text = try readContent(.data, openOffset: tag.offset)
            let decoded: Data
            do {
                decoded = try PFBase64.decode(text.bytes, ignoringWhitespace: true)
            } catch {
                let offset = text.isRaw ? contentStart + error.offset : contentStart
                throw fail(.invalidBase64(reason: error.reason), at: offset)
            }
            guard decoded.count <= limits.maxStringBytes else {
                throw PFLimits.exceeded("maxStringBytes", limits.maxStringBytes, format: Self.formatName, offset: contentStart)
            }
            return .data(decoded)
        case .true, .false:
            if !tag.isEmpty {
                skipWhitespace()
                guard startsEndTag() else {
                    throw fail(.notEmpty(element: tag.element.name), at: pos)
                }
                try readEndTag(tag.element, openOffset: tag.offset)
            }
            return .bool(tag.element == .true)
        case .key:
            throw fail(.keyOutsideDict, at: tag.offset)
        case .plist:
            throw fail(.nestedPlist, at: tag.offset)
        }
    }

    /// Adds a finished value to the innermost open container.
    mutating func deliver(_ value: PFValue, records: (PFValue) throws(PFError) -> Void) throws(PFError) {
        let top = stack.count - 1
        guard top >= 0 else { return }
        if stack[top].streams {
            guard stack[top].streamed < limits.maxCollectionCount else {
                throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.formatName, offset: pos)
            }
            try records(value)
            stack[top].streamed += 1
            return
        }
        if stack[top].isDictionary {
            guard let key = stack[top].pendingKey else {
                throw fail(.valueWithoutKey, at: pos)
            }
            stack[top].pendingKey = nil
            // Keys spelled differently that are one key to Swift ("caf\u{E9}", "cafe\u{301}")
            // cannot both be kept: named as such, not as a repeated key.
            if check == nil, let at = stack[top].members.index(forKey: key), PFEquivalentKeys.differ(stack[top].members.keys[at], key) {
                var error = PFEquivalentKeys.error(stack[top].members.keys[at], key, format: Self.formatName, offset: stack[top].keyOffset)
                error.path = PFKeyPath(currentPath() + [.key(key)])
                throw error
            }
            let repeated = check == nil ? stack[top].members.updateValue(value, forKey: key) != nil : try checkMember(key, value)
            if repeated {
                var error = fail(.duplicateKey(key), at: stack[top].keyOffset)
                error.path = PFKeyPath(currentPath() + [.key(key)])
                throw error
            }
            if stack[top].members.count + stack[top].checked > limits.maxCollectionCount {
                throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.formatName, offset: pos)
            }
        } else {
            if check == nil { stack[top].items.append(value) } else { stack[top].checked += 1 }
            if stack[top].items.count + stack[top].checked > limits.maxCollectionCount {
                throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.formatName, offset: pos)
            }
        }
    }

    /// A closed container's value; `<dict><key>CF$UID</key><integer>N</integer></dict>` with
    /// `N ≥ 0` is a UID.
    static func finish(_ frame: XMLPlistFrame) -> PFValue {
        guard frame.isDictionary else { return .array(frame.items) }
        if frame.members.count == 1, let only = frame.members.elements.first, only.key == "CF$UID" {
            switch only.value {
            case .int(let n) where n >= 0: return .uid(UInt64(n))
            case .uint(let n): return .uid(n)
            default: break
            }
        }
        return .dictionary(frame.members)
    }

    // MARK: Errors

    func fail(_ failure: XMLPlistFailure, at offset: Int) -> PFError {
        PFError(failure, format: Self.formatName, offset: offset)
    }

    func unexpectedText(expected: String) -> PFError {
        var end = pos
        while end < count, end - pos < 12, bytes[end] != UInt8(ascii: "<"), bytes[end] != 0x0A { end += 1 }
        let snippet = String(decoding: slice(pos, end), as: UTF8.self)
        return fail(.unexpectedText(snippet: snippet, expected: expected), at: pos)
    }

    /// The path of the value being read, from the open containers.
    func currentPath() -> [PFKeyPath.Component] {
        var components: [PFKeyPath.Component] = []
        for frame in stack {
            if frame.isDictionary {
                if let key = frame.pendingKey { components.append(.key(key)) }
            } else {
                components.append(.index(frame.items.count + frame.checked + frame.streamed))
            }
        }
        return components
    }

    /// Adds line, column and key path to an error thrown while scanning.
    func locate(_ error: PFError) -> PFError {
        var error = error
        if var location = error.location, location.line == nil {
            let (line, column) = lineColumn(location.offset)
            location.line = line
            location.column = column
            error.location = location
        }
        if error.path == nil, !stack.isEmpty {
            let path = currentPath()
            if !path.isEmpty { error.path = PFKeyPath(path) }
        }
        return error
    }

    /// One-based line and byte column of an offset (computed only when an error needs it).
    func lineColumn(_ offset: Int) -> (Int, Int) {
        let end = min(max(offset, 0), count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < end {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return (line, end - lineStart + 1)
    }

    func lineColumnText(_ offset: Int) -> String {
        let (line, column) = lineColumn(offset)
        return "line \(line), column \(column)"
    }

    // MARK: Byte helpers

    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D
    }

    @inline(__always)
    static func isNameByte(_ b: UInt8) -> Bool {
        // ASCII letters, digits, '-', '.', '_', ':' and any non-ASCII byte (names are
        // compared against the vocabulary afterwards, so a loose class is enough).
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x3A) || b == 0x2D || b == 0x2E
            || b == 0x5F || b >= 0x80
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while pos < count, Self.isWhitespace(bytes[pos]) { pos += 1 }
    }

    func slice(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    func hasPrefix(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
        guard offset >= 0, count - offset >= prefix.count else { return false }
        for (i, b) in prefix.enumerated() where bytes[offset + i] != b { return false }
        return true
    }

    @inline(__always)
    func startsEndTag() -> Bool {
        pos + 1 < count && bytes[pos] == UInt8(ascii: "<") && bytes[pos + 1] == UInt8(ascii: "/")
    }
}
