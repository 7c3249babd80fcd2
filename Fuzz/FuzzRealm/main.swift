// libFuzzer target: the Realm reader — header, group, specs, every table's objects, the
// `{"Class": [...]}` document with links resolved, and the inspect summary — on the input as a
// plain file, and through decryption (HMAC-SHA224 checks and AES-256-CBC pages):
//  - the input as an encrypted file under a fixed key (the real encrypted fixture's, 64 bytes
//    of 0x01, so that seed decrypts): metadata pages, both entries' HMACs, pages never written;
//  - the input encrypted under that key (valid HMACs), then changed as the input's last byte
//    picks: unchanged, one bit flipped, a write "interrupted" (the page's entry only in the
//    previous slot), or a page's IV zeroed. Unchanged or interrupted, it must decrypt to the
//    input (zero-padded to whole pages): anything else is a bug and stops the fuzzer.
import Foundation
import PFCore
import PFFuzzSupport
import PFRealm

/// The key of every encrypted path.
let fuzzKey = [UInt8](repeating: 1, count: 64)

/// Reads everything a Realm file holds.
func readAll(_ file: RealmFile) {
    guard let db = try? RealmDatabase(file) else { return }
    for table in db.tables { _ = try? db.objects(of: table) }
    if let document = try? db.document(includeInternal: true) { FuzzDriver.exercise(document) }
    _ = try? db.summary()
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRealm(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = [UInt8](FuzzDriver.data(bytes, count))
    // The input as a plain file, then as an encrypted one.
    if let file = try? RealmFile(bytes: input, limits: FuzzDriver.limits) { readAll(file) }
    if let file = try? RealmFile(bytes: input, key: fuzzKey, limits: FuzzDriver.limits) { readAll(file) }

    // The input encrypted, each page's IV from the input (never 0: that marks a page never written).
    guard !input.isEmpty, var encrypted = try? RealmEncryption.encrypt(input, key: fuzzKey, ivs: { page in
        (UInt32(input[page % input.count]) << 8 | UInt32(truncatingIfNeeded: page)) | 1
    }) else { return 0 }
    let page = RealmEncryption.pageSize
    let dataPages = (input.count + page - 1) / page
    let chosen = Int(input[0]) << 8 | Int(input[input.count > 1 ? 1 : 0])
    let target = chosen % dataPages  // a data page
    let metadata = (target / RealmEncryption.dataPagesPerMetadataPage) * (RealmEncryption.dataPagesPerMetadataPage + 1) * page
    let entry = metadata + (target % RealmEncryption.dataPagesPerMetadataPage) * 64
    var mustDecrypt = true
    switch (input.last ?? 0) % 4 {
    case 0: break
    case 1:
        // One bit flipped anywhere: a data page, an entry, or metadata no entry uses.
        let at = chosen % encrypted.count
        encrypted[at] ^= 1 << (input[at % input.count] % 8)
        mustDecrypt = false
    case 2:
        // An interrupted write: the current entry's IV and HMAC are new (garbage here), the
        // previous slot holds the ones of the bytes on disk.
        let current = Array(encrypted[entry..<(entry + 32)])
        encrypted.replaceSubrange((entry + 32)..<(entry + 64), with: current)
        encrypted.replaceSubrange(entry..<(entry + 32), with: [UInt8](repeating: 0x5A, count: 32))
    default:
        // A page marked never written although it holds ciphertext.
        encrypted.replaceSubrange(entry..<(entry + 4), with: [0, 0, 0, 0])
        mustDecrypt = false
    }
    do {
        let plain = try RealmEncryption.decrypt(encrypted, key: fuzzKey)
        if mustDecrypt {
            let padded = input + [UInt8](repeating: 0, count: dataPages * page - input.count)
            precondition(plain == padded, "decrypting an encrypted input did not give the input back")
        }
    } catch {
        precondition(!mustDecrypt, "an encrypted input failed to decrypt: \(error)")
    }
    if let file = try? RealmFile(bytes: encrypted, key: fuzzKey, limits: FuzzDriver.limits) { readAll(file) }
    return 0
}

FuzzDriver.main(fuzzRealm)
