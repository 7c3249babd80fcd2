// Decodes an attributed-string blob, the shape iMessage stores in `attributedBody`: an
// NSMutableAttributedString archived with NSArchiver (typedstream).
//
// The blob is made here with pfarchive's classic archiver, printed as hex, then read back
// two ways: as a generic value tree (what `pfarchive convert --from typedstream` prints) and
// as a typed Swift value through the secure classic unarchiver.
//
// Run it with: swift run SampleTypedStream
import Foundation
import PFArchive

let message = ClassicAttributedString<[String: String]>(
    string: "Lunch at 12? 🍜",
    runs: [
        .init(length: 9, attributes: ["__kIMMessagePartAttributeName": "0"]),
        .init(length: 2, attributes: ["__kIMMessagePartAttributeName": "0", "__kIMTimeAttributeName": "12:00"]),
        .init(length: 4, attributes: ["__kIMMessagePartAttributeName": "0"]),
    ],
    mutable: true)

do {
    let blob = try ClassicArchiver.archivedData(withRootObject: message)
    print("typedstream, \(blob.count) bytes:")
    print(blob.map { String(format: "%02x", $0) }.joined(separator: " "))

    let info = try TypedStream.info(blob)
    print("\nclasses:", info.classChains.map { $0.map { "\($0.name) v\($0.version)" }.joined(separator: " → ") })

    let tree = try TypedStream.decodeValue(blob)
    print("\nas a value tree:\n\(tree)")

    let typed = try ClassicUnarchiver.unarchivedObject(ofType: ClassicAttributedString<[String: String]>.self, from: blob)
    var start = typed.string.utf16.startIndex
    print("\nruns:")
    for run in typed.runs {
        let end = typed.string.utf16.index(start, offsetBy: run.length)
        print("  \"\(String(typed.string.utf16[start..<end]) ?? "?")\"", run.attributes.sorted { $0.key < $1.key })
        start = end
    }
} catch {
    print("error: \(error)")
    exit(1)
}
