// libFuzzer target: Parse export class files (REST JSON) into ParseObjects and back.
import Foundation
import PFCore
import PFFuzzSupport
import PFParse

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzParse(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    let limits = FuzzDriver.limits
    guard let (rows, shape) = try? ParseExport.rows(fromJSON: data, limits: limits) else { return 0 }
    rows.forEach(FuzzDriver.exercise)
    if let objects = try? ParseExport.objects(fromJSON: data, className: "GameScore", limits: limits) {
        FuzzDriver.exercise(ParseExport.document(objects, shape: shape))
    }
    return 0
}

FuzzDriver.main(fuzzParse)
