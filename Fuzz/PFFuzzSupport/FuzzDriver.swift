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

    /// Checks an incremental record reader (CBOR sequences, JSON Lines) against a whole read:
    /// a fresh reader (`make`) is fed `bytes` in pieces of 1 byte, of 7 bytes, and in two
    /// pieces split where the first byte says, then finished; each must give the values or
    /// the error of `whole`, or the target stops, naming `what`.
    /// - Parameters:
    ///   - feed: hands one piece to the reader, appending the values it completes.
    ///   - finish: ends the input, appending the last values.
    public static func checkChunkedFeeds<Reader>(
        _ bytes: [UInt8], against whole: Result<[PFValue], PFError>, _ what: String,
        make: () -> Reader,
        feed: (inout Reader, UnsafeRawBufferPointer, inout [PFValue]) throws(PFError) -> Void,
        finish: (inout Reader, inout [PFValue]) throws(PFError) -> Void
    ) {
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        for chunking in [[1], [7], [split, bytes.count]] {
            let fed = Result { () throws(PFError) -> [PFValue] in
                var reader = make()
                var values: [PFValue] = []
                var start = 0
                var step = 0
                while start < bytes.count {
                    let size = max(1, chunking[step % chunking.count])
                    step += 1
                    let end = min(bytes.count, start + size)
                    try bytes[start..<end].withBytes { raw throws(PFError) in try feed(&reader, raw, &values) }
                    start = end
                }
                try finish(&reader, &values)
                return values
            }
            if fed != whole {
                fatalError("\(what) fed in chunks of \(chunking) and read whole disagree: \(fed) vs \(whole)")
            }
        }
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
