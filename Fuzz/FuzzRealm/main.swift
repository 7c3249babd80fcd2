// libFuzzer target: the Realm reader — header, group, specs, every table's objects, the
// `{"Class": [...]}` document with links resolved, and the inspect summary.
import Foundation
import PFCore
import PFFuzzSupport
import PFRealm

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRealm(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    guard let db = try? RealmDatabase(RealmFile(bytes: [UInt8](data), limits: FuzzDriver.limits)) else { return 0 }
    for table in db.tables { _ = try? db.objects(of: table) }
    if let document = try? db.document(includeInternal: true) { FuzzDriver.exercise(document) }
    _ = try? db.summary()
    return 0
}

FuzzDriver.main(fuzzRealm)
