import Foundation
import OrderedCollections
import PFCore
import PFPropertyList
import Testing

@Suite struct BinaryPlistReaderTests {
    let reader = BinaryPlistReader()

    // MARK: - Golden decodes

    @Test func decodesEveryScalarMarker() throws {
        let file = BPlist.file([
            [0xA0 | 14] + (1...14).map { UInt8($0) },
            [0x08], [0x09],
            [0x10, 0xFF],
            [0x11, 0x01, 0x00],
            [0x12, 0xFF, 0xFF, 0xFF, 0xFF],  // 4-byte ints are unsigned
            [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // 8-byte ints are signed: -1
            [0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8),  // UInt64.max
            [0x14] + [UInt8](repeating: 0xFF, count: 16),  // sign-extended -1
            [0x22, 0x3F, 0xC0, 0x00, 0x00],  // float32 1.5
            [0x23, 0x80, 0, 0, 0, 0, 0, 0, 0],  // -0.0
            [0x33, 0xC0, 0x59, 0, 0, 0, 0, 0, 0],  // date -100 s
            [0x43, 0xDE, 0xAD, 0x00],
            [0x80, 0x2A],
            [0x00],
        ])
        let value = try reader.read(file)
        #expect(
            value == [
                false, true, 255, 256, .int(4_294_967_295), -1, .uint(UInt64.max), -1, 1.5, .double(-0.0),
                .date(Date(timeIntervalSinceReferenceDate: -100)), .data(Data([0xDE, 0xAD, 0x00])), .uid(42), .null,
            ])
    }

    @Test func decodesStringsAndExtendedCounts() throws {
        let long = String(repeating: "x", count: 20)
        let file = BPlist.file([
            [0xA4, 1, 2, 3, 4],
            [0x5F, 0x10, 20] + Array(long.utf8),
            [0x62, 0xD8, 0x3D, 0xDE, 0x00],  // 😀 as a surrogate pair: 2 units
            [0x61, 0x00, 0xE9],  // é
            [0xD1, 5, 6],
            [0x51, 0x6B],
            [0xC1, 2],  // a set reads as an array
        ])
        #expect(try reader.read(file) == [.string(long), "😀", "é", ["k": ["😀"]]])
    }

    @Test func duplicateKeysKeepFirstPositionAndLastValue() throws {
        // {"k": 1, "j": 2, "k": 3}
        let file = BPlist.file([[0xD3, 1, 2, 1, 3, 4, 5], [0x51, 0x6B], [0x51, 0x6A], [0x10, 1], [0x10, 2], [0x10, 3]])
        let value = try reader.read(file)
        #expect(value == ["k": 3, "j": 2])
        #expect(value.dictionaryValue?.keys.elementsEqual(["k", "j"]) == true)
    }

    @Test func duplicateKeysInLargeAndNestedDictionaries() throws {
        // A 20-member dictionary (past the small-dictionary path) whose 18th key is a second
        // string object equal to its 3rd, and whose values are, in turn, a small dictionary
        // with a repeated key, then ints: the outer dictionary's key hashes must survive the
        // nested one's.
        let letters = (0..<19).map { String(UnicodeScalar(UInt8(ascii: "a") + UInt8($0))) }
        // Objects: 0 outer, 1...19 keys "a"..."s", 20 a second "c", 21 inner {"x": 1, "x": 2},
        // 22 "x", 23 int 1, 24 int 2.
        let keyRefs: [UInt8] = (1...17).map { UInt8($0) } + [20, 18, 19]
        let valueRefs: [UInt8] = [21] + [UInt8](repeating: 23, count: 16) + [24, 23, 24]
        var objects: [[UInt8]] = [[0xDF, 0x10, 20] + keyRefs + valueRefs]
        objects += letters.map { [0x51] + Array($0.utf8) }
        objects += [[0x51, 0x63], [0xD2, 22, 22, 23, 24], [0x51, 0x78], [0x10, 1], [0x10, 2]]
        var expected = OrderedDictionary<String, PFValue>()
        let keyNames = keyRefs.map { $0 == 20 ? "c" : letters[Int($0) - 1] }
        let values: [PFValue] = valueRefs.map { $0 == 21 ? ["x": 2] : $0 == 23 ? 1 : 2 }
        for (key, value) in zip(keyNames, values) { expected[key] = value }
        let value = try reader.read(BPlist.file(objects))
        #expect(value == .dictionary(expected))
        #expect(value.dictionaryValue?.keys.elementsEqual(expected.keys) == true)
        #expect(value.dictionaryValue?.count == 19)
    }

    @Test func canonicallyEquivalentKeysAreOneKey() throws {
        // "K" (ASCII) and U+212A KELVIN SIGN are equal Swift strings: one member, as before.
        let file = BPlist.file([[0xD2, 1, 2, 3, 4], [0x51, 0x4B], [0x61, 0x21, 0x2A], [0x10, 1], [0x10, 2]])
        let value = try reader.read(file)
        #expect(value.dictionaryValue?.count == 1)
        #expect(value.dictionaryValue?.values.first == 2)
    }

    @Test func sharedObjectsDecodeOnceAndStayEqual() throws {
        // [[1], [1]] with the inner array stored once.
        let file = BPlist.file([[0xA2, 1, 1], [0xA1, 2], [0x10, 1]])
        #expect(try reader.read(file) == [[1], [1]])
    }

    @Test func topObjectNeedNotBeFirst() throws {
        let file = BPlist.file([[0x51, 0x61], [0xA1, 0]], top: 1)
        #expect(try reader.read(file) == ["a"])
    }

    @Test func infoReportsTheTrailer() throws {
        let file = BPlist.file([[0xA1, 1], [0x10, 7]])
        let info = try BinaryPlistReader.info(file)
        #expect(
            info
                == BinaryPlistInfo(
                    fileSize: 46, offsetIntSize: 1, objectRefSize: 1, numObjects: 2, topObject: 0, offsetTableOffset: 12))
        #expect(BinaryPlistReader.hasMagic(file))
        #expect(!BinaryPlistReader.hasMagic(Data("bplist1".utf8)))
        #expect(!BinaryPlistReader.hasMagic(Data("bplist15xxxxxxxx".utf8)))
    }

    // MARK: - Failures: code, offset and path

    @Test(arguments: [
        // (objects, code, offset, path)
        ([[0xA1, 1], [0x0F]] as [[UInt8]], PFError.Code.syntax, 10, "[0]"),  // fill byte
        ([[0xA1, 1], [0x15] + [UInt8](repeating: 0, count: 32)], .syntax, 10, "[0]"),  // 32-byte int
        ([[0xA1, 1], [0x14, 1] + [UInt8](repeating: 0, count: 15)], .invalidValue, 10, "[0]"),  // > 64 bits
        ([[0xA1, 1], [0x14, 0xFF] + [UInt8](repeating: 0, count: 15)], .invalidValue, 10, "[0]"),  // bad sign extension
        ([[0xA1, 1], [0x21, 0, 0]], .syntax, 10, "[0]"),  // 2-byte real
        ([[0xA1, 1], [0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]], .invalidValue, 10, "[0]"),  // NaN date
        ([[0xA1, 1], [0x33, 0x7F, 0xF0, 0, 0, 0, 0, 0, 0]], .invalidValue, 10, "[0]"),  // +inf date
        ([[0xA1, 1], [0x61, 0xD8, 0x3D]], .invalidValue, 11, "[0]"),  // lone high surrogate
        ([[0xA1, 1], [0x62, 0x00, 0x41, 0xDC, 0x00]], .invalidValue, 13, "[0]"),  // lone low surrogate
        ([[0xA1, 1], [0x84, 1, 0, 0, 0, 0]], .invalidValue, 10, "[0]"),  // UID above UInt32.max
        ([[0xA1, 1], [0x71, 0x61]], .unsupported, 10, "[0]"),  // v1x UTF-8 string
        ([[0xA1, 1], [0x9F]], .syntax, 10, "[0]"),  // unassigned marker
        ([[0xA1, 1], [0x55, 0x61]], .truncated, 11, "[0]"),  // string runs into the offset table
        ([[0xA1, 1], [0x4F, 0x23, 0]], .syntax, 11, "[0]"),  // extended count that is not an int
        ([[0xA1, 5], [0x10, 1]], .syntax, 9, "(root)"),  // ref out of range
        ([[0xA1, 0]], .invalidValue, 8, "[0]"),  // self cycle
        ([[0xD1, 1, 2], [0xA0], [0x10, 1]], .invalidValue, 11, "(root)"),  // non-string key
        ([[0xD1, 1, 2], [0x51, 0x6B], [0xA1, 0]], .invalidValue, 8, "k[0]"),  // cycle below a key
    ])
    func rejectsBadObjects(objects: [[UInt8]], code: PFError.Code, offset: Int, path: String) {
        let error = BPlist.error(BPlist.file(objects))
        #expect(error?.code == code)
        #expect(error?.format == .bplist)
        #expect(error?.location?.offset == offset)
        #expect(error?.path?.description ?? "(root)" == path)
        #expect(error?.message.isEmpty == false)
    }

    @Test func rejectsBadHeadersAndTrailers() {
        let good = BPlist.file([[0xA1, 1], [0x10, 7]])
        func patched(_ at: Int, _ byte: UInt8) -> Data {
            var d = good
            d[at] = byte
            return d
        }
        let t = good.count - 32
        let cases: [(Data, PFError.Code, Int)] = [
            (Data("bplist0".utf8), .truncated, 7),
            (Data("xml".utf8), .syntax, 0),
            (patched(7, 0x31), .unsupported, 6),  // bplist01
            (patched(t + 6, 0), .syntax, t + 6),  // offsetIntSize 0
            (patched(t + 6, 9), .syntax, t + 6),
            (patched(t + 7, 0), .syntax, t + 7),  // objectRefSize 0
            (patched(t + 15, 0), .syntax, t + 8),  // numObjects 0
            (patched(t + 15, 3), .syntax, t + 8),  // table size no longer matches
            (patched(t + 23, 2), .syntax, t + 16),  // topObject out of range
            (patched(t + 31, 4), .syntax, t + 24),  // table offset inside the header
            (patched(t - 2, 7), .syntax, t - 2),  // object 0's offset points into the header
            (patched(t - 1, UInt8(t - 2)), .syntax, t - 1),  // object 1's offset points at the table
            (good[..<t] + Data([0]) + good[t...], .syntax, t + 1 + 8),  // a gap before the trailer
        ]
        for (data, code, offset) in cases {
            let error = BPlist.error(data)
            #expect(error?.code == code, "\(BPlist.hex(data))")
            #expect(error?.location?.offset == offset, "\(BPlist.hex(data)): \(String(describing: error))")
        }
    }

    // MARK: - Limits

    @Test func enforcesLimits() {
        let nested = BPlist.file([[0xA1, 1], [0xA1, 2], [0xA1, 3], [0xA0]])
        #expect(BPlist.error(nested, limits: PFLimits(maxDepth: 4)) == nil)
        let deep = BPlist.error(nested, limits: PFLimits(maxDepth: 3))
        #expect(deep?.code == .limitExceeded)
        #expect(deep?.location?.offset == 14)
        #expect(deep?.path?.description == "[0][0][0]")

        let wide = BPlist.file([[0xA3, 1, 1, 1], [0x10, 1]])
        #expect(BPlist.error(wide, limits: PFLimits(maxNodes: 4)) == nil)
        #expect(BPlist.error(wide, limits: PFLimits(maxNodes: 3))?.code == .limitExceeded)
        #expect(BPlist.error(wide, limits: PFLimits(maxCollectionCount: 2))?.code == .limitExceeded)
        let string = BPlist.file([[0x53, 0x61, 0x62, 0x63]])
        #expect(BPlist.error(string, limits: PFLimits(maxStringBytes: 3)) == nil)
        #expect(BPlist.error(string, limits: PFLimits(maxStringBytes: 2))?.code == .limitExceeded)
        #expect(BPlist.error(string, limits: PFLimits(maxInputBytes: 40))?.code == .limitExceeded)
    }

    @Test func sharedSubtreesCountTowardsTheNodeBudgetEveryTimeTheyAppear() {
        // Ten arrays each holding the next twice: 2^11 - 1 nodes when expanded.
        var objects: [[UInt8]] = (0..<10).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x10, 0])
        let file = BPlist.file(objects)
        #expect(BPlist.error(file, limits: PFLimits(maxNodes: 2047)) == nil)
        let error = BPlist.error(file, limits: PFLimits(maxNodes: 2046))
        #expect(error?.code == .limitExceeded)
        #expect(error?.failure(as: PFCoreFailure.self) == .limitExceeded(limit: "maxNodes", value: 2046))
    }
}
