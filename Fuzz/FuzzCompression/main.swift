// libFuzzer target: zlib and gzip decompression under the decompressed-size and ratio budgets.
import Foundation
import PFCompression
import PFCore
import PFFuzzSupport

/// Smaller than FuzzDriver's 4 MiB (still past the 1 MiB where the ratio check starts), so a
/// bomb in the corpus costs milliseconds per run, not the whole budget three times over.
let limits: PFLimits = {
    var limits = FuzzDriver.limits
    limits.maxDecompressedBytes = 2 << 20
    return limits
}()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCompression(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    // Detected input goes through detection (the path every reader takes); anything else is
    // tried as each format, which fails within the first bytes.
    if Compression.detect(data) != nil {
        _ = try? Compression.decompressIfCompressed(data, limits: limits)
    } else {
        _ = try? Compression.decompress(data, from: .zlib, limits: limits)
        _ = try? Compression.decompress(data, from: .gzip, limits: limits)
    }
    return 0
}

FuzzDriver.main(fuzzCompression)
