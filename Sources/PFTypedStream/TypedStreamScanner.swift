import PFCore

/// Reads typedstream primitives (head bytes, integers, floats, strings) from a byte buffer
/// with every read bounds-checked; nothing is allocated before the bytes are known to exist.
struct TypedStreamScanner {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    var bigEndian = false
    let limits: PFLimits

    init(bytes: UnsafeRawBufferPointer, limits: PFLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    var remaining: Int { bytes.count - offset }
    var atEnd: Bool { offset >= bytes.count }

    static func error(_ failure: TypedStreamFailure, at offset: Int) -> PFError {
        PFError(failure, format: .typedstream, offset: offset)
    }

    func truncated(_ what: String, need: Int) -> PFError {
        Self.error(.truncated(what: what, need: need, remaining: remaining), at: offset)
    }

    // MARK: - Bytes

    mutating func byte(_ what: String) throws(PFError) -> UInt8 {
        guard offset < bytes.count else { throw truncated(what, need: 1) }
        let b = bytes[offset]
        offset += 1
        return b
    }

    func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func take(_ count: Int, _ what: String) throws(PFError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw truncated(what, need: count) }
        let out = Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
        offset += count
        return out
    }

    mutating func fixed(_ count: Int, _ what: String) throws(PFError) -> UInt64 {
        guard count <= remaining else { throw truncated(what, need: count) }
        var value: UInt64 = 0
        for i in 0..<count {
            let b = UInt64(bytes[offset + i])
            value |= bigEndian ? b << UInt64(8 * (count - 1 - i)) : b << UInt64(8 * i)
        }
        offset += count
        return value
    }

    // MARK: - Integers

    /// Reads a signed integer whose head byte was already read at `headOffset`.
    mutating func signed(head: UInt8, at headOffset: Int, _ what: String) throws(PFError) -> Int64 {
        switch head {
        case TypedStreamTag.int16: return Int64(Int16(truncatingIfNeeded: try fixed(2, what)))
        case TypedStreamTag.int32: return Int64(Int32(truncatingIfNeeded: try fixed(4, what)))
        case TypedStreamTag.int64: return Int64(bitPattern: try fixed(8, what))
        default:
            guard !TypedStreamTag.isTag(head) else { throw unexpectedTag(head, at: headOffset, expected: what) }
            return Int64(Int8(bitPattern: head))
        }
    }

    /// Reads an unsigned integer (narrow forms are zero-extended) whose head byte was read.
    mutating func unsigned(head: UInt8, at headOffset: Int, _ what: String) throws(PFError) -> UInt64 {
        switch head {
        case TypedStreamTag.int16: return try fixed(2, what)
        case TypedStreamTag.int32: return try fixed(4, what)
        case TypedStreamTag.int64: return try fixed(8, what)
        default:
            guard !TypedStreamTag.isTag(head) else { throw unexpectedTag(head, at: headOffset, expected: what) }
            return UInt64(head)
        }
    }

    mutating func signed(_ what: String) throws(PFError) -> Int64 {
        let at = offset
        return try signed(head: try byte(what), at: at, what)
    }

    mutating func unsigned(_ what: String) throws(PFError) -> UInt64 {
        let at = offset
        return try unsigned(head: try byte(what), at: at, what)
    }

    func unexpectedTag(_ head: UInt8, at offset: Int, expected: String) -> PFError {
        Self.error(.unexpectedTag(head, expected: expected), at: offset)
    }

    // MARK: - Floating point

    mutating func float(_ what: String) throws(PFError) -> Float {
        let at = offset
        let head = try byte(what)
        if head == TypedStreamTag.floatingPoint { return Float(bitPattern: UInt32(truncatingIfNeeded: try fixed(4, what))) }
        return Float(try signed(head: head, at: at, what))
    }

    mutating func double(_ what: String) throws(PFError) -> Double {
        let at = offset
        let head = try byte(what)
        if head == TypedStreamTag.floatingPoint { return Double(bitPattern: try fixed(8, what)) }
        return Double(try signed(head: head, at: at, what))
    }

    // MARK: - Strings

    /// Reads a length-prefixed byte string whose head byte was read; `nil` for NIL.
    mutating func unsharedString(head: UInt8, at headOffset: Int, _ what: String) throws(PFError) -> [UInt8]? {
        if head == TypedStreamTag.null { return nil }
        let length = try unsigned(head: head, at: headOffset, "the length of \(what)")
        guard length <= UInt64(remaining) else {
            throw Self.error(.stringTooLong(what: what, length: length, remaining: remaining), at: headOffset)
        }
        guard length <= UInt64(limits.maxStringBytes) else {
            throw PFLimits.exceeded("maxStringBytes", limits.maxStringBytes, format: .typedstream, offset: headOffset)
        }
        return try take(Int(length), what)
    }
}
