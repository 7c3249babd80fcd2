// MARK: - UTF-8 validation

/// A UTF-8 validator that reports where the first bad byte is (RFC 3629: no overlong forms,
/// no surrogates, nothing above U+10FFFF).
enum UTF8Check {
    /// Whether all `count` bytes at `p` are ASCII.
    @inline(__always)
    static func isASCII(_ p: UnsafePointer<UInt8>, count n: Int) -> Bool {
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The index of the first byte that is not part of a valid UTF-8 sequence, or `nil` when
    /// all `count` bytes at `p` are valid.
    @inline(__always)
    static func firstInvalid(_ p: UnsafePointer<UInt8>, count n: Int) -> Int? {
        var i = 0
        // ASCII runs eight bytes at a time.
        while i + 8 <= n {
            let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < n {
            if p[i] < 0x80 {
                i += 1
                continue
            }
            return slowPath(p, count: n, from: i)
        }
        return nil
    }

    static func slowPath(_ p: UnsafePointer<UInt8>, count n: Int, from start: Int) -> Int? {
        var i = start
        while i < n {
            let b0 = p[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            if b0 < 0xC2 { return i }
            if b0 < 0xE0 {
                guard i + 1 < n, p[i + 1] & 0xC0 == 0x80 else { return i }
                i += 2
            } else if b0 < 0xF0 {
                guard i + 2 < n else { return i }
                let lo: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
                let hi: UInt8 = b0 == 0xED ? 0x9F : 0xBF
                guard p[i + 1] >= lo, p[i + 1] <= hi, p[i + 2] & 0xC0 == 0x80 else { return i }
                i += 3
            } else if b0 < 0xF5 {
                guard i + 3 < n else { return i }
                let lo: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
                let hi: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
                guard p[i + 1] >= lo, p[i + 1] <= hi, p[i + 2] & 0xC0 == 0x80, p[i + 3] & 0xC0 == 0x80 else {
                    return i
                }
                i += 4
            } else {
                return i
            }
        }
        return nil
    }
}
