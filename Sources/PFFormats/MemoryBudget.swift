import Foundation
import PFCore
import PFSerialization

/// How much memory reading a whole value tree may take, checked before the tree is built —
/// the one home of pfarchive's memory estimate (Docs/Security.md, "Memory").
///
/// Running out of memory is an abort, not an error a program can report, so a whole-tree
/// read (`convert`, `inspect`) first estimates what it will need — the input, plus a
/// conservative number of bytes per input byte for its format — and refuses with a clean
/// `limitExceeded` when that passes ``maxBytes``. The factors are the worst cases measured
/// on inputs of small values (a 2-byte JSON number, a 1-byte CBOR integer or binary-plist
/// reference each become a whole value); typical documents need a half or a third of it.
///
/// ```swift
/// var options = FormatIO.ReadOptions()
/// options.memoryBudget = MemoryBudget()          // half the memory the process may use
/// let result = try FormatIO.read(bytes, options: options)
/// ```
public struct MemoryBudget: Sendable, Equatable {
    /// The most bytes a read may be estimated to need.
    public var maxBytes: Int

    /// A budget of `maxBytes`; by default ``defaultMaxBytes``.
    /// - Parameter maxBytes: the budget in bytes.
    public init(maxBytes: Int = MemoryBudget.defaultMaxBytes) {
        self.maxBytes = maxBytes
    }

    /// Half the memory this process may use: the physical memory, or the cgroup's
    /// `memory.max` when a container sets a lower one.
    public static var defaultMaxBytes: Int {
        Int(clamping: availableMemory / 2)
    }

    /// The memory the process may use, in bytes (physical memory, capped by cgroup v2's
    /// `memory.max` or v1's `memory.limit_in_bytes` when one is set).
    public static var availableMemory: UInt64 {
        var memory = ProcessInfo.processInfo.physicalMemory
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let limit = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0 {
                memory = min(memory, limit)
            }
        }
        return memory
    }

    /// Bytes of memory a whole tree of `format` may take per byte of (decompressed) input,
    /// the input itself not counted.
    /// - Parameter format: the format read.
    /// - Returns: the factor.
    public static func bytesPerInputByte(_ format: DataFormat) -> Int {
        switch format {
        // `[1,1,1,…]`: every 2 bytes a value (the scanner's 20-byte tape entry, then a
        // PFValue in an array), measured 35× in all by `inspect` (release build, 30 MB).
        // Records written to CBOR, XML or binary plists, or to a keyed archive's binary
        // plist, stream instead (RecordStream) and are not checked; a keyed archive written
        // whole (another container, standard output, records tied by $id) costs about as much
        // as this read (620 MB for a 20 MB export, 31×), so the factor holds for it too.
        case .json, .parse, .jsonl: 35
        // Markup around every value: measured under 4×.
        case .xmlplist: 8
        // A 1-byte integer or object reference per value (and shared references expanded),
        // measured 33×; a bplist of `[{},{},…]` → JSON 8×, a Parse export's bplist or CBOR
        // → JSON 9×. A bplist that is not records goes to JSON, CBOR or a property list by
        // its large containers (RecordStream) and is not checked: the factor is for the
        // other outputs and for compressed files.
        case .bplist, .cbor, .cborseq, .keyed, .typedstream: 40
        }
    }

    /// The estimated memory of reading `inputBytes` of `format` as a whole tree.
    /// - Parameters:
    ///   - format: the format.
    ///   - inputBytes: the input's (decompressed) size.
    /// - Returns: the estimate in bytes (saturating).
    public static func estimate(_ format: DataFormat, inputBytes: Int) -> Int {
        let (tree, overflow) = max(0, inputBytes).multipliedReportingOverflow(by: bytesPerInputByte(format))
        return overflow ? .max : tree.addingReportingOverflow(inputBytes).overflow ? .max : tree + inputBytes
    }

    /// Refuses a read whose estimate passes the budget.
    /// - Parameters:
    ///   - format: the format about to be read.
    ///   - inputBytes: the input's (decompressed) size.
    /// - Throws: ``PFCore/PFError`` `limitExceeded` naming the estimate and the budget.
    public func check(_ format: DataFormat, inputBytes: Int) throws(PFError) {
        let need = Self.estimate(format, inputBytes: inputBytes)
        guard need <= maxBytes else {
            throw PFError(
                FormatsFailure.memoryBudget(
                    format: format.rawValue, inputBytes: inputBytes, need: need,
                    bytesPerInputByte: Self.bytesPerInputByte(format), budget: maxBytes),
                format: .input)
        }
    }
}
