// libFuzzer target: zlib and gzip decompression under the decompressed-size and ratio budgets.
import Foundation
import PFCompression
import PFCore
import PFFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCompression(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    let limits = FuzzDriver.limits
    _ = try? Compression.decompressIfCompressed(data, limits: limits)
    _ = try? Compression.decompress(data, from: .zlib, limits: limits)
    _ = try? Compression.decompress(data, from: .gzip, limits: limits)
    return 0
}

FuzzDriver.main(fuzzCompression)
