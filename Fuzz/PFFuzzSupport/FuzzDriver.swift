import Foundation
import PFCore

/// What every fuzz target shares: the budgets it decodes under and the driver that runs it.
///
/// A fuzz target is an executable whose `main.swift` defines the libFuzzer entry point,
/// `@_cdecl("LLVMFuzzerTestOneInput")`, and hands it to ``FuzzDriver/main(_:)``:
///
/// - built with `-Xswiftc -sanitize=fuzzer,address -Xswiftc -DPFFUZZ` (`scripts/fuzz.sh`),
///   it starts libFuzzer through `LLVMFuzzerRunDriver` (a SwiftPM executable's own `main`
///   would otherwise shadow libFuzzer's);
/// - built normally (`swift build`), it replays the files named on its command line through
///   the same entry point, so a crash file can be reproduced without sanitizers.
public enum FuzzDriver {
    /// The budgets fuzz targets decode under: the defaults for depth, smaller counts so a
    /// single input cannot make the fuzzer run out of memory instead of finding bugs.
    public static let limits = PFLimits(
        maxInputBytes: 1 << 20, maxDepth: 512, maxNodes: 50_000, maxCollectionCount: 100_000,
        maxStringBytes: 1 << 20, maxDecompressedBytes: 4 << 20, maxCompressionRatio: 1_000)

    /// The signature of `LLVMFuzzerTestOneInput`.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Copies libFuzzer's input into `Data` (an empty input has no pointer).
    public static func data(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let bytes, count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Exercises what a decoded value does after decoding: printing, comparing and freeing
    /// (each walks the tree, so each must survive the deepest tree the limits allow).
    public static func exercise(_ value: PFValue) {
        let copy = value
        _ = copy == value
        _ = value.description.utf8.count
    }

    /// Runs the target: libFuzzer in a fuzzing build, a replay of the argument files otherwise.
    public static func main(_ test: TestOneInput) -> Never {
        #if PFFUZZ
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, test))
        #else
        var failed = false
        for path in CommandLine.arguments.dropFirst() {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("\(path): cannot read\n".utf8))
                failed = true
                continue
            }
            _ = bytes.withUnsafeBytes { raw in
                test(raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
            }
        }
        exit(failed ? 1 : 0)
        #endif
    }
}

#if PFFUZZ
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif
