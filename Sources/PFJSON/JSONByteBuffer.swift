import PFCore

/// Where JSON text is appended: a `[UInt8]` (``JSONText``'s public functions), or the
/// writer's own ``JSONByteBuffer``. ``JSONText`` is written once against this, so both get
/// the same bytes.
protocol JSONByteSink {
    mutating func append(_ byte: UInt8)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>)
    /// Lets `body` write up to `maximum` bytes in place at the end; it returns how many it
    /// wrote.
    mutating func appendInPlace(maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int)
}

extension Array: JSONByteSink where Element == UInt8 {
    @inline(__always)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(contentsOf: bytes)
    }

    @inline(__always)
    mutating func appendInPlace(maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximum) { scratch in
            let n = body(scratch.baseAddress!)
            append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress!, count: n))
        }
    }
}

/// The native writer's output while it writes: a growing block of bytes that appends to
/// with a bounds check and a store, where a `[UInt8]` also checks that its storage is
/// unique on every append. The text moves to the caller's array in one copy at the end.
///
/// The buffer owns its memory and is not copyable in spirit: its one owner (a
/// ``JSONNativeWriter``, passed `inout`) calls ``deallocate()`` when done.
struct JSONByteBuffer: JSONByteSink {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 256)
        base = .allocate(capacity: self.capacity)
    }

    /// The bytes written so far (valid until the next append).
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    func deallocate() {
        base.deallocate()
    }

    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if capacity - count < n { grow(n) }
    }

    @inline(never)
    private mutating func grow(_ n: Int) {
        let newCapacity = max(capacity * 2, count + n)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func appendInPlace(maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maximum)
        count += body(base + count)
    }
}
