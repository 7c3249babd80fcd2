import Foundation
import PFCore
import PFPropertyList
import PFTestSupport
import Testing

/// Bytes ≥ 0x80 in a binary plist's ASCII strings (`0x5n`), as real files from writers other
/// than Apple's hold them: UTF-8 bytes read as UTF-8, any other as Latin-1. Checked against
/// Foundation's PropertyListSerialization, which reads every such byte as its Latin-1
/// character: the two agree on everything else, and on these strings once CF's characters are
/// taken back to the bytes they came from.
@Suite struct BinaryPlistNonASCIITests {
    static let folder = Fixtures.real.appendingPathComponent("bplist-nonascii")

    /// A one-string bplist whose string is marked ASCII and holds `bytes`.
    static func plist(asciiMarked bytes: [UInt8]) -> Data {
        precondition(bytes.count < 15)
        var out = Array("bplist00".utf8) + [0x50 | UInt8(bytes.count)] + bytes
        let offsetTable = out.count
        out.append(8)
        out += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(offsetTable)]
        return Data(out)
    }

    /// Whether our value is what CF read, CF's strings of Latin-1 characters taken back to
    /// their bytes and read as UTF-8 when they are valid UTF-8.
    static func matches(_ ours: PFValue, _ theirs: Any) -> Bool {
        switch ours {
        case .string(let s):
            guard let c = theirs as? String else { return false }
            let scalars = c.unicodeScalars
            guard scalars.contains(where: { $0.value > 0x7F }), scalars.allSatisfy({ $0.value <= 0xFF }) else { return s == c }
            return s == (String(validating: scalars.map { UInt8($0.value) }, as: UTF8.self) ?? c)
        case .bool(let b): return (theirs as? Bool) == b
        case .int(let i): return (theirs as? NSNumber)?.int64Value == i
        case .double(let d): return (theirs as? NSNumber)?.doubleValue == d
        case .date(let d): return (theirs as? Date).map { abs($0.timeIntervalSince1970 - d.timeIntervalSince1970) < 1e-6 } ?? false
        case .data(let d): return (theirs as? Data) == d
        case .array(let items):
            guard let c = theirs as? [Any], c.count == items.count else { return false }
            return zip(items, c).allSatisfy { matches($0, $1) }
        case .dictionary(let members):
            guard let c = theirs as? [String: Any], c.count == members.count else { return false }
            return members.allSatisfy { key, value in c[key].map { matches(value, $0) } ?? false }
        default: return false
        }
    }

    @Test(arguments: ["nodebplist-sample1.bplist", "nodebplist-iTunes-small.bplist"])
    func realFilesReadAsFoundationReadsThemWithUTF8Repaired(name: String) throws {
        let data = try Fixtures.data(Self.folder.appendingPathComponent(name))
        let ours = try BinaryPlistReader().read(data)
        let theirs = try PropertyListSerialization.propertyList(from: data, format: nil)
        #expect(Self.matches(ours, theirs), "\(name)")
        // Written back, the text stays (as UTF-16) and Foundation reads it as we did.
        let again = try BinaryPlistWriter().write(ours)
        #expect(try BinaryPlistReader().read(again) == ours)
        #expect(Self.matches(ours, try PropertyListSerialization.propertyList(from: again, format: nil)))
    }

    @Test func theTextTheirWritersMeant() throws {
        let sample = try BinaryPlistReader().read(Fixtures.data(Self.folder.appendingPathComponent("nodebplist-sample1.bplist")))
        #expect(sample["DCSDictionaryCopyright"] == .string("Copyright © 2007 Apple Inc."))
        let library = try BinaryPlistReader().read(Fixtures.data(Self.folder.appendingPathComponent("nodebplist-iTunes-small.bplist")))
        #expect(library["Playlists"]?[6]?["Name"] == .string("90\u{2019}s Music"))
    }

    @Test func latin1BytesReadAsFoundationReadsThem() throws {
        for bytes: [UInt8] in [[0x63, 0x61, 0x66, 0xE9], [0xFF], [0xC3], [0x80, 0x41], [0xE2, 0x80], [0x63, 0xC3, 0xA9, 0xE9]] {
            let data = Self.plist(asciiMarked: bytes)
            let ours = try BinaryPlistReader().read(data)
            let theirs = try PropertyListSerialization.propertyList(from: data, format: nil)
            #expect(ours == .string(theirs as? String ?? "?"), "\(bytes)")
        }
        #expect(try BinaryPlistReader().read(Self.plist(asciiMarked: [0x63, 0x61, 0x66, 0xC3, 0xA9])) == .string("café"))
        #expect(try BinaryPlistReader().read(Self.plist(asciiMarked: Array("plain".utf8))) == .string("plain"))
    }
}
