import Foundation

/// How a parallel read or write (``JSONSplitJob``, ``JSONWriteJob``) cuts its work into
/// batches and how many threads work them (through ``PFCore/OrderedParallelMap``).
enum JSONBatches {
    /// How many threads, the caller's included, a parallel read or write uses at most.
    static let threads = min(ProcessInfo.processInfo.activeProcessorCount, 8)

    /// The nesting a parallel read or write goes up to on pool threads, whose stacks may be
    /// smaller than the caller's: 512 KiB on Darwin (8 MiB on Linux). Release builds here
    /// write and read documents nested 256 deep on a 512 KiB stack (the one-thread writer
    /// takes about 1.3 KiB a level), so this is half of that. A deeper document is read on
    /// the caller's thread; a deeper part of a value is written by the caller.
    static let maximumDepth = 128

    /// Groups consecutive units into batches of at least `size` each (the last may be
    /// smaller), by the units' sizes in order.
    static func group(_ sizes: some Sequence<Int>, atLeast size: Int) -> [Range<Int>] {
        var batches: [Range<Int>] = []
        var first = 0
        var filled = 0
        var count = 0
        for unitSize in sizes {
            filled += unitSize
            count += 1
            if filled >= size {
                batches.append(first..<count)
                first = count
                filled = 0
            }
        }
        if first < count { batches.append(first..<count) }
        return batches
    }
}
