// libFuzzer target: typedstream (NSArchiver) documents, their value form and summary.
import Foundation
import PFCore
import PFFuzzSupport
import PFTypedStream

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTypedStream(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    let limits = FuzzDriver.limits
    _ = try? TypedStream.info(data, limits: limits)
    if let value = try? TypedStream.decodeValue(data, limits: limits) {
        FuzzDriver.exercise(value)
        _ = try? TypedStream.encodeValue(value, limits: limits)
    }
    return 0
}

FuzzDriver.main(fuzzTypedStream)
