// libFuzzer target: Parse export class files (REST JSON) into ParseObjects and back; objects
// read from node views and from value trees must agree.
import Foundation
import PFCore
import PFFuzzSupport
import PFParse
import PFParseExport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzParse(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    let limits = FuzzDriver.limits
    guard let (rows, shape) = try? ParseExport.rows(fromJSON: data, limits: limits) else { return 0 }
    rows.forEach(FuzzDriver.exercise)
    if let objects = try? ParseExport.objects(fromJSON: data, className: "GameScore", limits: limits) {
        FuzzDriver.exercise(ParseExport.document(objects, shape: shape))
        // Objects read from node views of each row equal those read from the row's value tree.
        guard objects.count == rows.count else { fatalError("\(objects.count) objects from \(rows.count) rows") }
        for (row, object) in zip(rows, objects) where (try? ParseObject(rest: row, className: "GameScore")) != object {
            fatalError("a row reads differently as nodes and as a value: \(row)")
        }
    }
    return 0
}

FuzzDriver.main(fuzzParse)
