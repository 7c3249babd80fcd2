import Foundation
import PFCore

/// A `malloc`ed byte buffer that grows (never past a cap) and hands its bytes to a `Data`
/// without copying.
///
/// One-shot inflate and deflate write straight into it, so the output is not copied once
/// more from a scratch chunk.
final class OutputBuffer {
    private var base: UnsafeMutableRawPointer?
    private(set) var capacity: Int
    /// Bytes written so far, at the start of the buffer.
    var count = 0
    private let format: CompressionFormat

    /// Allocates `capacity` bytes.
    /// - Throws: ``PFError/Code/limitExceeded`` when the allocation fails.
    init(capacity: Int, format: CompressionFormat) throws(PFError) {
        self.format = format
        self.capacity = max(capacity, 1)
        guard let memory = malloc(self.capacity) else {
            throw PFError(.bufferAllocation(bytes: self.capacity), format)
        }
        base = memory
    }

    deinit { free(base) }

    /// Bytes allocated but not yet written.
    var unusedCapacity: Int { capacity - count }

    /// The `size` bytes after those written, growing the buffer first when needed.
    /// - Parameters:
    ///   - size: how many bytes the caller will write at most.
    ///   - cap: the capacity the buffer should not grow past unless `size` needs it.
    /// - Throws: ``PFError/Code/limitExceeded`` when the buffer cannot grow.
    func window(_ size: Int, cap: Int = .max) throws(PFError) -> UnsafeMutableRawBufferPointer {
        let (needed, overflow) = count.addingReportingOverflow(size)
        guard !overflow else { throw PFError(.bufferAllocation(bytes: .max), format) }
        if needed > capacity {
            let doubled = capacity.multipliedReportingOverflow(by: 2)
            var newCapacity = doubled.overflow ? needed : max(needed, doubled.partialValue)
            newCapacity = min(newCapacity, max(needed, cap))
            guard let grown = realloc(base, newCapacity) else {
                throw PFError(.bufferAllocation(bytes: newCapacity), format)
            }
            base = grown
            capacity = newCapacity
        }
        // `base` is non-nil from init on; the fallback only satisfies the type checker.
        guard let base else { throw PFError(.bufferAllocation(bytes: needed), format) }
        return UnsafeMutableRawBufferPointer(start: base + count, count: size)
    }

    /// The bytes written, as `Data` that takes over the memory; the buffer is empty after.
    func takeData() -> Data {
        guard count > 0, var memory = base else { return Data() }
        // Give back the tail only when over three quarters of the buffer are unused (the
        // initial guess was far off): shrinking returns pages to the system that the next large
        // buffer must fault in again, which costs more than inflating (measured: -55% MB/s).
        if capacity - count > max(3 * count, 64 * 1024), let shrunk = realloc(memory, count) { memory = shrunk }
        let data = Data(bytesNoCopy: memory, count: count, deallocator: .free)
        base = nil
        capacity = 0
        count = 0
        return data
    }
}
