// A tour of pfarchive's formats: one value written as JSON, a binary and an XML property
// list and CBOR, each also gzip-compressed, read back with format detection, and compared.
//
// Run it with: swift run sample-formats
import Foundation
import PFArchive

let value: PFValue = [
    "playerName": "Sean Plott",
    "score": 1337,
    "ratio": 0.8125,
    "tags": ["arcade", "日本語", "😀"],
    "lastPlayed": .date(Date(timeIntervalSince1970: 1_313_949_772)),
    "avatar": .data(Data([0x89, 0x50, 0x4E, 0x47])),
]

do {
    print("format     bytes  gzip  round trip")
    for format in [DataFormat.json, .bplist, .xmlplist, .cbor] {
        let plain = try FormatIO.write(value, as: format)
        let packed = try FormatIO.write(value, as: format, options: .init(compression: .gzip))
        let back = try FormatIO.read(packed)
        let same = back.value == value && back.format == format
        print("\(format.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(String(plain.count).leftPad(6)) \(String(packed.count).leftPad(5))  \(same ? "equal" : "DIFFERENT")")
    }
    let json = try JSONWriter(options: .init(pretty: true)).write(value)
    print(String(decoding: json, as: UTF8.self))
    print("tags[1] =", try value.value(atPath: "tags[1]")?.scalarDescription ?? "missing")

    // Errors say what, where and what was expected.
    do {
        _ = try JSONReader().read(Data(#"{"a": [1, 2,, 3]}"#.utf8))
    } catch {
        print("error:", error)
    }
} catch {
    print("sample failed:", error)
    exit(1)
}

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
