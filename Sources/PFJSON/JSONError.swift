import PFCore

/// Factory helpers for the errors the JSON reader and writer throw, in one place so every
/// message has the same shape: what went wrong, where, and what was expected.
enum JSONError {
    /// The `format` of every JSON error.
    static let format: PFError.Format = .json

    // MARK: - Positions

    /// The line and column of a byte offset, computed only when an error is built.
    static func location(_ offset: Int, in bytes: UnsafeRawBufferPointer) -> PFError.Location {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < end {
            if bytes[i] == UInt8(ascii: "\n") {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return PFError.Location(offset: offset, line: line, column: end - lineStart + 1)
    }

    /// An error at a byte offset, with line and column.
    static func make(_ failure: JSONFailure, offset: Int, in bytes: UnsafeRawBufferPointer,
                     path: PFKeyPath? = nil) -> PFError {
        PFError(failure, format: format, location: location(offset, in: bytes), path: path)
    }

    /// A limit error at a byte offset, with line and column.
    static func limit(_ name: String, _ value: Int, offset: Int, in bytes: UnsafeRawBufferPointer) -> PFError {
        var error = PFLimits.exceeded(name, value, format: format, offset: offset)
        error.location = location(offset, in: bytes)
        return error
    }

    /// A short, printable description of the byte at `offset` for "unexpected …" messages.
    static func describeByte(at offset: Int, in bytes: UnsafeRawBufferPointer) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count < 2 ? "0" + hex : hex)
    }

    /// "unexpected X; expected Y" at `offset` (a `truncated` error at the end of input).
    static func unexpected(at offset: Int, in bytes: UnsafeRawBufferPointer, expected: String) -> PFError {
        if offset >= bytes.count {
            return make(.unexpectedEnd(expected: expected), offset: offset, in: bytes)
        }
        return make(.unexpected(found: describeByte(at: offset, in: bytes), expected: expected), offset: offset, in: bytes)
    }

    // MARK: - Paths

    /// Builds a path from components gathered innermost first while an error unwinds.
    static func path(_ reversed: [PFKeyPath.Component]) -> PFKeyPath {
        PFKeyPath(reversed.reversed())
    }
}
